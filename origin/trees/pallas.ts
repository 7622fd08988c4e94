import { Field, invert } from "@noble/curves/abstract/modular.js";
import { batchInvert } from "./field-batch.ts";

/** Pallas: y² = x³ + 5 over F_p (Zcash protocol spec, "Pallas and Vesta"). */
export const PALLAS_P = 0x40000000000000000000000000000000224698fc094cf91b992d30ed00000001n;
export const PALLAS_B = 5n;
export const Fp = Field(PALLAS_P);

/** An affine Pallas point; `undefined` stands for the identity. */
export interface PallasPoint {
  x: bigint;
  y: bigint;
}

const P = PALLAS_P;

export function isOnPallas(pt: PallasPoint): boolean {
  return (pt.y * pt.y - (pt.x * pt.x * pt.x + PALLAS_B)) % P === 0n;
}

/** Complete affine addition (handles doubling and inverses); one inversion, for the slow path. */
export function pallasAdd(a: PallasPoint | undefined, b: PallasPoint | undefined): PallasPoint | undefined {
  if (!a) return b;
  if (!b) return a;
  let lambda: bigint;
  if (a.x === b.x) {
    if (a.y !== b.y || a.y === 0n) return undefined;
    lambda = (3n * a.x * a.x * invert((2n * a.y) % P, P)) % P;
  } else {
    lambda = (((b.y - a.y + P) % P) * invert((b.x - a.x + P) % P, P)) % P;
  }
  const x = (((lambda * lambda - a.x - b.x) % P) + 2n * P) % P;
  const y = (((lambda * (a.x - x + P)) % P) - a.y + P) % P;
  return { x, y };
}

/**
 * as[i] + bs[i] for every i with one shared inversion. Pairs that need the doubling or identity
 * cases (equal x) take the slow path; with hash outputs they never occur in practice.
 */
export function pallasBatchAdd(
  as: readonly (PallasPoint | undefined)[],
  bs: readonly (PallasPoint | undefined)[],
) {
  const out = new Array<PallasPoint | undefined>(as.length);
  const idx: number[] = [];
  const dens: bigint[] = [];
  for (let i = 0; i < as.length; i++) {
    const a = as[i];
    const b = bs[i];
    if (a && b && a.x !== b.x) {
      idx.push(i);
      dens.push(b.x >= a.x ? b.x - a.x : b.x - a.x + P);
    } else out[i] = pallasAdd(a, b);
  }
  const invs = batchInvert(dens, P);
  for (let k = 0; k < idx.length; k++) {
    const i = idx[k]!;
    const a = as[i]!;
    const b = bs[i]!;
    // Lazy reduction: one `%` per product, conditional additions instead of `%` on sums.
    const lambda = ((b.y - a.y) * invs[k]!) % P;
    let x = ((lambda * lambda) % P) - a.x - b.x;
    while (x < 0n) x += P;
    let y = ((lambda * (a.x - x)) % P) - a.y;
    while (y < 0n) y += P;
    out[i] = { x, y };
  }
  return out;
}

/** 2·pt for every point, one shared inversion (no point here has y = 0: Pallas has odd order). */
export function pallasBatchDouble(pts: readonly PallasPoint[]): PallasPoint[] {
  const invs = batchInvert(
    pts.map((pt) => (2n * pt.y) % P),
    P,
  );
  return pts.map((pt, i) => {
    const lambda = (((3n * pt.x * pt.x) % P) * invs[i]!) % P;
    const x = (((lambda * lambda - 2n * pt.x) % P) + 2n * P) % P;
    const y = (((lambda * (pt.x - x)) % P) - pt.y + 2n * P) % P;
    return { x, y };
  });
}

/** Point encoding used by the test vectors: x little-endian, sign of y in the top bit. */
export function encodePallasPoint(pt: PallasPoint | undefined): Uint8Array {
  const out = new Uint8Array(32);
  if (!pt) return out;
  let x = pt.x;
  for (let i = 0; i < 32; i++) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  if (pt.y & 1n) out[31]! |= 0x80;
  return out;
}
