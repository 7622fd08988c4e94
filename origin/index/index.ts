// The origin indexer: follows a node, keeps the unfinalized tail, seals finalized ranges, and
// serves both through a ChainView (origin/serve reads it).
export type {
  BlockFramesOptions,
  BlockMeta,
  BlockTreeSizes,
  ChainBlock,
  ChainBlocks,
  ChainTip,
  ChainView,
  Projection,
  TipInfo,
} from "./chain-view.ts";
export type { IndexHooks } from "./follow-step.ts";
export {
  indexerFromConfig,
  nodeClientFromConfig,
  type OpenedIndexer,
  openIndexer,
} from "./from-config.ts";
export { createIndexer, type Indexer, type IndexerOptions, type IndexerStatus } from "./indexer.ts";
export type {
  Counter,
  Gauge,
  HealthReport,
  IndexMetrics,
  LabelledCounter,
  LabelledGauge,
} from "./reporting.ts";
export { createSealedReader, type SealedReader } from "./sealed-reader.ts";
export { type AuditReport, auditStore } from "./store-audit.ts";
export type { IndexedBlock } from "./tail.ts";
