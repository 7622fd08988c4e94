import { jubjubKeys, POINT_TABLE_SIZE, pallasKeys } from "../../origin/devnode/points.ts";

/**
 * Pools of real curve points for ephemeral keys: a light client decodes every `epk` it
 * trial-decrypts (a canonical Jubjub point for Sapling, a canonical non-identity Pallas point for
 * Orchard and Ironwood), so random bytes would be rejected. The dev node's tables
 * (origin/devnode/points.ts) are the one implementation; this only names them for the generator.
 */
export interface PointPools {
  /** `count` 32-byte encodings, back to back. */
  jubjub: Uint8Array;
  pallas: Uint8Array;
  count: number;
}

export function pointPools(): PointPools {
  return { jubjub: jubjubKeys(), pallas: pallasKeys(), count: POINT_TABLE_SIZE };
}
