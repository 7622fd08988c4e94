import { LightedgeError } from "../../proto/errors.ts";
import { buildModule, type WasmFunction } from "./wasm-emit.ts";
import { fieldFunctions } from "./wasm-field.ts";
import { ONE_SLOT, SCRATCH_END } from "./wasm-kernels.ts";

/**
 * One instantiated kernel module for a prime field: the field functions, a hash kernel, and
 * memory of a fixed size (never grown, so the typed views stay valid). Field elements cross the
 * boundary as bigints: `write` stores plain limbs, `toMontgomery` converts stored elements in
 * place, `read` returns stored limbs as a bigint (still in Montgomery form if they were).
 */
export interface FieldKernel {
  readonly p: bigint;
  /** First free byte after the scratch slots (64-byte aligned). */
  readonly dataStart: number;
  readonly u32: Uint32Array;
  /** An exported function by name: mul/add/sub/inv (r, a, b) or a kernel (offsets, counts). */
  fn(name: string): (...args: number[]) => void;
  write(ptr: number, v: bigint): void;
  read(ptr: number): bigint;
  toMontgomery(ptr: number, count: number): void;
  /** v⁻¹ mod p for plain (non-Montgomery) v ≠ 0, by the module's Fermat inversion. */
  invert(v: bigint): bigint;
}

const R2_SLOT = SCRATCH_END;
const PLAIN_ONE = SCRATCH_END + 32;
const INV_IN = SCRATCH_END + 64;
const INV_OUT = SCRATCH_END + 96;

export function createFieldKernel(p: bigint, kernels: readonly WasmFunction[], bytes: number): FieldKernel {
  const dataStart = SCRATCH_END + 128;
  const pages = Math.ceil((dataStart + bytes) / 65536);
  const module = new WebAssembly.Module(buildModule([...fieldFunctions(p), ...kernels], pages));
  const ex = new WebAssembly.Instance(module).exports as Record<string, unknown> & {
    memory: WebAssembly.Memory;
    mul(r: number, a: number, b: number): void;
    inv(r: number, a: number): void;
  };
  const u64 = new BigUint64Array(ex.memory.buffer);
  const write = (ptr: number, v: bigint) => {
    for (let k = 0; k < 4; k++) u64[(ptr >> 3) + k] = BigInt.asUintN(64, v >> BigInt(64 * k));
  };
  const read = (ptr: number) => {
    const i = ptr >> 3;
    return (((((u64[i + 3]! << 64n) | u64[i + 2]!) << 64n) | u64[i + 1]!) << 64n) | u64[i]!;
  };
  const R = (1n << 256n) % p;
  write(ONE_SLOT, R);
  write(R2_SLOT, (R * R) % p);
  write(PLAIN_ONE, 1n);
  return {
    p,
    dataStart,
    u32: new Uint32Array(ex.memory.buffer),
    fn(name) {
      const f = ex[name];
      if (typeof f !== "function") throw new LightedgeError("internal", "trees.wasm", `no kernel ${name}`);
      return f as (...args: number[]) => void;
    },
    write,
    read,
    toMontgomery(ptr, count) {
      // mont(v, R²) = v·R² / R = v·R.
      for (let k = 0; k < count; k++) ex.mul(ptr + 32 * k, ptr + 32 * k, R2_SLOT);
    },
    invert(v) {
      write(INV_IN, v);
      ex.mul(INV_IN, INV_IN, R2_SLOT); // v·R
      ex.inv(INV_OUT, INV_IN); // v⁻¹·R
      ex.mul(INV_OUT, INV_OUT, PLAIN_ONE); // v⁻¹
      return read(INV_OUT);
    },
  };
}
