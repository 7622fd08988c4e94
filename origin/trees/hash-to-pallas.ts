import { FpIsSquare } from "@noble/curves/abstract/modular.js";
import { blake2b } from "@noble/hashes/blake2.js";
import { Fp, PALLAS_P, type PallasPoint, pallasAdd } from "./pallas.ts";

/**
 * GroupHash^P (Zcash protocol spec, "Group Hash into Pallas and Vesta"): IETF hash_to_curve with
 * expand_message_xmd over BLAKE2b-512, simplified SWU on iso-Pallas, then the 3-isogeny to Pallas.
 */
const P = PALLAS_P;
/** iso-Pallas: y² = x³ + A′x + B′. */
const ISO_A = 0x18354a2eb0ea8c9c49be2d7258370742b74134581a27a59f92bb4b0b657a014bn;
const ISO_B = 1265n;
const Z = P - 13n;
/** The 3-isogeny's rational map coefficients (spec constants, 1-based as the spec numbers them). */
const C = [
  0n,
  0x0e38e38e38e38e38e38e38e38e38e38e4081775473d8375b775f6034aaaaaaabn,
  0x3509afd51872d88e267c7ffa51cf412a0f93b82ee4b994958cf863b02814fb76n,
  0x17329b9ec525375398c7d7ac3d98fd13380af066cfeb6d690eb64faef37ea4f7n,
  0x1c71c71c71c71c71c71c71c71c71c71c8102eea8e7b06eb6eebec06955555580n,
  0x1d572e7ddc099cff5a607fcce0494a799c434ac1c96b6980c47f2ab668bcd71fn,
  0x325669becaecd5d11d13bf2a7f22b105b4abf9fb9a1fc81c2aa3af1eae5b6604n,
  0x1a12f684bda12f684bda12f684bda12f7642b01ad461bad25ad985b5e38e38e4n,
  0x1a84d7ea8c396c47133e3ffd28e7a09507c9dc17725cca4ac67c31d8140a7dbbn,
  0x3fb98ff0d2ddcadd303216cce1db9ff11765e924f745937802e2be87d225b234n,
  0x025ed097b425ed097b425ed097b425ed0ac03e8e134eb3e493e53ab371c71c4fn,
  0x0c02c5bcca0e6b7f0790bfb3506defb65941a3a4a97aa1b35a28279b1d1b42aen,
  0x17033d3c60c68173573b3d7f7d681310d976bbfabbc5661d4d90ab820b12320an,
  0x40000000000000000000000000000000224698fc094cf91b992d30ecfffffde5n,
] as const;

const utf8 = (s: string) => new TextEncoder().encode(s);

/** RFC 9380 §5.3.1 with H = BLAKE2b-512: b_in_bytes 64, r_in_bytes 128 (the zero pad is 128 bytes). */
export function expandMessageXmd(msg: Uint8Array, dst: Uint8Array, lenInBytes: number): Uint8Array {
  const ell = Math.ceil(lenInBytes / 64);
  const dstPrime = new Uint8Array([...dst, dst.length]);
  const b0 = blake2b(
    new Uint8Array([...new Uint8Array(128), ...msg, lenInBytes >> 8, lenInBytes & 0xff, 0, ...dstPrime]),
  );
  const out = new Uint8Array(ell * 64);
  let prev = new Uint8Array(64);
  for (let i = 1; i <= ell; i++) {
    const mixed = b0.map((v, k) => v ^ prev[k]!);
    prev = blake2b(new Uint8Array([...(i === 1 ? b0 : mixed), i, ...dstPrime]));
    out.set(prev, (i - 1) * 64);
  }
  return out.slice(0, lenInBytes);
}

function beToBigint(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

/** hash_to_field with count 2 and L = 64: each element a 64-byte big-endian integer mod p. */
function hashToField(msg: Uint8Array, dst: Uint8Array): [bigint, bigint] {
  const u = expandMessageXmd(msg, dst, 128);
  return [beToBigint(u.subarray(0, 64)) % P, beToBigint(u.subarray(64)) % P];
}

/** Simplified SWU (RFC 9380 §6.6.2) onto iso-Pallas. */
export function mapToIsoPallas(u: bigint): PallasPoint {
  const tv1 = Fp.mul(Z, Fp.sqr(u));
  const tv2 = Fp.sqr(tv1);
  const den = Fp.add(tv1, tv2);
  const c1 = Fp.div(Fp.neg(ISO_B), ISO_A);
  // x1 = (−B/A)(1 + 1/(Z²u⁴ + Zu²)), or B/(ZA) when the denominator vanishes.
  const x1 = den === 0n ? Fp.div(ISO_B, Fp.mul(Z, ISO_A)) : Fp.mul(c1, Fp.add(Fp.inv(den), 1n));
  const gx1 = Fp.add(Fp.mul(Fp.add(Fp.sqr(x1), ISO_A), x1), ISO_B);
  const square = FpIsSquare(Fp, gx1);
  const x = square ? x1 : Fp.mul(tv1, x1);
  const gx = square ? gx1 : Fp.mul(gx1, Fp.mul(tv1, tv2));
  let y = Fp.sqrt(gx);
  if ((u & 1n) !== (y & 1n)) y = Fp.neg(y);
  return { x, y };
}

function poly(x: bigint, coeffs: readonly bigint[]): bigint {
  return coeffs.reduce((acc, c) => Fp.add(Fp.mul(acc, x), c), 0n);
}

/** The 3-isogeny iso-Pallas → Pallas. */
function isoMap(pt: PallasPoint): PallasPoint {
  const { x, y } = pt;
  const xNum = poly(x, [C[1], C[2], C[3], C[4]]);
  const xDen = poly(x, [1n, C[5], C[6]]);
  const yNum = poly(x, [C[7], C[8], C[9], C[10]]);
  const yDen = poly(x, [1n, C[11], C[12], C[13]]);
  return { x: Fp.div(xNum, xDen), y: Fp.mul(y, Fp.div(yNum, yDen)) };
}

/** GroupHash^P(D, M); domain D is the ASCII personalization, e.g. "z.cash:SinsemillaQ". */
export function groupHashPallas(domain: string, msg: Uint8Array): PallasPoint | undefined {
  const dst = utf8(`${domain}-pallas_XMD:BLAKE2b_SSWU_RO_`);
  const [u0, u1] = hashToField(msg, dst);
  // The isogeny is a group homomorphism, so mapping each point first and adding on Pallas
  // equals adding on iso-Pallas and mapping the sum.
  return pallasAdd(isoMap(mapToIsoPallas(u0)), isoMap(mapToIsoPallas(u1)));
}

/** Exposed for the map_to_curve test vectors (single field element, no hashing). */
export function mapToCurvePallas(u: bigint): PallasPoint {
  return isoMap(mapToIsoPallas(u));
}
