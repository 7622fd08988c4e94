import { toHex } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { type LegacyTree, legacyTreeSize, parseFinalState } from "../../proto/treestate/legacy-tree.ts";
import { SUBTREE_LEAF_COUNT as SUBTREE_LEAVES } from "../../proto/treestate/subtree-reader.ts";
import type { Pool } from "./commitments.ts";

/**
 * The tree a corpus run starts from (after block `from − 1`), per pool. Real when the corpus has
 * that frontier; otherwise constructed so that nothing in it contradicts the corpus's real data:
 *
 * - its size fits every real fact: checkpoint and zebrad tree sizes, and each real subtree's
 *   `end_height` (the block that completed subtree k holds leaf (k+1)·2¹⁶ − 1), given the run's own
 *   commitment counts; inside those bounds it is interpolated between the nearest facts;
 * - each node it holds (the newest leaf and its ommers, by position) is the real node where the
 *   corpus has it — a real subtree root at level 16, a node of a real frontier — or one computed
 *   with the pool's Merkle hash from real children (levels above 16 from real subtree roots);
 * - every other node is a deterministic canonical field element (< 2²⁵⁴).
 *
 * Planning (sizes, which nodes are known) needs no hashing and runs where the chain is built;
 * start-build.ts hashes and runs on the tree worker.
 */

/** z_getsubtreesbyindex subtrees are the level-16 nodes. */
const SUBTREE_LEVEL = 16;

export interface StartPlan {
  pool: Pool;
  kind: "empty" | "real" | "constructed";
  /** Tree size after from − 1. */
  size: number;
  /** kind "real": the frontier (finalState hex) and the height it is real at. */
  finalState?: string;
  realAt?: number;
  /** kind "constructed": nodes by position [level, index, 32-byte LE hex], and a label for fillers. */
  known?: [number, number, string][];
  label?: string;
}

/** A real tree state in the corpus (zebrad z_gettreestate or a wallet checkpoint). */
export interface RealTreeState {
  height: number;
  hash: string;
  time: number;
  /** finalState per pool where the pool is active ("000000" = empty tree). */
  pools: Partial<Record<Pool, string>>;
  /** The zebrad response's result, when this is one (served as is). */
  zebrad?: Record<string, unknown>;
}

export interface RealSubtree {
  index: number;
  /** 32-byte LE hex, as z_getsubtreesbyindex gives it. */
  root: string;
  endHeight: number;
}

export interface PlanInput {
  pool: Pool;
  /** First height of the run; the plan is the tree after from − 1. */
  from: number;
  to: number;
  /** Height the pool activates on this network. */
  activation: number;
  /** Commitments the run's blocks add to this pool, one count per height from..to. */
  added: number[];
  states: readonly RealTreeState[];
  subtrees: ReadonlyMap<number, RealSubtree>;
  label: string;
}

export function planStart(p: PlanInput): StartPlan {
  const { pool, from, to } = p;
  if (from - 1 < p.activation) return { pool, kind: "empty", size: 0 };
  // A(h): commitments the run adds in from..h (A(from − 1) = 0).
  const cumulative = [0];
  for (const n of p.added) cumulative.push(cumulative[cumulative.length - 1]! + n);
  const A = (h: number) => cumulative[Math.min(Math.max(h - from + 1, 0), cumulative.length - 1)]!;
  const sized = p.states
    .filter((s) => s.pools[pool] !== undefined)
    .map((s) => ({ s, size: legacyTreeSize(parseFinalState(s.pools[pool]!)) }))
    .sort((a, b) => a.s.height - b.s.height);
  // A real frontier the run's first blocks do not change is the start itself.
  const real = sized.find(({ s }) => s.height >= from - 1 && s.height <= to && A(s.height) === 0);
  if (real)
    return { pool, kind: "real", size: real.size, finalState: real.s.pools[pool]!, realAt: real.s.height };

  let lo = 0;
  let hi = 2 ** 32 - 1;
  const points: [number, number][] = [];
  for (const { s, size } of sized) {
    points.push([s.height, size]);
    if (s.height < from) lo = Math.max(lo, size);
    else if (s.height <= to) {
      lo = Math.max(lo, size - A(s.height));
      hi = Math.min(hi, size - A(s.height));
    } else hi = Math.min(hi, size - A(to));
  }
  for (const t of p.subtrees.values()) {
    const full = (t.index + 1) * SUBTREE_LEAVES;
    points.push([t.endHeight, full]);
    if (t.endHeight < from) lo = Math.max(lo, full);
    else if (t.endHeight <= to) {
      lo = Math.max(lo, full - A(t.endHeight));
      hi = Math.min(hi, full - 1 - A(t.endHeight - 1));
    } else hi = Math.min(hi, full - 1 - A(to));
  }
  if (lo > hi)
    throw new LightedgeError(
      "corrupt",
      "devnode.corpus",
      `devnode: the corpus's ${pool} tree sizes and subtree heights disagree around ${from}`,
    );
  const below = points.filter(([h]) => h < from).sort((a, b) => b[0] - a[0])[0];
  const above = points.filter(([h]) => h >= from).sort((a, b) => a[0] - b[0])[0];
  let estimate = lo;
  if (below && above && above[0] > below[0])
    estimate = below[1] + ((above[1] - below[1]) * (from - 1 - below[0])) / (above[0] - below[0]);
  const size = Math.min(hi, Math.max(lo, Math.round(estimate)));

  const known = new Map<string, string>();
  for (const t of p.subtrees.values()) known.set(`${SUBTREE_LEVEL}:${t.index}`, t.root);
  for (const { s } of sized)
    for (const [l, i, v] of frontierNodes(parseFinalState(s.pools[pool]!))) known.set(`${l}:${i}`, v);
  return {
    pool,
    kind: "constructed",
    size,
    known: [...known].map(([k, v]) => {
      const [l, i] = k.split(":").map(Number);
      return [l!, i!, v];
    }),
    label: p.label,
  };
}

/** The positioned nodes of a legacy tree: newest leaf (and its left sibling), ommers by level. */
export function frontierNodes(tree: LegacyTree): [number, number, string][] {
  const size = legacyTreeSize(tree);
  if (size === 0) return [];
  const last = size - 1;
  const out: [number, number, string][] = [];
  if (tree.right) {
    out.push([0, last, toHex(tree.right)]);
    out.push([0, last - 1, toHex(tree.left!)]);
  } else out.push([0, last, toHex(tree.left!)]);
  tree.parents.forEach((p, i) => {
    if (p) out.push([i + 1, Math.floor(last / 2 ** (i + 1)) - 1, toHex(p)]);
  });
  return out;
}
