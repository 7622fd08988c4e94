import { bigintToLeBytes, leBytesToBigint } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { type LegacyTree, trimParents } from "../../proto/treestate/legacy-tree.ts";
import {
  appendLeaves,
  EMPTY_FRONTIER,
  frontierFromLegacy,
  frontierToLegacy,
  hasherFor,
  NODE_MODULUS,
  SUBTREE_LEAVES,
  SUBTREE_LEVEL,
  type TreePool,
} from "../trees/index.ts";
import { completedSubtreeRoot } from "./completed-subtree.ts";

/**
 * One backfill job: a 2¹⁶-leaf subtree's leaves (or the part of them not yet appended), appended
 * in order, recording the within-subtree frontier at each block boundary. Pure and synchronous,
 * run on a worker thread (backfill-workers.ts).
 */
export interface SubtreeJob {
  pool: TreePool;
  /** The subtree's frontier before `leaves` (levels < 16 only), when resuming mid-subtree. */
  startLow?: LegacyTree;
  /**
   * The leaves, 32 bytes each, packed in one buffer: a job crosses to its worker as one buffer
   * (transferred when the job owns it whole, backfill-workers.ts), not as 2¹⁶ typed arrays of
   * ≈ 300 bytes of heap each on both sides.
   */
  leaves: Uint8Array;
  /** Local sizes (leaves of this subtree) after each block ending inside it, ascending. */
  boundaries: number[];
}

export interface SubtreeJobResult {
  /** The within-subtree legacy tree (left, right, parents 1..15) at each boundary. */
  lows: LegacyTree[];
  /** The subtree root (32 bytes LE) once it holds 2¹⁶ leaves. */
  root?: Uint8Array;
}

/**
 * From the start of a subtree the job hashes whole levels at once (one shared inversion per level,
 * as computeSubtreeRoot does) and reads each boundary's frontier off the complete nodes: every
 * left sibling on the newest leaf's path is a complete node to its left. Appending block by block
 * instead would pay an inversion for every few hashes. Resuming mid-subtree appends incrementally.
 */
export function runSubtreeJob(job: SubtreeJob): SubtreeJobResult {
  return job.startLow ? appendJob(job) : levelJob(job);
}

/** How many leaves a job packs. */
function leafCount(job: SubtreeJob): number {
  if (job.leaves.length % 32 !== 0)
    throw new LightedgeError("bad-request", "treestate.subtree-job", "packed leaves are not 32 bytes each");
  return job.leaves.length / 32;
}

function leafValues(job: SubtreeJob): bigint[] {
  return Array.from({ length: leafCount(job) }, (_, i) => {
    const v = leBytesToBigint(job.leaves.subarray(i * 32, i * 32 + 32));
    if (v >= NODE_MODULUS[job.pool])
      throw new LightedgeError("malformed", "treestate.subtree-job", "non-canonical note commitment");
    return v;
  });
}

function levelJob(job: SubtreeJob): SubtreeJobResult {
  const count = leafCount(job);
  if (count > SUBTREE_LEAVES)
    throw new LightedgeError("bad-request", "treestate.subtree-job", "more than 2^16 leaves in a subtree");
  const h = hasherFor(job.pool);
  const levels: bigint[][] = [leafValues(job)];
  for (let l = 0; l < SUBTREE_LEVEL; l++) {
    const row = levels[l]!;
    const lefts: bigint[] = [];
    const rights: bigint[] = [];
    for (let i = 0; i + 1 < row.length; i += 2) {
      lefts.push(row[i]!);
      rights.push(row[i + 1]!);
    }
    levels.push(lefts.length > 0 ? h.hashLevel(l, lefts, rights) : []);
  }
  const node = (l: number, i: number) => bigintToLeBytes(levels[l]![i]!);
  const lows = job.boundaries.map((m) => {
    if (m < 1 || m > count)
      throw new LightedgeError("bad-request", "treestate.subtree-job", `boundary ${m} out of range`);
    const last = m - 1;
    const odd = last % 2 === 1;
    const parents = Array.from({ length: SUBTREE_LEVEL - 1 }, (_, i) =>
      (last >>> (i + 1)) & 1 ? node(i + 1, (last >>> (i + 1)) - 1) : undefined,
    );
    return trimParents({
      left: node(0, odd ? last - 1 : last),
      right: odd ? node(0, last) : undefined,
      parents,
    });
  });
  const root = levels[SUBTREE_LEVEL]![0];
  return { lows, root: root === undefined ? undefined : bigintToLeBytes(root) };
}

function appendJob(job: SubtreeJob): SubtreeJobResult {
  const h = hasherFor(job.pool);
  let f = job.startLow ? frontierFromLegacy(h, job.startLow, NODE_MODULUS[job.pool]) : EMPTY_FRONTIER;
  const start = f.size;
  if (start + leafCount(job) > SUBTREE_LEAVES)
    throw new LightedgeError("bad-request", "treestate.subtree-job", "more than 2^16 leaves in a subtree");
  const lows: LegacyTree[] = [];
  const leaves = leafValues(job);
  for (const b of job.boundaries) {
    if (b < f.size || b > start + leaves.length)
      throw new LightedgeError("bad-request", "treestate.subtree-job", `boundary ${b} out of order`);
    f = appendLeaves(h, f, leaves.slice(f.size - start, b - start));
    lows.push(frontierToLegacy(f));
  }
  f = appendLeaves(h, f, leaves.slice(f.size - start));
  const full = f.size === SUBTREE_LEAVES;
  return { lows, root: full ? completedSubtreeRoot(job.pool, frontierToLegacy(f)) : undefined };
}
