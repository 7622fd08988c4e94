import { bigintToLeBytes, leBytesToBigint } from "../../proto/bytes.ts";
import type { LegacyTree } from "../../proto/treestate/legacy-tree.ts";
import { hasherFor, hashPair, SUBTREE_LEVEL, type TreePool } from "../trees/index.ts";

/**
 * The root of the subtree a tree of exactly k × 2¹⁶ leaves has just completed: its newest leaf's
 * path below level 16 is all left siblings (every low bit of size − 1 is set), so the root is the
 * two newest leaves folded with parents 1..15 — 16 hashes.
 */
export function completedSubtreeRoot(pool: TreePool, tree: LegacyTree): Uint8Array {
  const h = hasherFor(pool);
  let cur = hashPair(h, 0, leBytesToBigint(tree.left!), leBytesToBigint(tree.right!));
  for (let l = 1; l < SUBTREE_LEVEL; l++) cur = hashPair(h, l, leBytesToBigint(tree.parents[l - 1]!), cur);
  return bigintToLeBytes(cur);
}
