import { afterEach, describe, expect, it } from "vitest";
import { wireHashOf } from "../../proto/bytes.ts";
import { encodeFrame } from "../../proto/frame.ts";
import { chainDir, hasChain, readChainHex } from "../../test/support/chain.ts";
import { metricValue, type TestIndexer, testIndexer } from "../../test/support/test-indexer.ts";
import { parseBlock, projectBlock } from "../chain/index.ts";
import { createDevNode, type DevNode } from "../devnode/index.ts";
import { auditStore } from "./store-audit.ts";
import { collect, mine, tempDir, until } from "./testing.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(blocks: number, extra: Parameters<typeof testIndexer>[1] | object = {}) {
  const dev = await createDevNode({ synthetic: { blocks, seed: "sync" }, network: "regtest" });
  await dev.ready;
  cleanups.push(() => dev.close());
  const dirs = [tempDir("store"), tempDir("data")];
  cleanups.push(() => {
    for (const d of dirs) d.remove();
  });
  const t = testIndexer(dev.url, { storeDir: dirs[0]!.path, dataDir: dirs[1]!.path, ...extra });
  cleanups.push(() => t.stop());
  return { dev, t, storeDir: dirs[0]!.path, dataDir: dirs[1]!.path };
}

function expectedFrame(
  dev: DevNode,
  height: number,
  projection: "full" | "shielded" | "nullifiers",
): Uint8Array {
  const block = dev.chain.block(height);
  return encodeFrame(projectBlock(parseBlock(block.raw), block.treeSizes)[projection]);
}

async function expectServedEqualsNode(dev: DevNode, t: TestIndexer, from: number, to: number) {
  for (const projection of ["full", "shielded", "nullifiers"] as const) {
    const frames = await collect(t.indexer.view.blockFrames(projection, from, to));
    expect(frames.length).toBe(to - from + 1);
    for (const [k, frame] of frames.entries()) {
      expect(Buffer.from(frame).equals(expectedFrame(dev, from + k, projection))).toBe(true);
    }
  }
}

describe("initial sync and tip following", () => {
  it("syncs a synthetic chain, seals every final range and serves byte-exact projections", async () => {
    const { dev, t } = await setup(257);
    await t.indexer.start();
    await t.indexer.synced();
    const view = t.indexer.view;
    expect(view.tip()?.height).toBe(256);
    // Final = at least 10 blocks on top (seal depth 10): ranges up to 246 complete → sealed ≤ 239.
    expect(view.sealedTip()).toBe(239);
    const audit = await auditStore(t.store, "regtest", 10);
    expect(audit.ranges).toBe(24);
    expect(audit.head?.tip?.displayHash).toBe(dev.chain.hashAt(239));
    // What the edge answers GetLightdInfo / GetLatestBlock from while the origin is down.
    const info = await t.node.info();
    expect(audit.head?.lightdInfo).toMatchObject({
      chainName: info.chain,
      blockHeight: 256,
      saplingActivationHeight: info.saplingActivationHeight,
      consensusBranchId: info.consensus.chaintip,
      zcashdSubversion: info.subversion,
    });
    // Across the seam, ascending and descending.
    await expectServedEqualsNode(dev, t, 0, 256);
    const down = await collect(view.blocks("full", 250, 230));
    expect(down.map((b) => b.height)).toEqual(Array.from({ length: 21 }, (_, k) => 250 - k));
    expect(Buffer.from(down[0]!.wireHash).equals(Buffer.from(wireHashOf(dev.chain.hashAt(250))))).toBe(true);
    expect(await metricValue(t.registry, "lightedge_index_uploaded_bytes_total")).toBeGreaterThan(0);
  });

  it("follows new blocks within a poll and seals ranges as they become final", async () => {
    const { dev, t } = await setup(50);
    const seen: number[] = [];
    t.indexer.view.onTip((tip) => seen.push(tip.height));
    await t.indexer.start();
    await t.indexer.synced();
    expect(t.indexer.view.sealedTip()).toBe(39);
    mine(dev, 25);
    await until(() => t.indexer.view.tip()?.height === 74, 5_000, "tip 74");
    await until(() => t.indexer.view.sealedTip() === 59, 5_000, "sealed 59");
    expect(seen.at(-1)).toBe(74);
    await expectServedEqualsNode(dev, t, 0, 74);
  });

  it("answers above-tip and below-floor requests with typed errors", async () => {
    const { t } = await setup(30, { fromHeight: 10 });
    await t.indexer.start();
    await t.indexer.synced();
    await expect(collect(t.indexer.view.blockFrames("full", 20, 30))).rejects.toMatchObject({
      kind: "above-tip",
    });
    await expect(collect(t.indexer.view.blockFrames("full", 5, 12))).rejects.toMatchObject({
      kind: "not-found",
    });
    expect((await t.indexer.view.blockMeta(15))?.height).toBe(15);
    expect(await t.indexer.view.blockMeta(9)).toBeUndefined();
  });

  it("finds the height of a served hash in the tail and in sealed ranges", async () => {
    const { dev, t } = await setup(40);
    await t.indexer.start();
    await t.indexer.synced();
    expect(await t.indexer.view.heightOfHash(wireHashOf(dev.chain.hashAt(35)))).toBe(35);
    expect(await t.indexer.view.heightOfHash(wireHashOf(dev.chain.hashAt(12)))).toBe(12);
    expect(await t.indexer.view.heightOfHash(new Uint8Array(32).fill(7))).toBeUndefined();
  });
});

describe.skipIf(!hasChain)("a real chain run (testnet 1028400–1028600)", () => {
  it("seals the run byte-exact against the chain helper's projections once mined blocks make it final", async () => {
    const dev = await createDevNode({
      corpus: { dir: chainDir, from: 1028400, to: 1028600 },
      network: "testnet",
    });
    await dev.ready;
    cleanups.push(() => dev.close());
    const dirs = [tempDir("store"), tempDir("data")];
    cleanups.push(() => {
      for (const d of dirs) d.remove();
    });
    const t = testIndexer(dev.url, {
      storeDir: dirs[0]!.path,
      dataDir: dirs[1]!.path,
      network: "testnet",
      fromHeight: 1028400,
      sealDepth: 100,
    });
    cleanups.push(() => t.stop());
    mine(dev, 100); // synthetic blocks on top: the tip is 1028700, so 1028600 and below are final
    await t.indexer.start();
    await t.indexer.synced();
    expect(t.indexer.view.sealedTip()).toBe(1028599); // 1028600 waits in the tail for its range
    for (const projection of ["full", "shielded", "nullifiers"] as const) {
      const frames = await collect(t.indexer.view.blockFrames(projection, 1028400, 1028600));
      for (const [k, frame] of frames.entries()) {
        const height = 1028400 + k;
        const raw = readChainHex(`blocks/testnet/${height}.hex`);
        const expected = encodeFrame(
          projectBlock(parseBlock(raw), dev.chain.block(height).treeSizes)[projection],
        );
        expect(Buffer.from(frame).equals(expected), `${projection} ${height}`).toBe(true);
      }
    }
    expect((await auditStore(t.store, "testnet", 10)).ranges).toBe(20);
  });
});
