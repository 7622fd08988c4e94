import type { StoredSubtreeRoot, SubtreePool } from "../../proto/treestate/index.ts";
import type { PackedLeaves } from "./leaf-scan.ts";
import type { TailTreeState, TreeStateStart } from "./producer.ts";
import type { StoredObjectWrite } from "./subtree-ledger.ts";

/** Messages between the indexing thread and the tree-state worker (producer-thread.ts ↔ producer-host.ts). */

export interface ProducerConfig {
  network: string;
  chainName: string;
  rangeSize: number;
  activations: { sapling?: number; orchard?: number };
}

/** What the worker keeps of an appended block: identity, time, Ironwood size and its leaves. */
export interface AppendedBlock {
  height: number;
  wireHash: Uint8Array;
  time: number;
  ironwoodSize: number;
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
  | { type: "flush"; id: number }
  | { type: "ironwood-result"; id: number; hex?: string; error?: string };

export type FromWorker =
  | { type: "progress"; last: number }
  | { type: "objects"; index: number; last: number; objects: StoredObjectWrite[] }
  | { type: "tail-result"; id: number; state?: TailTreeState }
  | { type: "flushed"; id: number }
  | { type: "ironwood"; id: number; height: number }
  /** The worker stopped producing. */
  | { type: "failed"; message: string }
  /** Something to log; the worker goes on. */
  | { type: "warning"; message: string };

export interface SeededRoot {
  pool: SubtreePool;
  index: number;
  root: StoredSubtreeRoot;
}
