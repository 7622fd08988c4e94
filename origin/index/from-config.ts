import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { createIndexMetrics } from "../admin/index-metrics.ts";
import { type OriginConfig, storeEnv } from "../config.ts";
import { createNodeClient, type NodeClient } from "../node/index.ts";
import { type BlobStore, openStore } from "../store/index.ts";
import type { IndexHooks } from "./follow-step.ts";
import { createIndexer, type Indexer } from "./indexer.ts";

export interface OpenedIndexer {
  indexer: Indexer;
  /** The node client (the origin server reuses it for node-only RPCs). */
  node: NodeClient;
  store: BlobStore;
}

/** Composition for `lightedge index` and `lightedge origin`: config → node client, store, indexer. */
export function openIndexer(
  config: OriginConfig,
  log: Logger,
  registry: Registry,
  hooks?: IndexHooks,
): OpenedIndexer {
  const node = createNodeClient({
    url: config.node.url,
    auth: config.node.auth,
    network: config.network,
    timeoutMs: config.node.timeoutMs,
    maxInFlight: Math.max(4, config.concurrency),
  });
  const store = openStore(config.store, storeEnv(config));
  const indexer = createIndexer({
    chain: node,
    info: node,
    store,
    network: config.network,
    dataDir: config.dataDir,
    rangeSize: config.rangeSize,
    sealDepth: config.sealDepth,
    concurrency: config.concurrency,
    fromHeight: config.fromHeight,
    pollMs: config.pollMs,
    log,
    metrics: createIndexMetrics(registry),
    hooks,
  });
  return { indexer, node, store };
}
