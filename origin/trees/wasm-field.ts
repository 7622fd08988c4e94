import { createCode, type WasmFunction } from "./wasm-emit.ts";

/**
 * Prime-field arithmetic for 255-bit moduli as WebAssembly: elements are 8 little-endian 32-bit
 * limbs in memory, in Montgomery form (a·R, R = 2²⁵⁶). Each 32×32-bit product fits an i64 with
 * room for two 32-bit addends, so CIOS Montgomery multiplication needs no 128-bit arithmetic.
 * The "no-carry" CIOS variant (one carry word fewer) is valid because the top limb of both
 * moduli used here (Jubjub's base field, Pallas' base field) is below 2³¹ − 1.
 * Functions (r, a, b are pointers; r may alias a or b): 0 = mul, 1 = add, 2 = sub, 3 = inv.
 */
export const FIELD_MUL = 0;
export const FIELD_ADD = 1;
export const FIELD_SUB = 2;
export const FIELD_INV = 3;
const LIMBS = 8;
const MASK = 0xffffffffn;

export const limbsOf = (v: bigint) => Array.from({ length: LIMBS }, (_, j) => (v >> BigInt(32 * j)) & MASK);

/** Locals: params r=0, a=1, b=2; then i64 a0..a7 (3..10), t0..t7 (11..18), scratch (19..). */
const A0 = 3;
const T0 = 11;
const CARRY = 19;
const CARRY2 = 20;
const M = 21;
const BI = 22;
const S = 23;
const D0 = 24; // d0..d7 for the conditional subtraction

type Code = ReturnType<typeof createCode>;

/** s = (stack value); hi → carry local, lo → dest local. */
function split(c: Code, carry: number, dest: number) {
  c.tee(S).i64(32n).i64ShrU().set(carry);
  c.get(S).i64(MASK).i64And().set(dest);
}

/** Stores t (locals T0..) to r, minus p when t ≥ p (t < 2p on entry). */
function reduceStore(c: Code, p: readonly bigint[]) {
  c.i64(0n).set(CARRY);
  for (let j = 0; j < LIMBS; j++) {
    c.get(T0 + j)
      .i64(p[j]!)
      .i64Sub()
      .get(CARRY)
      .i64Sub()
      .tee(S);
    c.i64(63n).i64ShrU().set(CARRY); // borrow
    c.get(S)
      .i64(MASK)
      .i64And()
      .set(D0 + j);
  }
  for (let j = 0; j < LIMBS; j++) {
    // borrow set → t < p → keep t.
    c.get(0)
      .get(T0 + j)
      .get(D0 + j)
      .get(CARRY)
      .i32WrapI64()
      .select()
      .i64Store32(4 * j);
  }
}

function mul(p: readonly bigint[], pInvNeg: bigint): WasmFunction {
  const c = createCode();
  for (let j = 0; j < LIMBS; j++)
    c.get(1)
      .i64Load32U(4 * j)
      .set(A0 + j);
  for (let i = 0; i < LIMBS; i++) {
    c.get(2)
      .i64Load32U(4 * i)
      .set(BI);
    // (A, t0) = t0 + a0·bᵢ; m = t0·(−p⁻¹) mod 2³²; C = (t0 + m·p0) >> 32
    c.get(T0).get(A0).get(BI).i64Mul().i64Add();
    split(c, CARRY, T0);
    c.get(T0).i64(pInvNeg).i64Mul().i64(MASK).i64And().set(M);
    c.get(T0).get(M).i64(p[0]!).i64Mul().i64Add().i64(32n).i64ShrU().set(CARRY2);
    for (let j = 1; j < LIMBS; j++) {
      c.get(T0 + j)
        .get(A0 + j)
        .get(BI)
        .i64Mul()
        .i64Add()
        .get(CARRY)
        .i64Add();
      split(c, CARRY, T0 + j);
      c.get(T0 + j)
        .get(M)
        .i64(p[j]!)
        .i64Mul()
        .i64Add()
        .get(CARRY2)
        .i64Add();
      split(c, CARRY2, T0 + j - 1);
    }
    c.get(CARRY2)
      .get(CARRY)
      .i64Add()
      .set(T0 + LIMBS - 1);
  }
  reduceStore(c, p);
  return { params: 3, i64Locals: D0 + LIMBS - 3, body: c.bytes };
}

function add(p: readonly bigint[]): WasmFunction {
  const c = createCode();
  c.i64(0n).set(CARRY);
  for (let j = 0; j < LIMBS; j++) {
    c.get(1)
      .i64Load32U(4 * j)
      .get(2)
      .i64Load32U(4 * j)
      .i64Add()
      .get(CARRY)
      .i64Add();
    split(c, CARRY, T0 + j);
  }
  reduceStore(c, p);
  return { params: 3, i64Locals: D0 + LIMBS - 3, body: c.bytes };
}

function sub(p: readonly bigint[]): WasmFunction {
  const c = createCode();
  c.i64(0n).set(CARRY);
  for (let j = 0; j < LIMBS; j++) {
    c.get(1)
      .i64Load32U(4 * j)
      .get(2)
      .i64Load32U(4 * j)
      .i64Sub()
      .get(CARRY)
      .i64Sub()
      .tee(S);
    c.i64(63n).i64ShrU().set(CARRY);
    c.get(S)
      .i64(MASK)
      .i64And()
      .set(T0 + j);
  }
  // On borrow add p back: p & (0 − borrow), branch-free.
  c.i64(0n).get(CARRY).i64Sub().set(M);
  c.i64(0n).set(CARRY);
  for (let j = 0; j < LIMBS; j++) {
    c.get(T0 + j)
      .get(M)
      .i64(p[j]!)
      .i64And()
      .i64Add()
      .get(CARRY)
      .i64Add();
    c.tee(S).i64(32n).i64ShrU().set(CARRY);
    c.get(0)
      .get(S)
      .i64Store32(4 * j);
  }
  return { params: 3, i64Locals: D0 + LIMBS - 3, body: c.bytes };
}

/**
 * r = a^(p−2) = a⁻¹ (Fermat), square-and-multiply over the fixed exponent, in Montgomery form:
 * ~400 multiplications, about half the time of a bigint extended-Euclid inversion. r ≠ a.
 */
function inv(p: bigint): WasmFunction {
  const c = createCode();
  const e = p - 2n;
  const call = (a: number, b: number) => c.get(0).get(a).get(b).call(FIELD_MUL);
  const top = e.toString(2).length - 1;
  call(1, 1); // the top bit gives r = a, and the next bit's squaring r = a²
  for (let bit = top - 1; bit >= 0; bit--) {
    if (bit < top - 1) call(0, 0);
    if ((e >> BigInt(bit)) & 1n) call(0, 1);
  }
  return { params: 2, body: c.bytes };
}

/** The four field functions for modulus p, to be placed first in a module (indices 0–2). */
export function fieldFunctions(p: bigint): WasmFunction[] {
  const limbs = limbsOf(p);
  // −p⁻¹ mod 2³² by Newton iteration (p is odd).
  let pInv = 1n;
  for (let k = 0; k < 5; k++) pInv = (pInv * (2n - ((p * pInv) & MASK))) & MASK;
  const pInvNeg = (1n << 32n) - pInv;
  return [
    { ...mul(limbs, pInvNeg), name: "mul" },
    { ...add(limbs), name: "add" },
    { ...sub(limbs), name: "sub" },
    { ...inv(p), name: "inv" },
  ];
}
