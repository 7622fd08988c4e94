import { afterEach, describe, expect, it } from "vitest";
import { wireHashOf } from "../../proto/bytes.ts";
import { metricValue, type TestIndexer, testIndexer } from "../../test/support/test-indexer.ts";
import { createDevNode, type DevNode } from "../devnode/index.ts";
import { createTailLog } from "./tail-log.ts";
import { collect, mine, reorg, tempDir, until } from "./testing.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  blocks: number,
  sealDepth: number,
): Promise<{ dev: DevNode; t: TestIndexer; dataDir: string }> {
  const dev = await createDevNode({ synthetic: { blocks, seed: `reorg-${blocks}` }, network: "regtest" });
  await dev.ready;
  cleanups.push(() => dev.close());
  const store = tempDir("store");
  const data = tempDir("data");
  cleanups.push(() => {
    store.remove();
    data.remove();
  });
  const t = testIndexer(dev.url, {
    storeDir: store.path,
    dataDir: data.path,
    sealDepth,
    rangeSize: 10,
    pollMs: 20,
  });
  cleanups.push(() => t.stop());
  await t.indexer.start();
  await t.indexer.synced();
  return { dev, t, dataDir: data.path };
}

/** The dev node's control API over HTTP (as an operator or another process drives it). */
async function control(dev: DevNode, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${dev.url}control/${path}`, { method: "POST", body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`control/${path}: HTTP ${res.status} ${await res.text()}`);
}

/** The served chain equals the node's, block by block, from `from` to the tip. */
async function expectSameChain(dev: DevNode, t: TestIndexer, from: number) {
  const tip = t.indexer.view.tip()!.height;
  expect(tip).toBe(dev.chain.tip());
  const blocks = await collect(t.indexer.view.blocks("shielded", from, tip));
  for (const b of blocks)
    expect(Buffer.from(b.wireHash).equals(Buffer.from(wireHashOf(dev.chain.hashAt(b.height))))).toBe(true);
}

describe("reorgs", () => {
  for (const depth of [1, 10]) {
    it(`follows a reorg of depth ${depth} within a poll and serves only the new branch`, async () => {
      const { dev, t, dataDir } = await setup(60, 20);
      const before = dev.chain.hashAt(59);
      reorg(dev, depth);
      mine(dev, 1);
      await until(() => t.indexer.view.tip()?.height === 60, 5_000, "new tip");
      expect(dev.chain.hashAt(59)).not.toBe(before);
      await expectSameChain(dev, t, 30);
      expect(await metricValue(t.registry, "lightedge_index_reorgs_total")).toBe(1);
      expect(await metricValue(t.registry, "lightedge_index_last_reorg_depth")).toBe(depth);
      expect(t.indexer.health().ok).toBe(true);
      // The persisted tail holds the new branch too (a restart must not resurrect the old one).
      const logged = createTailLog(dataDir, "regtest").load();
      expect(Buffer.from(logged.at(-1)!.wireHash).equals(Buffer.from(wireHashOf(dev.chain.hashAt(60))))).toBe(
        true,
      );
    });
  }

  it("follows a reorg of depth 100 when the seal depth is 100", async () => {
    const { dev, t } = await setup(230, 100);
    // Final = ≥ 100 blocks on top: ranges through 120–129 are sealed; the reorg replaces 130–229.
    expect(t.indexer.view.sealedTip()).toBe(129);
    reorg(dev, 100);
    mine(dev, 2);
    await until(() => t.indexer.view.tip()?.height === 231, 10_000, "new tip");
    await expectSameChain(dev, t, 100);
    expect(await metricValue(t.registry, "lightedge_index_last_reorg_depth")).toBe(100);
    expect(t.indexer.health().ok).toBe(true);
  });

  it("rolls back in place a reorg deeper than the seal depth whose fork is inside the unsealed tail", async () => {
    // Range size 10, seal depth 10, 135 blocks: sealed through 119, the tail holds 120–134.
    const { dev, t } = await setup(135, 10);
    expect(t.indexer.view.sealedTip()).toBe(119);
    await control(dev, "reorg", { depth: 13 }); // fork at 121: 13 > seal depth, above the sealed tip
    await control(dev, "mine", { blocks: 1 });
    await until(() => t.indexer.view.tip()?.height === 135, 5_000, "new tip");
    await expectSameChain(dev, t, 100);
    expect(await metricValue(t.registry, "lightedge_index_last_reorg_depth")).toBe(13);
    expect(await metricValue(t.registry, "lightedge_index_deep_tail_reorgs_total")).toBe(1);
    expect(await metricValue(t.registry, "lightedge_index_alarm")).toBe(0);
    expect(t.indexer.health().ok).toBe(true);
    // It keeps following and sealing the new branch.
    await control(dev, "mine", { blocks: 10 });
    await until(() => t.indexer.view.sealedTip() === 129, 5_000, "range 120–129 sealed");
    await expectSameChain(dev, t, 110);
  });

  it("withholds the tail and raises the alarm when a reorg reaches sealed ranges; sealed history is still served", async () => {
    const { dev, t } = await setup(130, 10);
    const sealed = t.indexer.view.sealedTip();
    expect(sealed).toBe(119);
    await control(dev, "reorg", { depth: 100 });
    await control(dev, "mine", { blocks: 30 });
    await until(() => t.indexer.status().phase === "alarm", 5_000, "alarm");
    expect(t.indexer.health()).toMatchObject({ ok: false });
    expect(String(t.indexer.health().status)).toMatch(/reaches sealed ranges/);
    expect(await metricValue(t.registry, "lightedge_index_alarm")).toBe(1);
    // The stale tip is not advertised: tail heights answer Unavailable with the reason.
    expect(t.indexer.view.halted?.()).toMatch(/reaches sealed ranges/);
    await expect(collect(t.indexer.view.blockFrames("full", 110, 125))).rejects.toMatchObject({
      kind: "unavailable",
    });
    expect(await t.indexer.view.blockMeta(125)).toBeUndefined();
    // Sealed history is still served, and nothing more is sealed.
    expect(await collect(t.indexer.view.blockFrames("full", 0, sealed))).toHaveLength(120);
    await new Promise((r) => setTimeout(r, 200));
    expect(t.indexer.view.sealedTip()).toBe(sealed);
    expect(t.indexer.status().tip).toBe(129);
  });
});
