import { afterEach, describe, expect, it } from "vitest";
import { decodeHead, headKey, rangeKeys } from "../../proto/range/index.ts";
import { metricValue, testIndexer } from "../../test/support/test-indexer.ts";
import { startAdminServer } from "../admin/server.ts";
import { createDevNode, type DevNode } from "../devnode/index.ts";
import { createDirectoryStore } from "../store/index.ts";
import { bootstrapFromStore } from "./bootstrap.ts";
import { createSealedReader } from "./sealed-reader.ts";
import { auditStore } from "./store-audit.ts";
import { mine, tempDir, until } from "./testing.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function devNode(blocks: number, seed: string): Promise<DevNode> {
  const dev = await createDevNode({ synthetic: { blocks, seed }, network: "regtest" });
  await dev.ready;
  cleanups.push(() => dev.close());
  return dev;
}

function dir(name: string): string {
  const d = tempDir(name);
  cleanups.push(() => d.remove());
  return d.path;
}

async function control(dev: DevNode, path: string, body: object): Promise<void> {
  const res = await fetch(new URL(`control/${path}`, dev.url), {
    method: "POST",
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
}

describe("node failures", () => {
  it("rides out HTTP errors, dropped connections and stalls, counting them and reporting unhealthy meanwhile", async () => {
    const dev = await devNode(60, "faults");
    const t = testIndexer(dev.url, { storeDir: dir("store"), dataDir: dir("data") });
    cleanups.push(() => t.stop());
    const admin = await startAdminServer({
      host: "127.0.0.1",
      port: 0,
      registry: t.registry,
      health: { index: () => t.indexer.health() },
    });
    cleanups.push(() => admin.close());
    await t.indexer.start();
    await t.indexer.synced();
    await control(dev, "fail", { status: 503 });
    mine(dev, 5);
    await until(async () => (await fetch(`${admin.url}/healthz`)).status === 503, 5_000, "unhealthy");
    expect(await metricValue(t.registry, "lightedge_index_node_errors_total")).toBeGreaterThan(0);
    await control(dev, "clear", {});
    await until(() => t.indexer.view.tip()?.height === 64, 8_000, "recovered tip");
    await control(dev, "fail", { close: true, requests: 3 });
    mine(dev, 1);
    await until(() => t.indexer.view.tip()?.height === 65, 8_000, "tip after dropped connections");
    await control(dev, "stall", { ms: 3_000, requests: 1 }); // longer than the client's 2 s timeout
    mine(dev, 1);
    await until(() => t.indexer.view.tip()?.height === 66, 10_000, "tip after a stall");
    await until(async () => (await fetch(`${admin.url}/healthz`)).status === 200, 5_000, "healthy again");
    const metrics = await (await fetch(`${admin.url}/metrics`)).text();
    expect(metrics).toMatch(/lightedge_index_tip_height 66/);
    expect(metrics).toMatch(/lightedge_index_sealed_height 49/);
    expect(metrics).toMatch(/lightedge_index_node_errors_total\{kind="[a-z-]+"\} [1-9]/);
  });
});

describe("bootstrap from an existing store", () => {
  it("resumes from the sealed tip another origin published, fetching only the blocks after it", async () => {
    const dev = await devNode(120, "bootstrap");
    const storeDir = dir("store");
    const first = testIndexer(dev.url, { storeDir, dataDir: dir("data-a") });
    await first.indexer.start();
    await first.indexer.synced();
    await first.stop();
    mine(dev, 20);
    const second = testIndexer(dev.url, { storeDir, dataDir: dir("data-b") });
    cleanups.push(() => second.stop());
    await second.indexer.start();
    expect(second.indexer.view.sealedTip()).toBe(109);
    await second.indexer.synced();
    // Only 110..139 were fetched: the sealed ranges were adopted after one hash check each.
    expect(await metricValue(second.registry, "lightedge_index_blocks_total")).toBe(30);
    expect(second.indexer.view.sealedTip()).toBe(129);
    expect((await auditStore(second.store, "regtest", 10)).ranges).toBe(13);
  });

  it.each([
    ["", false],
    [" (with history: the cut head names no levels of the ranges it drops)", true],
  ])(
    "reports a range that disagrees with its node and rebuilds just that range onward%s",
    async (_, history) => {
      const dev = await devNode(100, "ours");
      const other = await devNode(100, "someone-else");
      const storeDir = dir("store");
      const otherDir = dir("other-store");
      for (const [node, store] of [
        [dev, storeDir],
        [other, otherDir],
      ] as const) {
        const t = testIndexer(node.url, { storeDir: store, dataDir: dir("data"), history });
        await t.indexer.start();
        await t.indexer.synced();
        await t.stop();
      }
      // Range 5 (heights 50–59) of the store now holds another chain's objects.
      const store = createDirectoryStore(storeDir);
      const foreign = createDirectoryStore(otherDir);
      const keys = rangeKeys("regtest", 10, 5);
      for (const key of [keys.meta, ...Object.values(keys.data)])
        await store.put(key, (await foreign.get(key))!);
      const t = testIndexer(dev.url, { storeDir, dataDir: dir("probe"), history });
      cleanups.push(() => t.stop());
      const errors: object[] = [];
      const log = { info: () => {}, error: (obj: object) => errors.push(obj) };
      const sealed = createSealedReader(store, "regtest", 10);
      const result = await bootstrapFromStore({
        store,
        chain: t.node,
        sealed,
        network: "regtest",
        rangeSize: 10,
        concurrency: 4,
        log,
      });
      expect(result.mismatches).toEqual([5]);
      expect(errors).toEqual([expect.objectContaining({ mismatches: [5] })]);
      expect(result.head?.tip?.height).toBe(49);
      // Levels of all 9 ranges cannot stand for 5; no history then, and the catch-up writes 5's.
      expect(result.head?.history).toBeUndefined();
      await t.indexer.start();
      await t.indexer.synced();
      const audit = await auditStore(store, "regtest", 10);
      expect(audit.ranges).toBe(9);
      expect(audit.head?.tip?.displayHash).toBe(dev.chain.hashAt(89));
      // The cut head named a hash index of the 5 kept ranges; the rebuilt one, of all 9.
      expect(result.head?.hashIndex).toBeDefined();
      expect(audit.hashIndex?.entries).toBe(90);
      if (history) expect(decodeHead((await store.get(headKey("regtest")))!).history?.rangeCount).toBe(9);
      // Rebuilt from range 5 on: 50..99 fetched again, 0..49 adopted.
      expect(await metricValue(t.registry, "lightedge_index_blocks_total")).toBe(50);
    },
  );
});
