import { jubjub } from "@noble/curves/misc.js";
import { encodePallasPoint, isOnPallas, PALLAS_B, Fp as PallasFp } from "../../origin/trees/pallas.ts";

/**
 * Small pools of real curve points for ephemeral keys. A light client parses every `epk` it
 * trial-decrypts: Sapling's must be a canonical Jubjub encoding of a prime-order point (ZIP 216;
 * the spec's repr_J, which is noble's Edwards encoding), Orchard's (and Ironwood's) a canonical
 * Pallas encoding (spec §5.4.9.7: x little-endian, sign of y in bit 255) of a non-identity point.
 * Random bytes would be rejected, so the generator draws epks from these pools.
 */
export interface PointPools {
  /** `count` 32-byte encodings, back to back. */
  jubjub: Uint8Array;
  pallas: Uint8Array;
  count: number;
}

/** Deterministic: multiples of Jubjub's base point; Pallas points from x = 1, 2, … where x³ + 5 is square. */
export function pointPools(count = 256): PointPools {
  const jj = new Uint8Array(32 * count);
  for (let k = 0; k < count; k++) jj.set(jubjub.Point.BASE.multiply(BigInt(k + 7)).toBytes(), 32 * k);
  const pa = new Uint8Array(32 * count);
  let found = 0;
  for (let x = 1n; found < count; x++) {
    const rhs = PallasFp.add(PallasFp.mul(PallasFp.sqr(x), x), PALLAS_B);
    let y: bigint;
    try {
      y = PallasFp.sqrt(rhs);
    } catch {
      continue; // not a square: no point with this x
    }
    const pt = { x, y: found % 2 === 0 ? y : PallasFp.neg(y) };
    if (!isOnPallas(pt)) throw new Error(`pallas point at x=${x} is not on the curve`);
    pa.set(encodePallasPoint(pt), 32 * found);
    found++;
  }
  return { jubjub: jj, pallas: pa, count };
}
