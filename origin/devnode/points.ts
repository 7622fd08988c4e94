import { FpInvertBatch } from "@noble/curves/abstract/modular.js";
import { weierstrass } from "@noble/curves/abstract/weierstrass.js";
import { jubjub } from "@noble/curves/misc.js";

/**
 * Valid ephemeral keys for synthetic shielded outputs, precomputed once: a wallet decodes every
 * `epk` before trial decryption (sapling-crypto `SaplingDomain::epk`: a canonical Jubjub point;
 * orchard `EphemeralPublicKey::from_bytes`: a canonical, non-identity Pallas point) and a random
 * 32-byte string is neither. Outputs pick an entry with two keystream bytes, so nothing is computed
 * per output. The points are (s + i)·G for a fixed s: prime order, distinct, nonzero.
 */
export const POINT_TABLE_SIZE = 1024;

/** Pallas (y² = x³ + 5 over F_p) as a noble curve; generator (−1, 2) as in pasta_curves. */
export const PALLAS_P = 0x40000000000000000000000000000000224698fc094cf91b992d30ed00000001n;
export const PALLAS_Q = 0x40000000000000000000000000000000224698fc0994a8dd8c46eb2100000001n;
export const Pallas = weierstrass({
  p: PALLAS_P,
  n: PALLAS_Q,
  h: 1n,
  a: 0n,
  b: 5n,
  Gx: PALLAS_P - 1n,
  Gy: 2n,
});

/** Jubjub's base field (= BLS12-381's scalar field r): the Sapling note commitment `cmu` field. */
export const JUBJUB_BASE = jubjub.Point.Fp.ORDER;

const START = 0x5eed_1234_abcdn;

function le32(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** (START + i)·G for i < POINT_TABLE_SIZE, projective (made affine by the caller in one batch). */
function multiples<P extends { add(o: P): P; double(): P }>(base: P): P[] {
  // Double-and-add by hand: noble's multiply first builds a window table for G (~80 ms).
  let p = base;
  for (let i = START.toString(2).length - 2; i >= 0; i--) {
    p = p.double();
    if ((START >> BigInt(i)) & 1n) p = p.add(base);
  }
  const pts: P[] = [];
  for (let i = 0; i < POINT_TABLE_SIZE; i++) {
    pts.push(p);
    p = p.add(base);
  }
  return pts;
}

let sapling: Uint8Array | undefined;
let orchard: Uint8Array | undefined;

/** POINT_TABLE_SIZE compressed Jubjub points (Zcash encoding: v little-endian, sign of u on top). */
export function jubjubKeys(): Uint8Array {
  if (sapling) return sapling;
  const pts = multiples(jubjub.Point.BASE);
  const Fp = jubjub.Point.Fp;
  const inv = FpInvertBatch(
    Fp,
    pts.map((p) => p.Z),
    true,
  );
  const out = new Uint8Array(32 * POINT_TABLE_SIZE);
  pts.forEach((p, i) => {
    const { x, y } = p.toAffine(inv[i]);
    const b = le32(y);
    if (x & 1n) b[31]! |= 0x80;
    out.set(b, 32 * i);
  });
  sapling = out;
  return out;
}

/** POINT_TABLE_SIZE compressed Pallas points (x little-endian, sign of y in the top bit). */
export function pallasKeys(): Uint8Array {
  if (orchard) return orchard;
  const pts = multiples(Pallas.BASE);
  const inv = FpInvertBatch(
    Pallas.Fp,
    pts.map((p) => p.Z),
    true,
  );
  const out = new Uint8Array(32 * POINT_TABLE_SIZE);
  pts.forEach((p, i) => {
    const { x, y } = p.toAffine(inv[i]);
    const b = le32(x);
    if (y & 1n) b[31]! |= 0x80;
    out.set(b, 32 * i);
  });
  orchard = out;
  return out;
}

/** Entry index from two keystream bytes at `at`. */
export function pointIndex(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8)) % POINT_TABLE_SIZE;
}
