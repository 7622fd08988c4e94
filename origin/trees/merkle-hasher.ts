/** Note commitment tree depth for Sapling, Orchard and Ironwood. */
export const TREE_DEPTH = 32;

/**
 * The three note commitment trees. Ironwood's tree uses the Orchard MerkleCRH and empty leaf: the
 * wallet library (zcash_client_backend 0.25.0, `src/data_api/ll/wallet.rs`) stores Ironwood
 * commitments as `orchard::tree::MerkleHashOrchard`, and the wallet is the authority here.
 */
export type TreePool = "sapling" | "orchard" | "ironwood";

/**
 * A pool's MerkleCRH. `level` is the height of the children being combined (0 = two leaves),
 * i.e. the spec's MerkleDepth − 1 − layer. Nodes are field elements (bigint); on the wire they
 * are 32-byte little-endian.
 */
export interface MerkleHasher {
  /** The hash family: Ironwood shares Orchard's hasher. */
  readonly pool: "sapling" | "orchard";
  /** Root of an empty subtree of height `level` (level 0 = the uncommitted leaf). */
  emptyRoot(level: number): bigint;
  /** MerkleCRH(level, lefts[i], rights[i]) for every i, sharing inversions across the batch. */
  hashLevel(level: number, lefts: readonly bigint[], rights: readonly bigint[]): bigint[];
}

/** One MerkleCRH call (a batch of one). */
export function hashPair(h: MerkleHasher, level: number, left: bigint, right: bigint): bigint {
  return h.hashLevel(level, [left], [right])[0]!;
}

/** The 33 empty roots of a hasher (levels 0..32), computed sequentially. */
export function computeEmptyRoots(emptyLeaf: bigint, hashLevel: MerkleHasher["hashLevel"]): bigint[] {
  const roots = [emptyLeaf];
  for (let l = 0; l < TREE_DEPTH; l++) roots.push(hashLevel(l, [roots[l]!], [roots[l]!])[0]!);
  return roots;
}
