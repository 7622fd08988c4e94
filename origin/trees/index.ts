/**
 * Note commitment trees computed by the origin: Sapling (Pedersen over Jubjub) and Orchard
 * (Sinsemilla over Pallas) MerkleCRH — Ironwood's tree uses Orchard's (README.md) — incremental
 * frontiers, the indexer's tracker and subtree backfill. Stored format: proto/treestate.
 */
export {
  appendLeaves,
  EMPTY_FRONTIER,
  type Frontier,
  frontierFromLegacy,
  frontierRoot,
  frontierToLegacy,
} from "./frontier.ts";
export { hasherFor, NODE_MODULUS } from "./hashers.ts";
export { hashPair, type MerkleHasher, TREE_DEPTH, type TreePool } from "./merkle-hasher.ts";
export { computeSubtreeRoot, SUBTREE_LEAVES, SUBTREE_LEVEL } from "./subtree.ts";
export { createSubtreeWorkers, type SubtreeWorkers } from "./subtree-pool.ts";
export {
  type BlockNoteCommitments,
  createFrontierTracker,
  type FrontierTracker,
  type TrackerSnapshot,
} from "./tracker.ts";
