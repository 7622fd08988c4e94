import { bigintToLeBytes, leBytesToBigint } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { hasherFor, NODE_MODULUS } from "./hashers.ts";
import type { TreePool } from "./merkle-hasher.ts";

/** z_getsubtreesbyindex subtrees are complete level-16 nodes: 2¹⁶ leaves each. */
export const SUBTREE_LEVEL = 16;
export const SUBTREE_LEAVES = 2 ** SUBTREE_LEVEL;

/**
 * Root of one 2¹⁶-leaf subtree (an independent backfill job, ≤ 65,535 hashes), 32 bytes LE.
 * Fewer leaves are padded with empty subtrees, giving the partial subtree's node at level 16.
 * Pure and synchronous: call it inside a node:worker_threads worker to use more cores.
 */
export function computeSubtreeRoot(pool: TreePool, leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length > SUBTREE_LEAVES)
    throw new LightedgeError("bad-request", "trees.subtree", "more than 2^16 leaves");
  const h = hasherFor(pool);
  let row = leaves.map((cm) => {
    const v = leBytesToBigint(cm);
    if (v >= NODE_MODULUS[pool]) throw new LightedgeError("malformed", "trees.subtree", "non-canonical leaf");
    return v;
  });
  for (let l = 0; l < SUBTREE_LEVEL; l++) {
    if (row.length === 0) return bigintToLeBytes(h.emptyRoot(SUBTREE_LEVEL));
    if (row.length % 2 === 1) row.push(h.emptyRoot(l));
    const lefts = row.filter((_, i) => i % 2 === 0);
    const rights = row.filter((_, i) => i % 2 === 1);
    row = h.hashLevel(l, lefts, rights);
  }
  return bigintToLeBytes(row[0] ?? h.emptyRoot(SUBTREE_LEVEL));
}
