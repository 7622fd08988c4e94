import { bigintToLeBytes, leBytesToBigint } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { type LegacyTree, legacyTreeSize, trimParents } from "../../proto/treestate/legacy-tree.ts";
import { type MerkleHasher, TREE_DEPTH } from "./merkle-hasher.ts";

/**
 * An incremental note commitment tree frontier, kept in two overlapping forms so appending and
 * serializing both cost nothing extra:
 * - `pending[l]`: the complete left node at level l waiting for a sibling, for each set bit l of
 *   `size` (what appending needs);
 * - `leaf` + `ommers[l]`: the newest leaf and its left siblings, for each set bit l of size − 1
 *   (what the legacy `finalState` encoding holds).
 */
export interface Frontier {
  readonly size: number;
  readonly leaf: bigint | undefined;
  readonly ommers: readonly (bigint | undefined)[];
  readonly pending: readonly (bigint | undefined)[];
}

const bit = (n: number, l: number) => (n >>> l) & 1;

export const EMPTY_FRONTIER: Frontier = { size: 0, leaf: undefined, ommers: [], pending: [] };

/** Appends leaves level by level: every level's new nodes are hashed in one batch. */
export function appendLeaves(h: MerkleHasher, f: Frontier, leaves: readonly bigint[]): Frontier {
  if (leaves.length === 0) return f;
  const size = f.size + leaves.length;
  if (size > 2 ** TREE_DEPTH - 1)
    throw new LightedgeError("internal", "trees.frontier", "note commitment tree full");
  const last = size - 1;
  const pending = f.pending.slice();
  const ommers: (bigint | undefined)[] = [];
  let row = leaves.slice();
  let first = f.size; // index of row[0] within its level
  for (let l = 0; l < TREE_DEPTH && row.length > 0; l++) {
    if (first % 2 === 1) {
      row.unshift(f.pending[l]!);
      first -= 1;
    }
    if (bit(last, l)) {
      const at = Math.floor(last / 2 ** l) - 1 - first;
      if (at >= 0 && at < row.length) ommers[l] = row[at];
    }
    pending[l] = row.length % 2 === 1 ? row[row.length - 1] : undefined;
    const lefts: bigint[] = [];
    const rights: bigint[] = [];
    for (let i = 0; i + 1 < row.length; i += 2) {
      lefts.push(row[i]!);
      rights.push(row[i + 1]!);
    }
    row = lefts.length > 0 ? h.hashLevel(l, lefts, rights) : [];
    first /= 2;
  }
  // Above the levels touched, the newest leaf's left siblings are the pending nodes.
  for (let l = 0; l < TREE_DEPTH; l++) if (bit(last, l) && ommers[l] === undefined) ommers[l] = pending[l];
  return { size, leaf: leaves[leaves.length - 1], ommers, pending };
}

/** The tree root: ≤ 32 sequential hashes with the empty subtree roots. */
export function frontierRoot(h: MerkleHasher, f: Frontier): bigint {
  let cur: bigint | undefined;
  for (let l = 0; l < TREE_DEPTH; l++) {
    if (bit(f.size, l)) cur = h.hashLevel(l, [f.pending[l]!], [cur ?? h.emptyRoot(l)])[0];
    else if (cur !== undefined) cur = h.hashLevel(l, [cur], [h.emptyRoot(l)])[0];
  }
  return cur ?? h.emptyRoot(TREE_DEPTH);
}

export function frontierToLegacy(f: Frontier): LegacyTree {
  if (f.size === 0) return { parents: [] };
  const last = f.size - 1;
  const node = (v: bigint | undefined) => (v === undefined ? undefined : bigintToLeBytes(v));
  const parents = Array.from({ length: TREE_DEPTH - 1 }, (_, i) =>
    bit(last, i + 1) ? node(f.ommers[i + 1]) : undefined,
  );
  const odd = bit(last, 0) === 1;
  return trimParents({
    left: node(odd ? f.ommers[0] : f.leaf),
    right: odd ? node(f.leaf) : undefined,
    parents,
  });
}

/** Rebuilds the frontier from a legacy tree; ≤ 31 hashes to recover the newest pending node. */
export function frontierFromLegacy(h: MerkleHasher, tree: LegacyTree, modulus: bigint): Frontier {
  const size = legacyTreeSize(tree);
  if (size === 0) return EMPTY_FRONTIER;
  const value = (b: Uint8Array | undefined) => {
    if (!b) return undefined;
    const v = leBytesToBigint(b);
    if (v >= modulus)
      throw new LightedgeError("malformed", "trees.frontier", "tree node is not a canonical field element");
    return v;
  };
  const last = size - 1;
  const leaf = value(tree.right ?? tree.left);
  const ommers: (bigint | undefined)[] = [tree.right ? value(tree.left) : undefined];
  tree.parents.forEach((p, i) => {
    ommers[i + 1] = value(p);
  });
  const pending: (bigint | undefined)[] = [];
  let t = 0;
  let cur = leaf!;
  while (bit(last, t)) {
    cur = h.hashLevel(t, [ommers[t]!], [cur])[0]!;
    t++;
  }
  pending[t] = cur;
  for (let l = t + 1; l < TREE_DEPTH; l++) if (bit(size, l)) pending[l] = ommers[l];
  return { size, leaf, ommers, pending };
}
