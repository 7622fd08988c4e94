import type { Logger } from "pino";
import { type OriginConfig, storeEnv } from "../config.ts";
import { createNodeClient, type NodeClient } from "../node/index.ts";
import { type BlobStore, openStore } from "../store/index.ts";
import type { IndexHooks } from "./follow-step.ts";
import { createIndexer, type Indexer } from "./indexer.ts";
import type { IndexMetrics } from "./reporting.ts";

export interface OpenedIndexer {
  indexer: Indexer;
  /** The node client (the origin server reuses it for node-only RPCs). */
  node: NodeClient;
  store: BlobStore;
}

/** The node client config.node describes (`lightedge index` and `lightedge origin` both use one). */
export function nodeClientFromConfig(config: Readonly<OriginConfig>): NodeClient {
  return createNodeClient({
    url: config.node.url,
    auth: config.node.auth,
    network: config.network,
    timeoutMs: config.node.timeoutMs,
    maxInFlight: Math.max(4, config.concurrency),
  });
}

/** The indexer config describes, over a node client and store opened by the caller. */
export function indexerFromConfig(
  config: Readonly<OriginConfig>,
  parts: { node: NodeClient; store: BlobStore; log: Logger; metrics?: IndexMetrics; hooks?: IndexHooks },
): Indexer {
  return createIndexer({
    chain: parts.node,
    info: parts.node,
    store: parts.store,
    network: config.network,
    dataDir: config.dataDir,
    rangeSize: config.rangeSize,
    sealDepth: config.sealDepth,
    concurrency: config.concurrency,
    fetchBudgetBytes: config.fetchBudgetBytes,
    fromHeight: config.fromHeight,
    pollMs: config.pollMs,
    history: config.history,
    supersededGraceMs: config.supersededGraceMs,
    bundleRanges: config.bundleRanges,
    log: parts.log,
    metrics: parts.metrics,
    hooks: parts.hooks,
  });
}

/** Composition for `lightedge index`: config → node client, store, indexer. */
export function openIndexer(
  config: OriginConfig,
  log: Logger,
  metrics?: IndexMetrics,
  hooks?: IndexHooks,
): OpenedIndexer {
  const node = nodeClientFromConfig(config);
  const store = openStore(config.store, storeEnv(config));
  return { indexer: indexerFromConfig(config, { node, store, log, metrics, hooks }), node, store };
}
