import { invert } from "@noble/curves/abstract/modular.js";
import { LightedgeError } from "../../proto/errors.ts";
import { batchInvert } from "./field-batch.ts";
import { computeEmptyRoots, hashPair, type MerkleHasher } from "./merkle-hasher.ts";
import { createNodeLimbs } from "./node-limbs.ts";
import { buildSinsemillaTables, CHUNKS, createOrchardBigintHasher } from "./orchard-hasher-bigint.ts";
import { PALLAS_P } from "./pallas.ts";
import { SINSEMILLA_K } from "./sinsemilla.ts";
import { orchardKernel } from "./wasm-kernels.ts";
import { orchardAffineKernel } from "./wasm-orchard-affine.ts";
import { createFieldKernel, type FieldKernel } from "./wasm-runtime.ts";

/**
 * Orchard MerkleCRH (spec "Orchard Merkle tree hash"): SinsemillaHash("z.cash:Orchard-MerkleCRH",
 * I2LEBSP₁₀(level) ‖ left₂₅₅ ‖ right₂₅₅), in the linear form of orchard-hasher-bigint.ts:
 * Acc = layerBase[level] + Σᵢ₌₁..₅₁ rows[i][mᵢ]. WebAssembly kernels sum the 52 affine table
 * points per hash (Montgomery arithmetic): small batches in Jacobian coordinates (11
 * multiplications per point, one shared inversion at the end gives x = X/Z²), large ones affine
 * with one batched inversion per window (6 multiplications per point; wasm-orchard-affine.ts).
 * A hash that meets an exceptional pair (equal x, probability ~2⁻²⁵⁰) is recomputed with the
 * complete formulas of the bigint hasher, so the results are identical to it.
 */
const P = PALLAS_P;
const BATCH = 1024;
const ENTRY_BYTES = 64; // affine (x, y)
const ROW_ENTRIES = 1 << SINSEMILLA_K;
const R = (1n << 256n) % P;
const R_INV = invert(R, P);
/** From this batch size on, the affine kernel's per-window inversion costs less than Jacobian's. */
const AFFINE_MIN = 96;

interface Layout {
  kernel: FieldKernel;
  /** Byte offset of layerBase[0] (32 entries) and of rows[1] (rows 1..51 follow, 1,024 each). */
  bases: number;
  rows: number;
  idx: number;
  out: number;
  den: number;
  pre: number;
  flags: number;
}

function buildLayout(): Layout {
  const { rows, layerBase } = buildSinsemillaTables();
  const idxBytes = BATCH * CHUNKS * 4;
  const entries = layerBase.length + (CHUNKS - 1) * ROW_ENTRIES;
  const scratch = BATCH * 64 + BATCH * 32 + (BATCH + 1) * 32 + BATCH * 4;
  const kernels = [orchardKernel(CHUNKS), orchardAffineKernel(CHUNKS)];
  const kernel = createFieldKernel(P, kernels, idxBytes + scratch + entries * ENTRY_BYTES);
  const idx = kernel.dataStart;
  const out = idx + idxBytes;
  const den = out + BATCH * 64;
  const pre = den + BATCH * 32;
  const flags = pre + (BATCH + 1) * 32;
  const bases = flags + BATCH * 4;
  let at = bases;
  for (const pt of [...layerBase, ...rows.slice(1).flat()]) {
    if (!pt) throw new LightedgeError("internal", "trees.orchard", "Sinsemilla table point is the identity");
    kernel.write(at, pt.x);
    kernel.write(at + 32, pt.y);
    at += ENTRY_BYTES;
  }
  kernel.toMontgomery(bases, entries * 2);
  return { kernel, bases, rows: bases + layerBase.length * ENTRY_BYTES, idx, out, den, pre, flags };
}

/** left ‖ right as 32-bit words (left 255 bits, right from bit 255). */
function packMessage(msg: Uint32Array, left: Uint32Array, right: Uint32Array) {
  for (let k = 0; k < 7; k++) msg[k] = left[k]!;
  msg[7] = left[7]! | (right[0]! << 31);
  for (let k = 1; k < 8; k++) msg[7 + k] = (right[k]! << 31) | (right[k - 1]! >>> 1);
  msg[15] = right[7]! >>> 1;
}

interface BatchResult {
  xs: bigint[];
  /** Hashes (batch indices) that met an exceptional pair; their xs entries are meaningless. */
  exceptional: number[];
}

function jacobianXs({ kernel, idx, out }: Layout, n: number): BatchResult {
  kernel.fn("hash")(idx, out, n);
  const xs: bigint[] = [];
  const zs: bigint[] = [];
  const exceptional: number[] = [];
  for (let h = 0; h < n; h++) {
    const z = kernel.read(out + 64 * h + 32);
    if (z === 0n) exceptional.push(h);
    xs.push(kernel.read(out + 64 * h));
    zs.push(z === 0n ? 1n : z);
  }
  // X·R / (Z·R)² = (X/Z²)/R, so one more factor R gives the affine x.
  const invs = batchInvert(zs, P, kernel.invert);
  return { xs: xs.map((x, h) => (((((invs[h]! * invs[h]!) % P) * x) % P) * R) % P), exceptional };
}

function affineXs({ kernel, idx, out, den, pre, flags }: Layout, n: number): BatchResult {
  kernel.u32.fill(0, flags >> 2, (flags >> 2) + n);
  kernel.fn("hashAffine")(idx, out, n, den, pre, flags);
  const exceptional: number[] = [];
  const xs: bigint[] = [];
  for (let h = 0; h < n; h++) {
    if (kernel.u32[(flags >> 2) + h]) exceptional.push(h);
    xs.push((kernel.read(out + 64 * h) * R_INV) % P); // out of Montgomery form
  }
  return { xs, exceptional };
}

export function createOrchardHasher(): MerkleHasher {
  let layout: Layout | undefined;
  let complete: MerkleHasher | undefined;
  let empty: bigint[] | undefined;
  const msg = new Uint32Array(17);
  const limbs = createNodeLimbs();
  const hashLevel = (level: number, lefts: readonly bigint[], rights: readonly bigint[]): bigint[] => {
    layout ??= buildLayout();
    const { kernel, bases, rows, idx } = layout;
    const result: bigint[] = [];
    for (let start = 0; start < lefts.length; start += BATCH) {
      const n = Math.min(BATCH, lefts.length - start);
      let slot = idx >> 2;
      for (let h = 0; h < n; h++) {
        limbs.load(lefts[start + h]!, rights[start + h]!);
        packMessage(msg, limbs.left, limbs.right);
        kernel.u32[slot++] = bases + level * ENTRY_BYTES;
        for (let i = 1; i < CHUNKS; i++) {
          const shift = SINSEMILLA_K * (i - 1);
          const word = shift >>> 5;
          const off = shift & 31;
          const bits = off === 0 ? msg[word]! : (msg[word]! >>> off) | (msg[word + 1]! << (32 - off));
          kernel.u32[slot++] = rows + ((i - 1) * ROW_ENTRIES + (bits & (ROW_ENTRIES - 1))) * ENTRY_BYTES;
        }
      }
      const { xs, exceptional } = n >= AFFINE_MIN ? affineXs(layout, n) : jacobianXs(layout, n);
      for (const x of xs) result.push(x);
      for (const h of exceptional) {
        complete ??= createOrchardBigintHasher();
        result[start + h] = hashPair(complete, level, lefts[start + h]!, rights[start + h]!);
      }
    }
    return result;
  };
  return {
    pool: "orchard",
    hashLevel,
    emptyRoot(level) {
      empty ??= computeEmptyRoots(2n, hashLevel);
      return empty[level]!;
    },
  };
}
