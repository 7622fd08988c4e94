import {
  createTreeStateReader,
  legacyTreeSize,
  parseFinalState,
  readSubtreeChunk,
  type StoredSubtreeRoot,
  SUBTREE_CHUNK,
  SUBTREE_LEAF_COUNT,
  type SubtreePool,
  subtreeQueryEnd,
  type TreeStateView,
} from "../../proto/treestate/index.ts";
import type { BlobStore } from "../store/index.ts";

/**
 * A GetSubtreeRoots answer in index order: runs of our stored roots, and runs (`roots` absent) of
 * subtrees completed before the origin computed anything, whose roots only the node has.
 */
export type SubtreePlan = { from: number; to: number; roots?: StoredSubtreeRoot[] }[];

export interface TreeStateService {
  /** The stored tree state after `height`, or undefined when not stored yet (fall back to the node). */
  treeState(height: number): Promise<TreeStateView | undefined>;
  /**
   * Subtree roots up to the tree size at the last stored height: ours where a chunk object is
   * stored, the node's (a run without `roots`) where none is. Undefined: no producer, node only.
   */
  subtreeRoots(q: {
    pool: SubtreePool;
    startIndex: number;
    maxEntries: number;
  }): Promise<SubtreePlan | undefined>;
}

export interface TreeStateServiceOptions {
  store: BlobStore;
  /** lightedge network name (e.g. "mainnet"). */
  network: string;
  rangeSize: number;
  /** Heights the producer holds in memory (hashed, object not stored yet), when given. */
  tail?: (height: number) => TreeStateView | undefined | Promise<TreeStateView | undefined>;
  /**
   * Called for a height found neither in the tail nor in storage, before the caller falls back to
   * the node: resolve undefined to fall back, a view (found with `lookAgain`, e.g. after waiting
   * for the producer) to serve it, or throw to refuse (a height the origin computes but has not
   * reached: ours is served, not the node's).
   */
  missing?: (
    height: number,
    lookAgain: () => Promise<TreeStateView | undefined>,
  ) => Promise<TreeStateView | undefined> | undefined;
  /** Last height of the contiguously stored tree-state objects (−1: none); undefined: no producer. */
  storedThrough?: () => number | undefined;
  /** Subtrees complete before the producer's start (the least count to report); undefined: unknown. */
  floorCompleted?: (pool: SubtreePool) => number | undefined;
}

const TREE_FIELD = { sapling: "saplingTree", orchard: "orchardTree", ironwood: "ironwoodTree" } as const;

/** The origin's reader of stored tree states: the same code as the edge's, over the BlobStore. */
export function createTreeStateService(o: TreeStateServiceOptions): TreeStateService {
  const read = (key: string, range?: { offset: number; length: number }) => o.store.get(key, range);
  const reader = createTreeStateReader({ read, network: o.network });
  return {
    async treeState(height) {
      const lookup = async () => (await o.tail?.(height)) ?? (await reader.at(o.rangeSize, height));
      return (await lookup()) ?? (await o.missing?.(height, lookup));
    },
    async subtreeRoots(q) {
      const through = o.storedThrough?.();
      if (through === undefined) return undefined;
      // Bounded by what is stored, so every one of ours served is in a chunk object already.
      const view = through >= 0 ? await reader.at(o.rangeSize, through) : undefined;
      const text = view?.[TREE_FIELD[q.pool]];
      const completed = Math.max(
        text ? Math.floor(legacyTreeSize(parseFinalState(text)) / SUBTREE_LEAF_COUNT) : 0,
        o.floorCompleted?.(q.pool) ?? 0,
      );
      const end = subtreeQueryEnd(q, completed);
      const plan: SubtreePlan = [];
      for (let c = Math.floor(q.startIndex / SUBTREE_CHUNK); c * SUBTREE_CHUNK < end; c++) {
        const from = Math.max(q.startIndex, c * SUBTREE_CHUNK);
        const to = Math.min(end, (c + 1) * SUBTREE_CHUNK);
        const roots = await readSubtreeChunk(read, o.network, q.pool, c, completed);
        const prev = plan[plan.length - 1];
        if (roots !== undefined)
          plan.push({ from, to, roots: roots.slice(from - c * SUBTREE_CHUNK, to - c * SUBTREE_CHUNK) });
        else if (prev !== undefined && prev.roots === undefined) prev.to = to;
        else plan.push({ from, to });
      }
      return plan;
    },
  };
}
