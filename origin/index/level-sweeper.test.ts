import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HISTORY_VERSION } from "../../proto/history/layout.ts";
import { HASH_INDEX_VERSION, type HeadObject } from "../../proto/range/index.ts";
import { type BlobStore, createDirectoryStore } from "../store/index.ts";
import { createLevelSweeper, headLevelFolders } from "./level-sweeper.ts";

const EPOCH = 4;
const DIR = "v1/regtest/r10/";

/** A head over ranges 0..count−1 with epochs of 4 ranges, naming a hash index and (optionally) history. */
function headOf(rangeCount: number, history = true): HeadObject {
  const spans = Math.floor(rangeCount / EPOCH) > 0 ? 1 : 0;
  const levels = Array.from({ length: spans + (rangeCount % EPOCH > 0 ? 1 : 0) }, () => ({
    transactions: 100,
    addresses: 10,
  }));
  return {
    format: "lightedge-head",
    version: 1,
    network: "regtest",
    rangeSize: 10,
    firstHeight: 0,
    rangeCount,
    tip: { height: rangeCount * 10 - 1, displayHash: "00".repeat(32), time: 0 },
    updatedAt: new Date(0).toISOString(),
    lightdInfo: {} as HeadObject["lightdInfo"],
    hashIndex: { version: HASH_INDEX_VERSION, epochRanges: EPOCH },
    ...(history ? { history: { version: HISTORY_VERSION, epochRanges: EPOCH, levels } } : {}),
  };
}

/** Puts two objects in each level folder `head` names, as the sealer does before writing it. */
async function writeLevels(store: BlobStore, head: HeadObject): Promise<void> {
  for (const folders of headLevelFolders(head).values())
    for (const folder of folders)
      for (const name of ["0000.bin", "0001.bin"]) await store.put(folder + name, new Uint8Array([1]));
}

async function folders(store: BlobStore): Promise<string[]> {
  const keys = await store.list(DIR);
  return [...new Set(keys.map((k) => k.split("/").slice(0, 5).join("/")))].sort();
}

/** "0-2" as a level folder's name. */
const spanName = (span: string) =>
  span
    .split("-")
    .map((i) => i.padStart(8, "0"))
    .join("-");

/** Lets the sweeper's background listing settle. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("the superseded index level sweeper", () => {
  let root: string;
  let store: BlobStore;
  let clock: number;
  const errors: unknown[] = [];
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "lightedge-sweeper-"));
    store = createDirectoryStore(root);
    clock = 0;
    errors.length = 0;
  });
  afterEach(() => rm(root, { recursive: true, force: true }));
  const sweeper = (s: Pick<BlobStore, "list" | "delete"> = store) =>
    createLevelSweeper({ store: s, graceMs: 1000, now: () => clock, onError: (e) => errors.push(e) });

  it("names a head's level folders: base and recent, per index kind it describes", () => {
    const named = headLevelFolders(headOf(6));
    expect([...named.keys()]).toEqual(["hash", "txid", "taddr"]);
    expect([...named.get("txid")!]).toEqual([
      `${DIR}txid/00000000-00000003/`,
      `${DIR}txid/00000004-00000005/`,
    ]);
    expect([...headLevelFolders(headOf(6, false)).keys()]).toEqual(["hash"]);
  });

  it("deletes a superseded level once its grace has passed, at a later head, and never a live one", async () => {
    const s = sweeper();
    for (const count of [1, 2]) {
      await writeLevels(store, headOf(count));
      expect((await s.afterHead(headOf(count))).deleted).toEqual([]);
    }
    clock = 999;
    await writeLevels(store, headOf(3));
    expect((await s.afterHead(headOf(3))).deleted).toEqual([]);
    clock = 1000;
    await writeLevels(store, headOf(5));
    // Superseded at 0 (span 0-0 by the head of 2 ranges) and at 999 (0-1): only the first is due.
    expect((await s.afterHead(headOf(5))).deleted.sort()).toEqual(
      ["hash", "taddr", "txid"].map((k) => `${DIR}${k}/00000000-00000000/`),
    );
    clock = 5000;
    expect((await s.afterHead(headOf(5))).deleted.length).toBe(6); // 0-1 and 0-2
    expect(await folders(store)).toEqual(
      ["hash", "taddr", "txid"].flatMap((k) => [
        `${DIR}${k}/00000000-00000003`,
        `${DIR}${k}/00000004-00000004`,
      ]),
    );
    expect(errors).toEqual([]);
  });

  it("finds what an earlier run left behind, and keeps a folder the newest head names again", async () => {
    // An earlier run: heads of 1 and 2 ranges, then the levels of 3 written and a crash before its head.
    for (const count of [1, 2, 3]) await writeLevels(store, headOf(count));
    const s = sweeper();
    await s.afterHead(headOf(2));
    await settle();
    await s.afterHead(headOf(2)); // the listing is noted here, at 0
    clock = 2000;
    // The restart seals range 2 again: the head of 3 names the folders the crash left.
    expect((await s.afterHead(headOf(3))).deleted.sort()).toEqual(
      ["hash", "taddr", "txid"].flatMap((k) => [`${DIR}${k}/00000000-00000000/`]),
    );
    clock = 4000;
    expect((await s.afterHead(headOf(3))).deleted.sort()).toEqual(
      ["hash", "taddr", "txid"].map((k) => `${DIR}${k}/00000000-00000001/`),
    );
    expect(await folders(store)).toEqual(
      ["hash", "taddr", "txid"].map((k) => `${DIR}${k}/00000000-00000002`),
    );
  });

  it("leaves a kind alone that the head does not describe", async () => {
    await writeLevels(store, headOf(1));
    await writeLevels(store, headOf(2));
    const s = sweeper();
    await s.afterHead(headOf(2, false));
    await settle();
    await s.afterHead(headOf(2, false));
    // A head that stops describing history (a newer writer's version, or history turned off) does
    // not make the history levels the last head named garbage to this code.
    await writeLevels(store, headOf(3));
    await s.afterHead(headOf(3));
    await s.afterHead(headOf(4, false));
    clock = 10_000;
    expect((await s.afterHead(headOf(4, false))).deleted.sort()).toEqual(
      ["0-0", "0-1", "0-2"].map((span) => `${DIR}hash/${spanName(span)}/`),
    );
    expect((await folders(store)).filter((f) => !f.includes("/hash/"))).toEqual(
      ["taddr", "txid"].flatMap((k) => ["0-0", "0-1", "0-2"].map((span) => `${DIR}${k}/${spanName(span)}`)),
    );
  });

  it("deletes about keysPerSweep objects a call, a folder at a time, and the rest at later calls", async () => {
    for (const count of [1, 2, 3]) await writeLevels(store, headOf(count));
    const s = createLevelSweeper({
      store,
      graceMs: 0,
      keysPerSweep: 3,
      now: () => clock,
      onError: (e) => errors.push(e),
    });
    await s.afterHead(headOf(3));
    await settle();
    // Six superseded folders of two objects each: two a call (the second goes past the budget).
    const calls: number[] = [];
    for (let i = 0; i < 4; i++) calls.push((await s.afterHead(headOf(3))).deleted.length);
    expect(calls).toEqual([2, 2, 2, 0]);
    expect(await folders(store)).toEqual(
      ["hash", "taddr", "txid"].map((k) => `${DIR}${k}/00000000-00000002`),
    );
  });

  it("reports a failed deletion and tries it again after the next head", async () => {
    await writeLevels(store, headOf(1));
    await writeLevels(store, headOf(2));
    let failing = true;
    const s = sweeper({
      list: (prefix) => store.list(prefix),
      delete: async (keys) => {
        if (failing) throw new Error("store unavailable");
        await store.delete(keys);
      },
    });
    await s.afterHead(headOf(1));
    await s.afterHead(headOf(2));
    clock = 1000;
    expect((await s.afterHead(headOf(2))).deleted).toEqual([]);
    expect(errors.length).toBe(3);
    failing = false;
    expect((await s.afterHead(headOf(2))).deleted.length).toBe(3);
    expect(await folders(store)).toEqual(
      ["hash", "taddr", "txid"].map((k) => `${DIR}${k}/00000000-00000001`),
    );
  });
});
