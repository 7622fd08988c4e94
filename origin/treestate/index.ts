/**
 * Tree states computed by the origin (issue 10): the producer that follows the indexer's tail and
 * writes a tree-state object per sealed range, the subtree backfill driver for history, and the
 * stored-data service the origin server asks before the node. Formats: proto/treestate.
 */

export { type BackfillMismatch, type BackfillOptions, runBackfill } from "./backfill.ts";
export { type BackfillBlock, storedBlocks } from "./backfill-source.ts";
export { createSubtreeJobRunner, type SubtreeJobRunner } from "./backfill-workers.ts";
export { type PackedLeaves, scanLeaves, unpackLeaves } from "./leaf-scan.ts";
export { commitmentsOfCompact } from "./leaves.ts";
export { createTreeStateMetrics, type TreeStateMetrics } from "./metrics.ts";
export { createNodeCheck, type NodeCheck, type TreeStateCheck } from "./node-check.ts";
export {
  createTreeStateProducer,
  type TreeStateProducer,
  type TreeStateProducerOptions,
  type TreeStateStart,
} from "./producer.ts";
export type { RangeChecks, SeededRoot } from "./producer-protocol.ts";
export {
  createTreeStateThread,
  type TreeStateThread,
  type TreeStateThreadOptions,
} from "./producer-thread.ts";
export {
  createTreeStateService,
  type SubtreePlan,
  type TreeStateService,
  type TreeStateServiceOptions,
} from "./service.ts";
export { runSubtreeJob, type SubtreeJob, type SubtreeJobResult } from "./subtree-job.ts";
export { createSubtreeLedger, type StoredObjectWrite, type SubtreeLedger } from "./subtree-ledger.ts";
