// An indexer wired to a dev node's URL and a store, with real Prometheus metrics in its own
// registry (the admin's implementation of origin/index/reporting.ts), for the indexer's tests.
// Here rather than in origin/index/testing.ts: the index imports nothing from the admin.
import { pino } from "pino";
import { Registry } from "prom-client";
import { createIndexMetrics } from "../../origin/admin/index-metrics.ts";
import type { Indexer, IndexerOptions, IndexMetrics } from "../../origin/index/index.ts";
import { createIndexer } from "../../origin/index/index.ts";
import { createNodeClient, type NodeClient } from "../../origin/node/index.ts";
import { type BlobStore, createDirectoryStore } from "../../origin/store/index.ts";

export interface TestIndexer {
  indexer: Indexer;
  node: NodeClient;
  metrics: IndexMetrics;
  registry: Registry;
  store: BlobStore;
  stop(): Promise<void>;
}

export function testIndexer(
  url: string,
  o: Partial<IndexerOptions> & { dataDir: string; store?: BlobStore; storeDir?: string },
): TestIndexer {
  const node = createNodeClient({
    url,
    network: o.network as "regtest",
    timeoutMs: 2_000,
    retries: 1,
    backoffMs: 20,
  });
  const registry = new Registry();
  const metrics = createIndexMetrics(registry);
  const store = o.store ?? createDirectoryStore(o.storeDir!);
  const indexer = createIndexer({
    chain: node,
    info: node,
    store,
    network: "regtest",
    rangeSize: 10,
    sealDepth: 10,
    concurrency: 4,
    fromHeight: 0,
    pollMs: 50,
    log: pino({ level: process.env.LIGHTEDGE_TEST_LOG ?? "silent" }),
    metrics,
    ...o,
  });
  return {
    indexer,
    node,
    metrics,
    registry,
    store,
    async stop() {
      await indexer.stop();
      node.close();
    },
  };
}

/** The sum of a metric's values in `registry` (NaN when it has none). */
export async function metricValue(registry: Registry, name: string): Promise<number> {
  const metric = await registry.getSingleMetric(name)?.get();
  return metric?.values.reduce((sum, v) => sum + v.value, 0) ?? Number.NaN;
}
