import { createCode } from "./wasm-emit.ts";
import { FIELD_ADD, FIELD_MUL, FIELD_SUB } from "./wasm-field.ts";

/**
 * The hash kernels: each sums one precomputed table point per window for `n` hashes, reading
 * the table entries' byte offsets from `idx` (one u32 per window per hash) and writing the
 * projective result (X, Z) of each hash to `out` (64 bytes per hash). The caller turns X, Z into
 * the affine output with one batched inversion. Scratch field slots live at fixed low addresses.
 */
export const SLOT_BYTES = 32;
export const ZERO_SLOT = 0;
export const ONE_SLOT = 32; // Montgomery 1 = R mod p
export const slot = (k: number) => 64 + k * SLOT_BYTES;
export const SCRATCH_END = slot(16);
export type Code = ReturnType<typeof createCode>;
const IDX = 0;
const OUT = 1;
const N = 2;
const ENTRY = 3; // i32 local: the current table entry's byte offset

/** A field operand: a fixed address, or [local, offset] for a table entry or output address. */
export type Operand = number | [number, number];

export const op = (c: Code, f: number, r: Operand, a: Operand, b: Operand) => {
  for (const x of [r, a, b]) {
    if (typeof x === "number") c.i32(x);
    else c.get(x[0]).i32(x[1]).i32Add(); // entry + field offset
  }
  c.call(f);
};

/** Kernel frame: loop over hashes, with per-hash `init`, `windows` steps and the (X, Z) output. */
function kernel(windows: number, init: (c: Code) => void, step: (c: Code) => void, X: number, Z: number) {
  const c = createCode();
  c.loop(() => {
    init(c);
    for (let w = 0; w < windows; w++) {
      c.get(IDX)
        .i32Load(4 * w)
        .set(ENTRY);
      step(c);
    }
    op(c, FIELD_ADD, [OUT, 0], X, ZERO_SLOT);
    op(c, FIELD_ADD, [OUT, 32], Z, ZERO_SLOT);
    c.get(IDX)
      .i32(4 * windows)
      .i32Add()
      .set(IDX);
    c.get(OUT).i32(64).i32Add().set(OUT);
    c.get(N).i32(-1).i32Add().tee(N);
  });
  return { params: 3, i32Locals: 1, body: c.bytes };
}

/**
 * Sapling: Σ of Jubjub window points in extended twisted Edwards coordinates (X, Y, Z, T), each
 * table entry stored as (y − x, y + x, 2d·x·y) for the mixed addition madd-2008-hwcd-3 (a = −1):
 * 8 multiplications per window, complete on Jubjub (d is not a square).
 */
export function saplingKernel(windows: number) {
  const [X, Y, Z, T, A, B, C, D, E, F, G, H, t] = Array.from({ length: 13 }, (_, k) => slot(k));
  const e = (off: number): Operand => [ENTRY, off];
  const f = kernel(
    windows,
    (c) => {
      op(c, FIELD_ADD, X!, ZERO_SLOT, ZERO_SLOT);
      op(c, FIELD_ADD, Y!, ONE_SLOT, ZERO_SLOT);
      op(c, FIELD_ADD, Z!, ONE_SLOT, ZERO_SLOT);
      op(c, FIELD_ADD, T!, ZERO_SLOT, ZERO_SLOT);
    },
    (c) => {
      op(c, FIELD_SUB, t!, Y!, X!);
      op(c, FIELD_MUL, A!, t!, e(0));
      op(c, FIELD_ADD, t!, Y!, X!);
      op(c, FIELD_MUL, B!, t!, e(32));
      op(c, FIELD_MUL, C!, T!, e(64));
      op(c, FIELD_ADD, D!, Z!, Z!);
      op(c, FIELD_SUB, E!, B!, A!);
      op(c, FIELD_SUB, F!, D!, C!);
      op(c, FIELD_ADD, G!, D!, C!);
      op(c, FIELD_ADD, H!, B!, A!);
      op(c, FIELD_MUL, X!, E!, F!);
      op(c, FIELD_MUL, Y!, G!, H!);
      op(c, FIELD_MUL, T!, E!, H!);
      op(c, FIELD_MUL, Z!, F!, G!);
    },
    X!,
    Z!,
  );
  return { ...f, name: "hash" };
}

/**
 * Orchard: Σ of affine Pallas table points (x, y) into Jacobian (X, Y, Z), y² = x³ + 5, with
 * the mixed addition madd-2007-bl (11 multiplications). The first window's point starts the
 * accumulator. An exceptional pair (equal x: doubling or opposite points) makes H = 0 and so
 * Z = 0 for the rest of the hash; the caller recomputes such a hash with complete formulas.
 */
export function orchardKernel(windows: number) {
  const [X, Y, Z, ZZ, U, S, H, HH, I, J, r, V, t, u] = Array.from({ length: 14 }, (_, k) => slot(k));
  const e = (off: number): Operand => [ENTRY, off];
  const f = kernel(
    windows - 1,
    (c) => {
      c.get(IDX).i32Load(0).set(ENTRY);
      op(c, FIELD_ADD, X!, e(0), ZERO_SLOT);
      op(c, FIELD_ADD, Y!, e(32), ZERO_SLOT);
      op(c, FIELD_ADD, Z!, ONE_SLOT, ZERO_SLOT);
      c.get(IDX).i32(4).i32Add().set(IDX);
    },
    (c) => {
      op(c, FIELD_MUL, ZZ!, Z!, Z!);
      op(c, FIELD_MUL, U!, e(0), ZZ!);
      op(c, FIELD_MUL, t!, Z!, ZZ!);
      op(c, FIELD_MUL, S!, e(32), t!);
      op(c, FIELD_SUB, H!, U!, X!);
      op(c, FIELD_MUL, HH!, H!, H!);
      op(c, FIELD_ADD, I!, HH!, HH!);
      op(c, FIELD_ADD, I!, I!, I!);
      op(c, FIELD_MUL, J!, H!, I!);
      op(c, FIELD_SUB, t!, S!, Y!);
      op(c, FIELD_ADD, r!, t!, t!);
      op(c, FIELD_MUL, V!, X!, I!);
      // X3 = r² − J − 2V
      op(c, FIELD_MUL, t!, r!, r!);
      op(c, FIELD_SUB, t!, t!, J!);
      op(c, FIELD_ADD, u!, V!, V!);
      op(c, FIELD_SUB, X!, t!, u!);
      // Y3 = r(V − X3) − 2·Y1·J
      op(c, FIELD_SUB, t!, V!, X!);
      op(c, FIELD_MUL, t!, r!, t!);
      op(c, FIELD_MUL, u!, Y!, J!);
      op(c, FIELD_ADD, u!, u!, u!);
      op(c, FIELD_SUB, Y!, t!, u!);
      // Z3 = 2·Z1·H (= (Z1 + H)² − Z1Z1 − HH)
      op(c, FIELD_MUL, t!, Z!, H!);
      op(c, FIELD_ADD, Z!, t!, t!);
    },
    X!,
    Z!,
  );
  return { ...f, name: "hash" };
}
