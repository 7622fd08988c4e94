import { bigintToLeBytes, leBytesToBigint } from "../../proto/bytes.ts";
import { type LegacyTree, slotsForSize, trimParents } from "../../proto/treestate/index.ts";
import { hasherFor, hashPair, type MerkleHasher, type TreePool } from "../trees/index.ts";

/** A canonical field element of both pools (top two bits clear), deterministic from `seed`. */
export function fakeNode(seed: number): Uint8Array {
  const out = new Uint8Array(32);
  let x = (seed * 2654435761) >>> 0;
  for (let i = 0; i < 32; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  out[31]! &= 0x3f;
  return out;
}

/** A legacy tree of `size` leaves whose present slots hold arbitrary (valid) nodes. */
export function fakeLegacy(size: number, seed: number): LegacyTree {
  const { leaves, parentMask } = slotsForSize(size);
  const tree: LegacyTree = { parents: [] };
  if (leaves >= 1) tree.left = fakeNode(seed);
  if (leaves === 2) tree.right = fakeNode(seed + 1);
  for (const i of parentMask) tree.parents[i] = fakeNode(seed + 2 + i);
  for (let i = 0; i < tree.parents.length; i++) tree.parents[i] ??= undefined;
  return tree;
}

/**
 * The textbook append of zcashd's IncrementalMerkleTree on the legacy form (left, right,
 * parents), one leaf at a time: an independent reference for the frontier code. `h` may be another
 * implementation of the pool's hash (the all-bigint oracle).
 */
export function naiveAppend(
  pool: TreePool,
  tree: LegacyTree,
  leaf: Uint8Array,
  h: MerkleHasher = hasherFor(pool),
): LegacyTree {
  const t: LegacyTree = { left: tree.left, right: tree.right, parents: tree.parents.slice() };
  if (!t.left) t.left = leaf;
  else if (!t.right) t.right = leaf;
  else {
    let combined = hashPair(h, 0, leBytesToBigint(t.left), leBytesToBigint(t.right));
    t.left = leaf;
    t.right = undefined;
    for (let i = 0; i < 31; i++) {
      const p = t.parents[i];
      if (p) {
        combined = hashPair(h, i + 1, leBytesToBigint(p), combined);
        t.parents[i] = undefined;
      } else {
        t.parents[i] = bigintToLeBytes(combined);
        break;
      }
    }
  }
  return trimParents(t);
}
