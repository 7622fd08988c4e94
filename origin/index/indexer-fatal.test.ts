import { afterEach, describe, expect, it } from "vitest";
import { chainDir, hasChain, missingChainMessage } from "../../test/support/chain.ts";
import { testIndexer } from "../../test/support/test-indexer.ts";
import { createDevNode, type DevNode } from "../devnode/index.ts";
import { isConfigurationError } from "./config-error.ts";
import { switchableProxy, tempDir, until } from "./testing.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function devNode(o: Parameters<typeof createDevNode>[0]): Promise<DevNode> {
  const dev = await createDevNode(o);
  await dev.ready;
  cleanups.push(() => dev.close());
  return dev;
}

function indexerOn(url: string, o: { network?: string; fromHeight?: number } = {}) {
  const store = tempDir("store");
  const data = tempDir("data");
  cleanups.push(() => {
    store.remove();
    data.remove();
  });
  const t = testIndexer(url, { storeDir: store.path, dataDir: data.path, pollMs: 20, ...o });
  cleanups.push(() => t.stop());
  return t;
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (err: Error) => err,
  );
}

describe("a dead indexer is never silent", () => {
  it("refuses to start on a node of another network, with one clear message", async () => {
    const dev = await devNode({ synthetic: { blocks: 20, seed: "fatal-net" } });
    const t = indexerOn(dev.url, { network: "mainnet" });
    const err = await rejection(t.indexer.start());
    expect(isConfigurationError(err)).toBe(true);
    expect(err.message).toMatch(
      /node is on regtest \(chain "regtest", genesis [0-9a-f]{64}\) but lightedge is configured for mainnet/,
    );
    await expect(t.indexer.failed()).rejects.toBe(err);
    expect(t.indexer.health()).toMatchObject({ ok: false, phase: "stopped" });
    expect(String(t.indexer.health().status)).toMatch(/configured for mainnet/);
  });

  it.skipIf(!hasChain)("refuses --from 0 against a node whose chain does not start at 0", async () => {
    if (!hasChain) return console.warn(missingChainMessage);
    const dev = await devNode({ corpus: { dir: chainDir, from: 663150, to: 663250 }, network: "mainnet" });
    const t = indexerOn(dev.url, { network: "mainnet", fromHeight: 0 });
    const err = await rejection(t.indexer.start());
    expect(isConfigurationError(err)).toBe(true);
    expect(err.message).toMatch(/does not serve height 0 \(its tip is 663250.*--from/);
    expect(t.indexer.health().ok).toBe(false);
  });

  it.skipIf(!hasChain)(
    "stops with the reason when the node behind its URL turns out to be on another network",
    async () => {
      if (!hasChain) return console.warn(missingChainMessage);
      const regtest = await devNode({ synthetic: { blocks: 60, seed: "fatal-swap" } });
      const mainnet = await devNode({ corpus: { dir: chainDir, from: 0, to: 20 }, network: "mainnet" });
      const proxy = await switchableProxy(regtest.url);
      cleanups.push(() => proxy.close());
      const t = indexerOn(proxy.url, { network: "regtest" });
      await t.indexer.start();
      await t.indexer.synced();
      expect(t.indexer.health().ok).toBe(true);
      proxy.target(mainnet.url);
      const err = await rejection(t.indexer.failed());
      expect(isConfigurationError(err)).toBe(true);
      expect(err.message).toMatch(/node is (now )?on mainnet .*genesis 00040fe8.* configured for regtest/);
      expect(t.indexer.health()).toMatchObject({ ok: false, phase: "stopped" });
    },
  );

  it("retries a node outage with /healthz failing with the reason, and recovers", async () => {
    const dev = await devNode({ synthetic: { blocks: 30, seed: "fatal-outage" } });
    const proxy = await switchableProxy(dev.url);
    cleanups.push(() => proxy.close());
    const t = indexerOn(proxy.url, { network: "regtest" });
    expect(t.indexer.health()).toMatchObject({ ok: false, status: "starting" }); // not running yet
    await t.indexer.start();
    await t.indexer.synced();
    proxy.target("http://127.0.0.1:1/"); // nothing listens: the proxy answers 502
    const report = await until(() => {
      const h = t.indexer.health();
      return h.ok ? undefined : h;
    });
    expect(String(report.status)).toMatch(/HTTP 502/);
    expect(report.phase).not.toBe("stopped");
    proxy.target(dev.url);
    await until(() => t.indexer.health().ok, 15_000, "healthy again");
    expect(t.indexer.status().phase).toBe("following");
  });
});
