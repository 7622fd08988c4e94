import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { toHex } from "../../proto/bytes.ts";
import {
  addressDirectoryEntries,
  addressDirectoryKey,
  addressKeyOfScript,
  addressRecords,
  addressRecordsKey,
  headHistoryLevels,
  historyIndexedTip,
  lookupTx,
  rawBlocksKey,
  txIndexShardKey,
  txTableKey,
} from "../../proto/history/index.ts";
import {
  bundleKey,
  DEFAULT_BUNDLE_RANGES,
  decodeHead,
  encodeHead,
  type HeadObject,
  headKey,
  lookupSealedHash,
} from "../../proto/range/index.ts";
import { chainDir, hasChain, readChainHex } from "../../test/support/chain.ts";
import { testIndexer } from "../../test/support/test-indexer.ts";
import { parseBlock } from "../chain/index.ts";
import { createDevNode, type DevNode } from "../devnode/index.ts";
import type { IndexerOptions } from "../index/index.ts";
import { headLevelFolders } from "../index/level-sweeper.ts";
import { auditStore } from "../index/store-audit.ts";
import { mine, tempDir } from "../index/testing.ts";
import { createNodeClient } from "../node/index.ts";
import { type BlobStore, createDirectoryStore } from "../store/index.ts";
import { reproject } from "./reproject.ts";

const RANGE = 10;
const EPOCH = 8;
const FROM = 1028400;
const TO = 1028600;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const storeDirs = new WeakMap<BlobStore, string>();
const storeDirOf = (store: BlobStore) => storeDirs.get(store)!;
const bin = new URL("../../bin/lightedge.js", import.meta.url).pathname;

function dir(prefix: string): string {
  const d = tempDir(prefix);
  cleanups.push(() => d.remove());
  return d.path;
}

/** testnet 1028400–1028600 (real transparent traffic, spends included) with 100 mined blocks on top. */
async function corpusNode(): Promise<DevNode> {
  const dev = await createDevNode({ corpus: { dir: chainDir, from: FROM, to: TO }, network: "testnet" });
  await dev.ready;
  cleanups.push(() => dev.close());
  mine(dev, 100);
  return dev;
}

/** Indexes the node into `store` until synced; returns the running indexer (stopped at cleanup). */
async function sync(
  dev: DevNode,
  store: BlobStore,
  dataDir: string,
  history: boolean,
  extra: Partial<IndexerOptions> = {},
) {
  const t = testIndexer(dev.url, {
    store,
    dataDir,
    network: "testnet",
    rangeSize: RANGE,
    fromHeight: FROM,
    sealDepth: 100,
    hashIndexEpochRanges: EPOCH,
    history,
    ...extra,
  });
  cleanups.push(() => t.stop());
  await t.indexer.start();
  await t.indexer.synced();
  return t;
}

async function headOf(store: BlobStore): Promise<HeadObject> {
  return decodeHead((await store.get(headKey("testnet")))!);
}

/** The corpus blocks' transactions, outputs to t-addresses and spends of them (brute force). */
function corpusHistory(to: number) {
  const txs: { txid: string; height: number; index: number; raw: string }[] = [];
  const records: string[] = [];
  const outputs = new Map<string, { key: string; value: bigint; where: string }>();
  for (let height = FROM; height <= Math.min(to, TO); height++) {
    const block = parseBlock(readChainHex(`blocks/testnet/${height}.hex`), { strictV6: false });
    for (const tx of block.txs) {
      txs.push({ txid: toHex(tx.wireTxid), height, index: tx.index, raw: toHex(tx.raw) });
      tx.vout.forEach((o, n) => {
        const key = addressKeyOfScript(o.scriptPubKey);
        if (key === undefined) return;
        const value = BigInt(o.valueHigh) * 2n ** 32n + BigInt(o.valueLow);
        outputs.set(`${toHex(tx.wireTxid)}:${n}`, {
          key: toHex(key),
          value,
          where: `${height}/${tx.index}/${n}`,
        });
        records.push(`${toHex(key)} 0 ${height} ${tx.index} ${n} ${value}`);
      });
    }
    for (const tx of block.txs.slice(1))
      tx.vin.forEach((i, n) => {
        const spent = outputs.get(`${toHex(i.wirePrevoutTxid)}:${i.prevoutIndex}`);
        if (spent) records.push(`${spent.key} 1 ${height} ${tx.index} ${n} ${spent.value} ${spent.where}`);
      });
  }
  return { txs, records: records.sort() };
}

/**
 * Every history object the head names, by key: raw-block objects and tables of its ranges, and its
 * index levels' shards (superseded levels a writer left behind are not named, so not compared).
 */
async function historyObjects(store: BlobStore): Promise<Map<string, string>> {
  const head = await headOf(store);
  const keys: string[] = [];
  const first = head.firstHeight / head.rangeSize;
  for (let i = first; i < first + head.rangeCount; i++)
    keys.push(rawBlocksKey("testnet", RANGE, i), txTableKey("testnet", RANGE, i));
  for (const level of headHistoryLevels(head) ?? [])
    for (let shard = 0; shard < 2 ** level.txid.bits || shard < 2 ** level.taddr.bits; shard++) {
      if (shard < 2 ** level.txid.bits) keys.push(txIndexShardKey(level.txid, shard));
      if (shard < 2 ** level.taddr.bits)
        keys.push(addressDirectoryKey(level.taddr, shard), addressRecordsKey(level.taddr, shard));
    }
  const out = new Map<string, string>();
  for (const key of keys) {
    const bytes = await store.get(key);
    if (bytes !== null) out.set(key, toHex(bytes));
  }
  return out;
}

/** Keys of history objects in a store, named or not. */
async function historyKeys(store: BlobStore): Promise<string[]> {
  const keys = [
    ...(await store.list("v1/testnet/r10/txid/")),
    ...(await store.list("v1/testnet/r10/taddr/")),
  ];
  for (const key of await store.list("v1/testnet/r10/")) if (/\.(raw|txs)\.bin$/.test(key)) keys.push(key);
  return keys;
}

describe.skipIf(!hasChain)("node-free history, sealed by the indexer (testnet 1028400–1028600)", () => {
  it("answers every sealed transaction and address from the store alone, as a scan of the blocks does", async () => {
    const dev = await corpusNode();
    const store = createDirectoryStore(dir("store"));
    const dataDir = dir("data");
    // No grace: every level a head supersedes is deleted after that head (origin/index/level-sweeper.ts).
    const t = await sync(dev, store, dataDir, true, { supersededGraceMs: 0 });
    const head = await headOf(store);
    const sealedTip = head.tip!.height;
    expect(sealedTip).toBe(1028599);
    // What is left of the index levels is what the head names: every lookup below reads them.
    const named = [...headLevelFolders(head).values()].flatMap((folders) => [...folders]).sort();
    expect(named.length).toBe(6);
    const stored = new Set<string>();
    for (const kind of ["hash", "txid", "taddr"])
      for (const key of await store.list(`v1/testnet/r${RANGE}/${kind}/`))
        stored.add(key.split("/").slice(0, 5).join("/") + "/");
    expect([...stored].sort()).toEqual(named);
    for (const height of [FROM, FROM + 77, sealedTip]) {
      const block = parseBlock(readChainHex(`blocks/testnet/${height}.hex`), { strictV6: false });
      const found = await lookupSealedHash({ read: (k, span) => store.get(k, span) }, head, block.wireHash);
      expect(found.indexed && found.found?.height).toBe(height);
    }
    // The tail's raw bytes wait in the spool (raw-spool.ts), a file per range; sealed ranges' are gone.
    const spooled = (await readdir(join(dataDir, "raw-spool"))).map((f) => Number(f.split(".")[0]));
    expect(spooled.length).toBeGreaterThan(0);
    expect(spooled.every((index) => index * RANGE > sealedTip)).toBe(true);
    const levels = headHistoryLevels(head)!;
    expect(levels.length).toBe(2); // 20 ranges: a base level of two epochs, a recent level of 4 ranges
    const expected = corpusHistory(sealedTip);
    expect(head.history!.levels.reduce((n, l) => n + l.transactions, 0)).toBe(expected.txs.length);

    const reads: string[] = [];
    const source = {
      read: (key: string, span?: { offset: number; length: number }) => {
        reads.push(key);
        return store.get(key, span);
      },
    };
    for (const tx of expected.txs) {
      reads.length = 0;
      const found = await lookupTx(source, head, Buffer.from(tx.txid, "hex"));
      expect(found).toMatchObject({ indexed: true, found: { height: tx.height, index: tx.index } });
      expect(reads.length).toBeLessThanOrEqual(2);
      const at = found.indexed ? found.found! : undefined;
      const raw = await store.get(rawBlocksKey("testnet", RANGE, Math.floor(tx.height / RANGE)), at);
      expect(toHex(raw!)).toBe(tx.raw);
    }
    expect(await lookupTx(source, head, new Uint8Array(32).fill(7))).toEqual({
      indexed: true,
      found: undefined,
    });

    const keys = [...new Set(expected.records.map((r) => r.split(" ")[0]!))];
    const got: string[] = [];
    for (const key of keys) {
      const where = await addressDirectoryEntries(source, head, Buffer.from(key, "hex"));
      if (!where.indexed) throw new Error("no history");
      for (const r of await addressRecords(source, where.found))
        got.push(
          `${toHex(r.addressKey)} ${r.kind} ${r.height} ${r.txIndex} ${r.index} ${r.value}` +
            (r.spent ? ` ${r.spent.height}/${r.spent.txIndex}/${r.spent.index}` : ""),
        );
    }
    expect(expected.records.some((r) => r.split(" ")[1] === "1")).toBe(true);
    expect(got.sort()).toEqual(expected.records);

    // The tail (1028600 and the mined blocks) through the origin's TailAddresses path.
    const tail = await t.indexer.history!.tailAddresses(
      keys.map((k) => Buffer.from(k, "hex")),
      sealedTip,
    );
    expect(tail.tip.height).toBe(TO + 100);
    const inTail = corpusHistory(TO).records.filter((r) => Number(r.split(" ")[2]) > sealedTip);
    expect(
      tail.records
        .map(
          (r) =>
            `${toHex(r.key)} ${r.kind} ${r.height} ${r.txIndex} ${r.n} ${r.value}` +
            (r.kind === 1 ? ` ${r.outHeight}/${r.outTxIndex}/${r.outN}` : ""),
        )
        .sort(),
    ).toEqual(inTail);
    // The caller's limit (the edge asks for what its isolate may hold): as many records as there
    // are pass, one fewer is too many.
    const n = tail.records.length;
    expect(n).toBeGreaterThan(1);
    const limited = (max: number) =>
      t.indexer.history!.tailAddresses(
        keys.map((k) => Buffer.from(k, "hex")),
        sealedTip,
        max,
      );
    expect((await limited(n)).records).toEqual(tail.records);
    await expect(limited(n - 1)).rejects.toMatchObject({
      kind: "too-large",
      message: `TailAddresses: more than ${n - 1} address records above height ${sealedTip}`,
    });
  }, 120_000);

  it("names index levels that lag its heads while catching up, the origin answering above them; an idle refresh extends levels a head left behind", async () => {
    const dev = await corpusNode();
    const dirStore = createDirectoryStore(dir("store"));
    const heads: HeadObject[] = [];
    const store: BlobStore = {
      ...dirStore,
      put: async (key, body, opts) => {
        await dirStore.put(key, body, opts);
        if (key === headKey("testnet")) heads.push(decodeHead(body as Uint8Array));
      },
    };
    const dataDir = dir("data");
    const t = await sync(dev, store, dataDir, true);
    // 20 ranges, the node's final height 1028600 (its tip − the seal depth): every head but the
    // last is written with a whole range more final (catching up), so it rewrites the levels only
    // once they lack max(an epoch of 8, the ranges they cover); the last one (following) always.
    expect(heads.length).toBeGreaterThan(4);
    let previous = 0;
    heads.forEach((h, k) => {
      const covered = h.history!.rangeCount!;
      expect(h.history!.version).toBe(2);
      const due = k === heads.length - 1 || h.rangeCount - previous >= Math.max(EPOCH, previous);
      expect(covered).toBe(due ? h.rangeCount : previous);
      previous = covered;
    });
    const final = heads[heads.length - 1]!;
    expect(final.rangeCount).toBe(20);
    expect(final.history!.rangeCount).toBe(20);

    // A head whose levels lag it: the store's levels up to its indexed tip, the origin's records
    // above it (TailAddresses), together every record through the origin's tip.
    const lagging = heads.findLast(
      (h) => h.history!.rangeCount! > 0 && h.history!.rangeCount! < h.rangeCount,
    )!;
    expect(lagging).toBeDefined();
    const indexedTip = historyIndexedTip(lagging)!;
    expect(indexedTip).toBe(FROM + lagging.history!.rangeCount! * RANGE - 1);
    expect(lagging.tip!.height).toBeGreaterThan(indexedTip);
    const source = { read: (key: string, span?: { offset: number; length: number }) => store.get(key, span) };
    const expected = corpusHistory(TO);
    const keys = [...new Set(expected.records.map((r) => r.split(" ")[0]!))];
    const got: string[] = [];
    for (const key of keys) {
      const where = await addressDirectoryEntries(source, lagging, Buffer.from(key, "hex"));
      if (!where.indexed) throw new Error("no history");
      for (const r of await addressRecords(source, where.found)) {
        expect(r.height).toBeLessThanOrEqual(indexedTip);
        got.push(
          `${toHex(r.addressKey)} ${r.kind} ${r.height} ${r.txIndex} ${r.index} ${r.value}` +
            (r.spent ? ` ${r.spent.height}/${r.spent.txIndex}/${r.spent.index}` : ""),
        );
      }
    }
    const above = await t.indexer.history!.tailAddresses(
      keys.map((k) => Buffer.from(k, "hex")),
      indexedTip,
    );
    for (const r of above.records)
      got.push(
        `${toHex(r.key)} ${r.kind} ${r.height} ${r.txIndex} ${r.n} ${r.value}` +
          (r.kind === 1 ? ` ${r.outHeight}/${r.outTxIndex}/${r.outN}` : ""),
      );
    expect(got.sort()).toEqual(expected.records);
    // A transaction sealed above the levels is not in them (a reader asks the origin); one below is.
    const below = expected.txs.find((tx) => tx.height <= indexedTip)!;
    const over = expected.txs.find((tx) => tx.height > indexedTip && tx.height <= lagging.tip!.height)!;
    expect(await lookupTx(source, lagging, Buffer.from(below.txid, "hex"))).toMatchObject({
      found: { height: below.height },
    });
    expect(await lookupTx(source, lagging, Buffer.from(over.txid, "hex"))).toEqual({
      indexed: true,
      found: undefined,
    });
    await t.stop();

    // A sync stopped with its levels behind its head (here: every range sealed, those levels): the
    // next start has nothing to seal, and its idle refresh writes the levels before it is synced.
    await dirStore.put(headKey("testnet"), encodeHead({ ...final, history: lagging.history }), {
      contentType: "application/json",
    });
    heads.length = 0;
    await sync(dev, store, dataDir, true);
    const refreshed = await headOf(store);
    expect(refreshed.rangeCount).toBe(20);
    expect(refreshed.history).toEqual(final.history);
    expect(heads.map((h) => h.history!.rangeCount)).toEqual([20]);
  }, 120_000);

  it("rebuilds a lost history database from the store, and backfills a store sealed without history, byte for byte", async () => {
    const dev = await corpusNode();
    const withHistory = createDirectoryStore(dir("store-a"));
    const dataA = dir("data-a");
    const a = await sync(dev, withHistory, dataA, true);
    await a.stop();
    const reference = await historyObjects(withHistory);
    expect(reference.size).toBeGreaterThan(40);

    // The database is lost: the next start applies the store's raw-block objects again.
    rmSync(join(dataA, "history-testnet.sqlite"), { force: true });
    const again = await sync(dev, withHistory, dataA, true);
    const tail = await again.indexer.history!.tailAddresses([], 1028599);
    expect(tail.records).toEqual([]);
    expect(await historyObjects(withHistory)).toEqual(reference);

    // A store sealed before node-free history existed: the first start with it fetches the raw
    // blocks from the node and writes exactly what sealing with history would have written.
    const without = createDirectoryStore(dir("store-b"));
    const dataB = dir("data-b");
    const b = await sync(dev, without, dataB, false);
    await b.stop();
    expect((await headOf(without)).history).toBeUndefined();
    expect((await historyKeys(without)).length).toBe(0);
    // The backfill runs behind serving: the origin serves the store while the node has not yet
    // answered a single raw block, and seals nothing new until the history database caught up.
    const node = createNodeClient({ url: dev.url, network: "testnet" });
    cleanups.push(() => node.close());
    let answer!: () => void;
    const held = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const c = testIndexer(dev.url, {
      store: without,
      dataDir: dataB,
      network: "testnet",
      rangeSize: RANGE,
      fromHeight: FROM,
      sealDepth: 100,
      hashIndexEpochRanges: EPOCH,
      history: true,
      chain: { ...node, rawBlocks: (from, to) => held.then(() => node.rawBlocks(from, to)) },
    });
    cleanups.push(() => c.stop());
    const sealedB = (await headOf(without)).tip!.height;
    await c.indexer.start();
    expect(c.indexer.view.sealedTip()).toBe(sealedB);
    expect(c.indexer.lastBlock()?.height).toBeGreaterThanOrEqual(sealedB);
    await new Promise((r) => setTimeout(r, 300));
    expect((await headOf(without)).history).toBeUndefined();
    // Tail spends would be resolved against a database without the sealed outputs: refused.
    await expect(c.indexer.history!.tailAddresses([], sealedB)).rejects.toMatchObject({
      kind: "unavailable",
    });
    answer();
    await c.indexer.synced();
    expect((await headOf(without)).history).toEqual((await headOf(withHistory)).history);
    expect(await historyObjects(without)).toEqual(reference);
  }, 240_000);

  it("reprojects the store from its raw blocks with no node: identical ranges, damage found, a rebuilt store", async () => {
    const dev = await corpusNode();
    const storeDir = dir("store");
    const store = createDirectoryStore(storeDir);
    storeDirs.set(store, storeDir);
    const t = await sync(dev, store, dir("data"), true);
    await t.stop();
    const checked = await reproject({ from: store, network: "testnet" });
    expect(checked).toEqual({ ranges: 20, identical: 20, differing: [], written: 0 });

    // A rebuilt store is the same store: every object it holds byte for byte (superseded hash-index
    // levels the writer left behind are not carried over), the head but its time, and it audits clean.
    const toDir = dir("rebuilt");
    const rebuilt = createDirectoryStore(toDir);
    const written = await reproject({ from: store, network: "testnet", to: rebuilt });
    expect(written.written).toBeGreaterThan(100);
    const keys = (await rebuilt.list("v1/testnet/")).filter((k) => !k.endsWith("head.json"));
    expect(keys.length).toBeGreaterThan(100);
    for (const key of keys)
      expect(toHex((await rebuilt.get(key))!), key).toBe(toHex((await store.get(key))!));
    await auditStore(rebuilt, "testnet", RANGE);
    expect({ ...(await headOf(rebuilt)), updatedAt: "" }).toEqual({
      ...(await headOf(store)),
      updatedAt: "",
    });

    // A damaged projection object is found; the CLI says so and exits 1.
    const key = "v1/testnet/r10/00102845.shielded.bin";
    const damaged = (await store.get(key))!.slice();
    damaged[damaged.length - 1]! ^= 1;
    await store.put(key, damaged);
    expect((await reproject({ from: store, network: "testnet" })).differing).toEqual([102845]);
    const cli = spawnSync(
      process.execPath,
      [bin, "reproject", "--store", `dir:${storeDirOf(store)}`, "--network", "testnet"],
      {
        encoding: "utf8",
      },
    );
    expect(cli.stdout).toBe("REPROJECTED 20 19 1\n");
    expect(cli.status).toBe(1);
    const ok = spawnSync(
      process.execPath,
      [bin, "reproject", "--store", `dir:${toDir}`, "--network", "testnet"],
      {
        encoding: "utf8",
      },
    );
    expect(ok.stdout).toBe("REPROJECTED 20 20 0\n");
    expect(ok.status).toBe(0);

    // Bundles are rebuilt from the rebuilt ranges, never copied: a damaged one does not carry over.
    const bundle = bundleKey("testnet", RANGE, DEFAULT_BUNDLE_RANGES, 10284, "full");
    const good = (await rebuilt.get(bundle))!;
    const flipped = good.slice();
    flipped[0]! ^= 1;
    await store.put(bundle, flipped);
    const again = createDirectoryStore(dir("again"));
    await reproject({ from: store, network: "testnet", to: again });
    expect(toHex((await again.get(bundle))!)).toBe(toHex(good));
  }, 240_000);
});
