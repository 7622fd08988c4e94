import { bigintToLeBytes, leBytesToBigint } from "../../proto/bytes.ts";
import { type LegacyTree, legacyTreeSize, trimParents } from "../../proto/treestate/legacy-tree.ts";
import {
  appendLeaves,
  type Frontier,
  hasherFor,
  type MerkleHasher,
  SUBTREE_LEAVES,
  SUBTREE_LEVEL,
  type TreePool,
} from "../trees/index.ts";
import { completedSubtreeRoot } from "./completed-subtree.ts";

/**
 * A frontier split at level 16 (the z_getsubtreesbyindex level): the part inside the newest
 * subtree (`low`, what a subtree job records) and the frontier over completed subtree roots
 * (`high`, a depth-16 tree whose leaves are subtree roots). Only `high.pending` is used: the left
 * siblings above level 16 of any leaf in subtree k are the pending nodes of the size-k frontier.
 */
const LOW_PARENTS = SUBTREE_LEVEL - 1;

/** The pool's hasher shifted up 16 levels: hashing subtree roots as leaves. */
export function highHasher(pool: TreePool): MerkleHasher {
  const h = hasherFor(pool);
  return {
    pool: h.pool,
    emptyRoot: (l) => h.emptyRoot(l + SUBTREE_LEVEL),
    hashLevel: (l, a, b) => h.hashLevel(l + SUBTREE_LEVEL, a, b),
  };
}

/** Appends completed subtree roots (32 bytes LE) to the high frontier. */
export function appendRoots(pool: TreePool, high: Frontier, roots: readonly Uint8Array[]): Frontier {
  return appendLeaves(highHasher(pool), high, roots.map(leBytesToBigint));
}

/** Splits a whole legacy tree: the low part of its newest subtree and the high frontier before it. */
export function splitLegacy(pool: TreePool, tree: LegacyTree): { low?: LegacyTree; high: Frontier } {
  const n = legacyTreeSize(tree);
  const m = n % SUBTREE_LEAVES;
  const k = Math.floor(n / SUBTREE_LEAVES);
  const base = m > 0 ? k : Math.max(0, k - 1);
  const pending: (bigint | undefined)[] = [];
  for (let j = 0; j < SUBTREE_LEVEL; j++) {
    const node = tree.parents[LOW_PARENTS + j];
    if ((base >>> j) & 1 && node) pending[j] = leBytesToBigint(node);
  }
  let high: Frontier = { size: base, leaf: undefined, ommers: [], pending };
  if (n > 0 && m === 0) high = appendRoots(pool, high, [completedSubtreeRoot(pool, tree)]);
  const low = m > 0 ? trimParents({ ...tree, parents: tree.parents.slice(0, LOW_PARENTS) }) : undefined;
  return { low, high };
}

/** Joins a within-subtree legacy tree with the high frontier of the subtrees before it. */
export function joinLegacy(low: LegacyTree, high: Frontier): LegacyTree {
  const parents: (Uint8Array | undefined)[] = low.parents.slice(0, LOW_PARENTS);
  while (parents.length < LOW_PARENTS) parents.push(undefined);
  for (let j = 0; j < SUBTREE_LEVEL; j++) {
    const v = (high.size >>> j) & 1 ? high.pending[j] : undefined;
    parents.push(v === undefined ? undefined : bigintToLeBytes(v));
  }
  return trimParents({ left: low.left, right: low.right, parents });
}
