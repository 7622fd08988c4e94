import { batchInvert } from "./field-batch.ts";
import { JUBJUB_P } from "./jubjub.ts";
import { computeEmptyRoots, type MerkleHasher } from "./merkle-hasher.ts";
import { buildPedersenWindows, type PedersenWindow } from "./pedersen-tables.ts";

/**
 * The all-bigint form of the Sapling hasher, kept as the benchmark baseline and a test oracle for
 * the WebAssembly one in sapling-hasher.ts.
 *
 * Sapling MerkleCRH (spec "Sapling Merkle tree hash"): PedersenHash("Zcash_PH",
 * I2LEBSP₆(level) ‖ left₂₅₅ ‖ right₂₅₅), output the u-coordinate. 516 bits = 172 three-bit chunks
 * in segments of 63, 63, 46; each hash is the sum of 44 window-table points, accumulated in
 * extended coordinates (7 multiplications per addition) with one shared inversion per batch.
 */
const P = JUBJUB_P;
const BATCH = 1024;

/** Σ of the window points selected by message m, in extended coordinates (X, Y, Z). */
function accumulate(windows: readonly PedersenWindow[], m: bigint): [bigint, bigint, bigint] {
  // Identity: X = 0, Y = 1, Z = 1, T = 0 (T = XY/Z).
  let X = 0n;
  let Y = 1n;
  let Z = 1n;
  let T = 0n;
  for (const w of windows) {
    const v = Number((m >> w.shift) & w.mask);
    // madd-2008-hwcd-3 (a = −1) with the table point stored as (y − x, y + x, 2d·x·y).
    const A = ((Y - X) * w.yMinusX[v]!) % P;
    const B = ((Y + X) * w.yPlusX[v]!) % P;
    const C = (T * w.xy2d[v]!) % P;
    const D = 2n * Z;
    const E = B - A;
    const F = D - C;
    const G = D + C;
    const H = B + A;
    X = (E * F) % P;
    Y = (G * H) % P;
    T = (E * H) % P;
    Z = (F * G) % P;
  }
  return [X, Y, Z];
}

export function createSaplingBigintHasher(): MerkleHasher {
  let windows: PedersenWindow[] | undefined;
  let empty: bigint[] | undefined;
  const hashLevel = (level: number, lefts: readonly bigint[], rights: readonly bigint[]): bigint[] => {
    windows ??= buildPedersenWindows();
    const out: bigint[] = [];
    const prefix = BigInt(level);
    for (let start = 0; start < lefts.length; start += BATCH) {
      const xs: bigint[] = [];
      const zs: bigint[] = [];
      for (let h = start; h < Math.min(start + BATCH, lefts.length); h++) {
        const [X, , Z] = accumulate(windows, prefix | (lefts[h]! << 6n) | (rights[h]! << 261n));
        xs.push(X);
        zs.push(Z < 0n ? Z + P : Z);
      }
      const invs = batchInvert(zs, P);
      for (let i = 0; i < xs.length; i++) {
        const u = (xs[i]! * invs[i]!) % P;
        out.push(u < 0n ? u + P : u);
      }
    }
    return out;
  };
  return {
    pool: "sapling",
    hashLevel,
    emptyRoot(level) {
      // The uncommitted Sapling leaf is I2LEBSP₂₅₅(1) (spec: Uncommitted^Sapling).
      empty ??= computeEmptyRoots(1n, hashLevel);
      return empty[level]!;
    },
  };
}
