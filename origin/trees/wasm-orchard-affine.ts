import { createCode } from "./wasm-emit.ts";
import { FIELD_ADD, FIELD_INV, FIELD_MUL, FIELD_SUB } from "./wasm-field.ts";
import { ONE_SLOT, type Operand, op, slot, ZERO_SLOT } from "./wasm-kernels.ts";

/**
 * Orchard kernel for large batches: the same Σ of 52 affine table points per hash as
 * orchardKernel, but kept affine, one window at a time across all n hashes, with the chord
 * slopes' denominators inverted together (Montgomery's trick): 6 multiplications per addition
 * instead of 11, plus one inversion per window shared by the batch, and the result is affine.
 * Params: idx (52 u32 entry offsets per hash), acc (n × (x, y) out), n ≥ 1, den and pre
 * (scratch, n × 32 and (n + 1) × 32 bytes), flags (n u32, set to 1 where a pair had equal x:
 * the caller recomputes those hashes with complete formulas).
 */
const [IDX, ACC, N, DEN, PRE, FLAGS] = [0, 1, 2, 3, 4, 5];
const [STEP, COUNT, T, A, D, Q, F] = [6, 7, 8, 9, 10, 11, 12]; // i32 locals
const [INV, IND, LAMBDA, X3, TMP] = [0, 1, 2, 3, 4].map((k) => slot(k)) as [
  number,
  number,
  number,
  number,
  number,
];

export function orchardAffineKernel(windows: number) {
  const c = createCode();
  const stride = 4 * windows;
  const at = (local: number, off = 0): Operand => [local, off];
  const bump = (local: number, by: number) => c.get(local).i32(by).i32Add().set(local);
  // acc_h = first table point of hash h; pre[0] = 1.
  op(c, FIELD_ADD, at(PRE), ONE_SLOT, ZERO_SLOT);
  c.get(IDX).set(Q).get(ACC).set(A).get(N).set(COUNT);
  c.loop(() => {
    c.get(Q).i32Load(0).set(T);
    op(c, FIELD_ADD, at(A), at(T), ZERO_SLOT);
    op(c, FIELD_ADD, at(A, 32), at(T, 32), ZERO_SLOT);
    bump(Q, stride);
    bump(A, 64);
    c.get(COUNT).i32(-1).i32Add().tee(COUNT);
  });
  c.i32(4).set(STEP);
  c.loop(() => {
    // Pass 1: den_h = x_T − x_acc (1 where zero, flagged); pre[h + 1] = pre[h]·den_h.
    c.get(IDX).get(STEP).i32Add().set(Q).get(ACC).set(A).get(DEN).set(D).get(FLAGS).set(F);
    c.get(PRE).set(T).get(N).set(COUNT);
    c.loop(() => {
      c.get(T).i32(32).i32Add().set(T); // T walks pre[h + 1]; the entry pointer is read inline
      c.get(D).get(Q).i32Load(0).get(A).call(FIELD_SUB);
      c.get(D).i64Load(0).get(D).i64Load(8).i64Or().get(D).i64Load(16).i64Or().get(D).i64Load(24).i64Or();
      c.i64Eqz().ifThen(() => {
        c.get(F).i32(1).i32Store(0);
        op(c, FIELD_ADD, at(D), ONE_SLOT, ZERO_SLOT);
      });
      op(c, FIELD_MUL, at(T), at(T, -32), at(D));
      bump(Q, stride);
      bump(A, 64);
      bump(D, 32);
      bump(F, 4);
      c.get(COUNT).i32(-1).i32Add().tee(COUNT);
    });
    c.i32(INV).get(T).call(FIELD_INV);
    // Pass 2, last hash first: 1/den_h = inv·pre[h]; inv ← inv·den_h; then the chord addition.
    c.get(N).set(COUNT);
    c.loop(() => {
      bump(Q, -stride);
      bump(A, -64);
      bump(D, -32);
      bump(T, -32);
      c.get(Q).i32Load(0).set(F); // F: this hash's table entry
      op(c, FIELD_MUL, IND, INV, at(T));
      op(c, FIELD_MUL, INV, INV, at(D));
      op(c, FIELD_SUB, TMP, at(F, 32), at(A, 32));
      op(c, FIELD_MUL, LAMBDA, TMP, IND);
      op(c, FIELD_MUL, TMP, LAMBDA, LAMBDA);
      op(c, FIELD_SUB, TMP, TMP, at(A));
      op(c, FIELD_SUB, X3, TMP, at(F));
      op(c, FIELD_SUB, TMP, at(A), X3);
      op(c, FIELD_MUL, TMP, LAMBDA, TMP);
      op(c, FIELD_SUB, at(A, 32), TMP, at(A, 32));
      op(c, FIELD_ADD, at(A), X3, ZERO_SLOT);
      c.get(COUNT).i32(-1).i32Add().tee(COUNT);
    });
    bump(STEP, 4);
    c.get(STEP).i32(stride).i32Sub(); // nonzero while windows remain
  });
  return { name: "hashAffine", params: 6, i32Locals: 7, body: c.bytes };
}
