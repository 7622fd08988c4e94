import type { StoredSubtreeRoot, SubtreePool, TreeStateView } from "../../proto/treestate/index.ts";
import type { PackedLeaves } from "./leaf-scan.ts";
import type { CompletedSubtree, TreeStateStart } from "./producer.ts";
import type { StoredObjectWrite } from "./subtree-ledger.ts";

/** Messages between the indexing thread and the tree-state worker (producer-thread.ts ↔ producer-host.ts). */

export interface ProducerConfig {
  network: string;
  chainName: string;
  rangeSize: number;
  activations: { sapling?: number; orchard?: number; ironwood?: number };
}

/** What the worker keeps of an appended block: identity, time and its leaves. */
export interface AppendedBlock {
  height: number;
  wireHash: Uint8Array;
  time: number;
  leaves: PackedLeaves;
}

export type ToWorker =
  | { type: "start"; config: ProducerConfig; start: TreeStateStart; roots: SeededRoot[] }
  | { type: "append"; blocks: AppendedBlock[] }
  | { type: "rollback"; height: number }
  /** Range `index` (heights first..last, the last one's wire hash) is sealed: build its objects. */
  | { type: "seal"; index: number; first: number; last: number; lastWireHash: Uint8Array }
  /** The objects of range `index` are stored: its snapshots may go once the ranges before are too. */
  | { type: "stored"; index: number }
  | { type: "tail"; id: number; height: number }
  | { type: "flush"; id: number };

export type FromWorker =
  | { type: "progress"; last: number }
  /** A sealed range's objects, and our values in it to compare with the node's (node-check.ts). */
  | { type: "objects"; index: number; last: number; objects: StoredObjectWrite[]; checks: RangeChecks }
  | { type: "tail-result"; id: number; state?: TreeStateView }
  | { type: "flushed"; id: number }

  /** The worker stopped producing. */
  | { type: "failed"; message: string }
  /** Something to log; the worker goes on. */
  | { type: "warning"; message: string };

export interface SeededRoot {
  pool: SubtreePool;
  index: number;
  root: StoredSubtreeRoot;
}

/** What a built range offers to compare with the node: its last tree state, its completed subtrees. */
export interface RangeChecks {
  state?: TreeStateView;
  subtrees: (CompletedSubtree & { height: number })[];
}
