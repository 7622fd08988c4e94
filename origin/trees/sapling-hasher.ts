import { batchInvert } from "./field-batch.ts";
import { JUBJUB_P } from "./jubjub.ts";
import { computeEmptyRoots, type MerkleHasher } from "./merkle-hasher.ts";
import { createNodeLimbs } from "./node-limbs.ts";
import { buildPedersenWindows } from "./pedersen-tables.ts";
import { saplingKernel } from "./wasm-kernels.ts";
import { createFieldKernel, type FieldKernel } from "./wasm-runtime.ts";

/**
 * Sapling MerkleCRH (spec "Sapling Merkle tree hash"): PedersenHash("Zcash_PH",
 * I2LEBSP₆(level) ‖ left₂₅₅ ‖ right₂₅₅), output the u-coordinate. 516 bits = 172 three-bit chunks
 * in segments of 63, 63, 46; each hash is the sum of 44 window-table points (pedersen-tables.ts),
 * summed by the WebAssembly kernel (wasm-kernels.ts) in extended coordinates with Montgomery
 * arithmetic, then made affine with one shared inversion per batch. The all-bigint form it
 * replaced is sapling-hasher-bigint.ts (kept as the benchmark baseline and a test oracle).
 */
const P = JUBJUB_P;
const BATCH = 1024;
const ENTRY_BYTES = 96; // (y − x, y + x, 2d·x·y)
const MSG_WORDS = 17; // 516 bits

interface Layout {
  kernel: FieldKernel;
  /** Per window: bit offset in the message, width in bits, byte offset of its table. */
  windows: { shift: number; bits: number; table: number }[];
  idx: number;
  out: number;
}

function buildLayout(): Layout {
  const tables = buildPedersenWindows();
  const entries = tables.reduce((n, w) => n + w.yMinusX.length, 0);
  const idxBytes = BATCH * tables.length * 4;
  const kernel = createFieldKernel(
    P,
    [saplingKernel(tables.length)],
    idxBytes + BATCH * 64 + entries * ENTRY_BYTES,
  );
  const idx = kernel.dataStart;
  const out = idx + idxBytes;
  let at = out + BATCH * 64;
  const windows = tables.map((w) => {
    const table = at;
    for (let v = 0; v < w.yMinusX.length; v++) {
      kernel.write(at, w.yMinusX[v]!);
      kernel.write(at + 32, w.yPlusX[v]!);
      kernel.write(at + 64, w.xy2d[v]!);
      at += ENTRY_BYTES;
    }
    return { shift: Number(w.shift), bits: Math.log2(w.yMinusX.length), table };
  });
  kernel.toMontgomery(out + BATCH * 64, entries * 3);
  return { kernel, windows, idx, out };
}

/** Writes I2LEBSP₆(level) ‖ left ‖ right as 32-bit words (left at bit 6, right at bit 261). */
function packMessage(msg: Uint32Array, level: number, left: Uint32Array, right: Uint32Array) {
  msg[0] = level | (left[0]! << 6);
  for (let k = 1; k < 8; k++) msg[k] = (left[k]! << 6) | (left[k - 1]! >>> 26);
  msg[8] = (left[7]! >>> 26) | (right[0]! << 5);
  for (let k = 1; k < 8; k++) msg[8 + k] = (right[k]! << 5) | (right[k - 1]! >>> 27);
  msg[16] = right[7]! >>> 27;
}

export function createSaplingHasher(): MerkleHasher {
  let layout: Layout | undefined;
  let empty: bigint[] | undefined;
  const msg = new Uint32Array(MSG_WORDS + 1);
  const limbs = createNodeLimbs();
  const hashLevel = (level: number, lefts: readonly bigint[], rights: readonly bigint[]): bigint[] => {
    layout ??= buildLayout();
    const { kernel, windows, idx, out } = layout;
    const result: bigint[] = [];
    for (let start = 0; start < lefts.length; start += BATCH) {
      const n = Math.min(BATCH, lefts.length - start);
      let slot = idx >> 2;
      for (let h = 0; h < n; h++) {
        limbs.load(lefts[start + h]!, rights[start + h]!);
        packMessage(msg, level, limbs.left, limbs.right);
        for (const w of windows) {
          const word = w.shift >>> 5;
          const off = w.shift & 31;
          const bits = off === 0 ? msg[word]! : (msg[word]! >>> off) | (msg[word + 1]! << (32 - off));
          kernel.u32[slot++] = w.table + (bits & ((1 << w.bits) - 1)) * ENTRY_BYTES;
        }
      }
      kernel.fn("hash")(idx, out, n);
      const xs: bigint[] = [];
      const zs: bigint[] = [];
      for (let h = 0; h < n; h++) {
        xs.push(kernel.read(out + 64 * h));
        zs.push(kernel.read(out + 64 * h + 32));
      }
      // X·R / (Z·R) = X/Z: the Montgomery factors cancel.
      const invs = batchInvert(zs, P, kernel.invert);
      for (let h = 0; h < n; h++) result.push((xs[h]! * invs[h]!) % P);
    }
    return result;
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
