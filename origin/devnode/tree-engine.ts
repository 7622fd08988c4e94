import { bigintToLeBytes, leBytesToBigint, toHex } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { serializeFinalState } from "../../proto/treestate/legacy-tree.ts";
import {
  appendLeaves,
  type Frontier,
  frontierRoot,
  frontierToLegacy,
  hasherFor,
  hashPair,
  type MerkleHasher,
  NODE_MODULUS,
  SUBTREE_LEAVES,
  SUBTREE_LEVEL,
} from "../trees/index.ts";
import { type Commitments, POOLS, type Pool } from "./commitments.ts";

/**
 * The dev node's note commitment trees, computed from its own blocks with the project's tree code
 * (origin/trees): Sapling with the Sapling hash; Orchard and Ironwood with the Orchard hash
 * (MerkleHashOrchard — zcash_client_backend 0.25 builds its Ironwood tree with
 * `orchard::tree::MerkleHashOrchard`, so that is what a wallet checks against).
 *
 * A cursor walks the chain once, block after block, keeping a checkpoint every `checkpointEvery`
 * blocks and the frontiers of the most recent heights; a tree state at an older height replays at
 * most `checkpointEvery − 1` blocks from its checkpoint. Subtree roots (2¹⁶ leaves, level 16) are
 * recorded with the height of the block that completes them. Pure: blocks come from `commitments`.
 */

export type Frontiers = Record<Pool, Frontier>;

/** One pool's tree after a block: `finalState` (zebrad style), root as 32 bytes LE in hex. */
export interface PoolTree {
  size: number;
  finalState: string;
  root: string;
}

export type TreeStateAt = Record<Pool, PoolTree>;

export interface ComputedSubtree {
  index: number;
  /** 32 bytes LE hex (z_getsubtreesbyindex's `root`). */
  root: string;
  endHeight: number;
}

export interface TreeEngineOptions {
  /** First block height; `start` holds the trees after base − 1. */
  base: number;
  start: Frontiers;
  /** The block at `height`'s note commitments. */
  commitments(height: number): Commitments;
  checkpointEvery?: number;
  recentLimit?: number;
}

export interface TreeEngine {
  /** Highest height the cursor has passed (base − 1 before any block). */
  computed(): number;
  /** Moves the cursor towards `to`, for at most `budgetMs` when given; true once it is there. */
  advance(to: number, budgetMs?: number): boolean;
  /** Trees after block `height` (base − 1 ≤ height); advances the cursor as needed. */
  stateAt(height: number): TreeStateAt;
  /** Sizes after block `height` (no roots: cheap). */
  sizesAt(height: number): Record<Pool, number>;
  /** Subtrees completed by blocks the cursor has passed, by index. */
  subtrees(pool: Pool): ComputedSubtree[];
  /** Blocks from `from` on changed (reorg, staged transactions): drops what was computed from them. */
  invalidate(from: number): void;
}

export function hasherOf(pool: Pool): MerkleHasher {
  return hasherFor(pool === "sapling" ? "sapling" : "orchard");
}

export function modulusOf(pool: Pool): bigint {
  return NODE_MODULUS[pool === "sapling" ? "sapling" : "orchard"];
}

function leaves(pool: Pool, cms: readonly Uint8Array[]): bigint[] {
  const m = modulusOf(pool);
  return cms.map((cm) => {
    const v = leBytesToBigint(cm);
    if (cm.length !== 32 || v >= m)
      throw new LightedgeError(
        "malformed",
        "devnode.trees",
        `devnode: a ${pool} note commitment is not canonical`,
      );
    return v;
  });
}

/** Root of the subtree a frontier of size k·2¹⁶ has just completed: its newest leaf hashed up with its ommers. */
function completedSubtreeRoot(h: MerkleHasher, f: Frontier): bigint {
  let cur = f.leaf!;
  for (let l = 0; l < SUBTREE_LEVEL; l++) cur = hashPair(h, l, f.ommers[l]!, cur);
  return cur;
}

/** Appends leaves, stopping at each subtree boundary to record the completed subtree's root. */
function appendPool(
  pool: Pool,
  f: Frontier,
  values: bigint[],
  onSubtree?: (index: number, root: bigint) => void,
): Frontier {
  const h = hasherOf(pool);
  let i = 0;
  while (i < values.length) {
    const room = SUBTREE_LEAVES - (f.size % SUBTREE_LEAVES);
    const take = Math.min(room, values.length - i);
    f = appendLeaves(h, f, take === values.length ? values : values.slice(i, i + take));
    i += take;
    if (f.size % SUBTREE_LEAVES === 0 && onSubtree)
      onSubtree(f.size / SUBTREE_LEAVES - 1, completedSubtreeRoot(h, f));
  }
  return f;
}

export function createTreeEngine(o: TreeEngineOptions): TreeEngine {
  const every = o.checkpointEvery ?? 100;
  const recentLimit = o.recentLimit ?? 2048;
  const first = o.base - 1;
  const checkpoints = new Map<number, Frontiers>([[first, o.start]]);
  const recent = new Map<number, Frontiers>();
  const results = new Map<number, TreeStateAt>();
  const subtrees: Record<Pool, Map<number, ComputedSubtree>> = {
    sapling: new Map(),
    orchard: new Map(),
    ironwood: new Map(),
  };
  let cursor = first;
  let current = o.start;

  const step = (prev: Frontiers, height: number, record: boolean): Frontiers => {
    const c = o.commitments(height);
    const next = { ...prev };
    for (const pool of POOLS) {
      if (c[pool].length === 0) continue;
      next[pool] = appendPool(
        pool,
        prev[pool],
        leaves(pool, c[pool]),
        record
          ? (index, root) =>
              subtrees[pool].set(index, { index, root: toHex(bigintToLeBytes(root)), endHeight: height })
          : undefined,
      );
    }
    return next;
  };

  const remember = (height: number, f: Frontiers) => {
    recent.delete(height);
    recent.set(height, f);
    if (recent.size > recentLimit) recent.delete(recent.keys().next().value!);
  };

  const forward = () => {
    const h = cursor + 1;
    current = step(current, h, true);
    cursor = h;
    if ((h - first) % every === 0) checkpoints.set(h, current);
    remember(h, current);
  };

  const advance = (to: number, budgetMs?: number) => {
    const end = budgetMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + budgetMs;
    while (cursor < to && performance.now() < end) forward();
    return cursor >= to;
  };

  const frontiersAt = (height: number): Frontiers => {
    if (height < first) throw new RangeError(`devnode trees: height ${height} is below ${first}`);
    if (height > cursor) advance(height);
    if (height === cursor) return current;
    const hit = recent.get(height);
    if (hit) return hit;
    const from = first + Math.floor((height - first) / every) * every;
    let f = checkpoints.get(from)!;
    for (let h = from + 1; h <= height; h++) {
      f = step(f, h, false);
      remember(h, f);
    }
    return f;
  };

  return {
    computed: () => cursor,
    advance,
    stateAt(height) {
      const hit = results.get(height);
      if (hit) return hit;
      const f = frontiersAt(height);
      const out = {} as TreeStateAt;
      for (const pool of POOLS)
        out[pool] = {
          size: f[pool].size,
          finalState: serializeFinalState(frontierToLegacy(f[pool])),
          root: toHex(bigintToLeBytes(frontierRoot(hasherOf(pool), f[pool]))),
        };
      results.set(height, out);
      if (results.size > 512) results.delete(results.keys().next().value!);
      return out;
    },
    sizesAt(height) {
      const f = frontiersAt(height);
      return { sapling: f.sapling.size, orchard: f.orchard.size, ironwood: f.ironwood.size };
    },
    subtrees: (pool) => [...subtrees[pool].values()].sort((a, b) => a.index - b.index),
    invalidate(from) {
      const keep = Math.max(first, from - 1);
      for (const m of [checkpoints, recent, results] as Map<number, unknown>[])
        for (const h of [...m.keys()]) if (h > keep && !(m === checkpoints && h === first)) m.delete(h);
      for (const pool of POOLS)
        for (const [i, s] of subtrees[pool]) if (s.endHeight > keep) subtrees[pool].delete(i);
      if (cursor > keep) {
        const at = recent.get(keep) ?? (keep === first ? o.start : undefined);
        if (at) {
          cursor = keep;
          current = at;
        } else {
          cursor = first + Math.floor((keep - first) / every) * every;
          current = checkpoints.get(cursor)!;
        }
      }
    },
  };
}
