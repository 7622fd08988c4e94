import { JUBJUB_P } from "./jubjub.ts";
import type { MerkleHasher, TreePool } from "./merkle-hasher.ts";
import { createOrchardHasher } from "./orchard-hasher.ts";
import { PALLAS_P } from "./pallas.ts";
import { createSaplingHasher } from "./sapling-hasher.ts";

/** Field modulus of each pool's tree nodes (Jubjub's base field for Sapling, Pallas' for Orchard). */
export const NODE_MODULUS: Record<TreePool, bigint> = { sapling: JUBJUB_P, orchard: PALLAS_P };

const hashers: Partial<Record<TreePool, MerkleHasher>> = {};

/** One shared hasher per pool per thread: the tables (~2 s to build each) are built on first use. */
export function hasherFor(pool: TreePool): MerkleHasher {
  hashers[pool] ??= pool === "sapling" ? createSaplingHasher() : createOrchardHasher();
  return hashers[pool];
}
