import { jubjub, jubjub_findGroupHash } from "@noble/curves/misc.js";
import { batchInvert } from "./field-batch.ts";

/** Jubjub: −u² + v² = 1 + d·u²·v² over BLS12-381's scalar field (Zcash protocol spec, "Jubjub"). */
export const JUBJUB_P = jubjub.Point.Fp.ORDER;
export const JUBJUB_D = 0x2a9318e74bfa2b48f5fd9207e6bd7fd4292d7f6d37579d2601065fd6d6343eb1n;
const P = JUBJUB_P;

export interface EdPoint {
  x: bigint;
  y: bigint;
}

/** Pedersen generator Iᵢ = FindGroupHash^J("Zcash_PH", I2LEOSP₃₂(i − 1)), 1-based as the spec. */
export function pedersenGenerator(i: number) {
  const m = new Uint8Array(4);
  new DataView(m.buffer).setUint32(0, i - 1, true);
  return jubjub_findGroupHash(m, new TextEncoder().encode("Zcash_PH"));
}

/** k·pt as affine, via noble's (constant-structure) multiplication; for table setup only. */
export function edMultiple(pt: ReturnType<typeof pedersenGenerator>, k: bigint): EdPoint {
  const neg = k < 0n;
  const a = pt.multiply(neg ? -k : k).toAffine();
  return { x: neg ? (P - a.x) % P : a.x, y: a.y };
}

/**
 * as[i] + bs[i] with the complete twisted Edwards formulas (a = −1, d non-square, so no exceptions),
 * one shared inversion for both denominators of every pair.
 */
export function edBatchAdd(as: readonly EdPoint[], bs: readonly EdPoint[]): EdPoint[] {
  const n = as.length;
  const xy = new Array<bigint>(n);
  const dens = new Array<bigint>(n);
  for (let i = 0; i < n; i++) {
    const a = as[i]!;
    const b = bs[i]!;
    const t = (((((JUBJUB_D * a.x) % P) * b.x) % P) * ((a.y * b.y) % P)) % P;
    xy[i] = t;
    dens[i] = ((1n + t) * (1n - t + P)) % P;
  }
  const invs = batchInvert(dens, P);
  return as.map((a, i) => {
    const b = bs[i]!;
    const t = xy[i]!;
    const inv = invs[i]!;
    const x = (((a.x * b.y + a.y * b.x) % P) * ((inv * (1n - t + P)) % P)) % P;
    const y = (((a.y * b.y + a.x * b.x) % P) * ((inv * (1n + t)) % P)) % P;
    return { x, y };
  });
}
