import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LegacyTree, serializeFinalState } from "../../proto/treestate/index.ts";
import { loadOriginConfig } from "../config.ts";
import { createDevNode, type DevNode } from "../devnode/index.ts";
import { clientFor } from "../serve/testing.ts";
import { naiveAppend } from "../treestate/testing.ts";
import { type RunningOrigin, startOrigin } from "./start-origin.ts";

const BLOCKS = 40;
const RANGE = 5;
const SEAL_DEPTH = 8;

let dev: DevNode;
let dir: string;
const started: RunningOrigin[] = [];

function configFor(name: string) {
  return loadOriginConfig([
    ...["--node", dev.url, "--network", "regtest", "--store", `dir:${join(dir, name, "store")}`],
    ...["--data-dir", join(dir, name, "data"), "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"],
    ...["--range-size", String(RANGE), "--seal-depth", String(SEAL_DEPTH), "--poll-ms", "30"],
    ...["--log-level", "warn"],
  ]);
}

async function start(name: string, options?: Parameters<typeof startOrigin>[1]) {
  const origin = await startOrigin(configFor(name), options);
  started.push(origin);
  return origin;
}

/** Appends blocks at the dev node and hashes them, so its served tip moves at once (control.ts). */
function mine(blocks: number) {
  dev.chain.mine(blocks);
  dev.chain.hashAt(dev.chain.tip());
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 15_000, everyMs = 25) {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Per height, the finalState strings a one-leaf-at-a-time tree has after the served blocks' leaves. */
async function naiveStates(url: string, tip: number) {
  const client = clientFor("connect", url);
  const out: { sapling: string; orchard: string; hash: Uint8Array }[] = [];
  let sapling: LegacyTree = { parents: [] };
  let orchard: LegacyTree = { parents: [] };
  const range = { start: { height: 0n }, end: { height: BigInt(tip) }, poolTypes: [] };
  for await (const block of client.getBlockRange(range)) {
    for (const tx of block.vtx) {
      for (const o of tx.outputs) sapling = naiveAppend("sapling", sapling, o.cmu);
      for (const a of tx.actions) orchard = naiveAppend("orchard", orchard, a.cmx);
    }
    out[Number(block.height)] = {
      sapling: serializeFinalState(sapling),
      orchard: serializeFinalState(orchard),
      hash: block.hash,
    };
  }
  return out;
}

/** GetTreeState at `heights` equals the naive frontiers (pools with no leaf yet may read "" or empty). */
async function expectTreeStates(url: string, heights: number[]) {
  const tip = Math.max(...heights);
  const naive = await naiveStates(url, tip);
  const client = clientFor("grpc", url);
  for (const height of heights) {
    const state = await client.getTreeState({ height: BigInt(height) });
    expect(state.height).toBe(BigInt(height));
    expect(state.network).toBe("regtest");
    expect(state.hash).toBe(Buffer.from(naive[height]!.hash).reverse().toString("hex"));
    expect([state.saplingTree || "000000", height]).toEqual([naive[height]!.sapling, height]);
    expect([state.orchardTree || "000000", height]).toEqual([naive[height]!.orchard, height]);
  }
}

beforeAll(async () => {
  dev = await createDevNode({ synthetic: { blocks: BLOCKS, seed: "start-origin" } });
  await dev.ready;
  dir = mkdtempSync(join(tmpdir(), "lightedge-start-origin-"));
});

afterAll(async () => {
  for (const o of started) await o.close();
  await dev?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("startOrigin on the dev node's synthetic chain", () => {
  let origin: RunningOrigin;

  it("answers GetTreeState from its own frontiers, in the tail and after sealing, across a reorg", async () => {
    origin = await start("a");
    // Final = tip − seal depth, so ranges through 29 seal and 30..39 stay in the tail.
    const sealed = 29;
    await until("the tip", () => origin.indexer.status().tip === BLOCKS - 1);
    await until("sealing", () => origin.indexer.status().sealedTip === sealed);
    await origin.treeStates.settled(BLOCKS - 1);
    // Sealed heights, and tail heights held by the producer.
    await expectTreeStates(origin.url, [0, 3, sealed, sealed + 1, BLOCKS - 2, BLOCKS - 1]);
    // Mine on: the tail heights just checked get sealed and are now read from the store.
    mine(2 * RANGE);
    await until("sealing", () => origin.indexer.status().sealedTip >= BLOCKS - 1);
    dev.chain.reorg(3);
    dev.chain.hashAt(dev.chain.tip());
    const tip = BLOCKS - 1 + 2 * RANGE;
    await until("the reorg", async () => {
      const latest = await clientFor("connect", origin.url).getLatestBlock({});
      return Buffer.from(latest.hash).reverse().toString("hex") === dev.chain.hashAt(tip);
    });
    await origin.treeStates.settled(tip);
    await expectTreeStates(origin.url, [sealed + 1, BLOCKS - 2, BLOCKS - 1, tip - 3, tip - 1, tip]);
    const latest = await clientFor("connect", origin.url).getLatestTreeState({});
    expect(latest.height).toBe(BigInt(tip));
  }, 60_000);

  it("serves the status page with the tips on the admin port", async () => {
    const tip = origin.indexer.status().tip;
    await until("a status sample at the tip", async () => {
      const html = await (await fetch(`${origin.adminUrl}/status`)).text();
      return html.includes(`<b>${tip}</b><span>indexed tip</span>`);
    });
    const res = await fetch(`${origin.adminUrl}/`);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain("sealed tip");
    expect(html).toMatch(/reorg: rolled back \d+ block\(s\) to height \d+/);
    expect(html).toMatch(/tree states computed from height 0 \(start: genesis\)/);
    expect((await fetch(`${origin.adminUrl}/metrics`)).status).toBe(200);
  });

  it("starts again on the same store from its stored frontier and closes cleanly", async () => {
    await origin.close();
    await origin.close(); // idempotent
    const again = await start("a");
    const tip = dev.chain.tip();
    await until("the tip", () => again.indexer.status().tip === tip);
    mine(2);
    await until("new blocks", () => again.indexer.status().tip === tip + 2);
    await again.treeStates.settled(tip + 2);
    await expectTreeStates(again.url, [1, tip - 4, tip, tip + 1, tip + 2]);
    const html = await (await fetch(`${again.adminUrl}/status`)).text();
    expect(html).toMatch(/tree states computed from height \d+ \(start: store\)/);
    origin = again;
  }, 60_000);

  it("answers GetTreeState for a tip the moment the indexer has it, waiting for the worker to hash it", async () => {
    // A wallet asks GetLatestBlock, then GetTreeState at that tip at once; the tree-state worker
    // hashes each block a moment after the indexer appends it, so without the wait that moment
    // answered Unavailable ("not computed yet").
    const client = clientFor("grpc", origin.url);
    for (let i = 0; i < 15; i++) {
      const tip = dev.chain.tip() + 1;
      mine(1);
      await until("the new tip", () => origin.indexer.status().tip === tip, 15_000, 1);
      const state = await client.getTreeState({ height: BigInt(tip) });
      expect(state.height).toBe(BigInt(tip));
    }
    await origin.treeStates.settled(dev.chain.tip());
    await expectTreeStates(origin.url, [dev.chain.tip() - 1, dev.chain.tip()]);
  }, 60_000);
});
