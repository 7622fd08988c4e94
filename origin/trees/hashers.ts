import { JUBJUB_P } from "./jubjub.ts";
import type { MerkleHasher, TreePool } from "./merkle-hasher.ts";
import { createOrchardHasher } from "./orchard-hasher.ts";
import { PALLAS_P } from "./pallas.ts";
import { createSaplingHasher } from "./sapling-hasher.ts";

/**
 * Field modulus of each pool's tree nodes: Jubjub's base field for Sapling, Pallas' for Orchard and
 * Ironwood (its cmx are Pallas x-coordinates, as Orchard's).
 */
export const NODE_MODULUS: Record<TreePool, bigint> = {
  sapling: JUBJUB_P,
  orchard: PALLAS_P,
  ironwood: PALLAS_P,
};

const hashers: Partial<Record<"sapling" | "orchard", MerkleHasher>> = {};

/**
 * One shared hasher per hash family per thread: the tables (~2 s to build each) are built on first
 * use. Ironwood gets the Orchard hasher itself (same MerkleCRH, same empty leaf): the wallet library
 * zcash_client_backend 0.25.0 builds its Ironwood tree over `orchard::tree::MerkleHashOrchard`.
 */
export function hasherFor(pool: TreePool): MerkleHasher {
  const family = pool === "sapling" ? "sapling" : "orchard";
  hashers[family] ??= family === "sapling" ? createSaplingHasher() : createOrchardHasher();
  return hashers[family];
}
