/**
 * A minimal WebAssembly binary writer (core spec 1.0 encoding): enough to emit the field and curve
 * kernels in wasm-field.ts / wasm-kernels.ts without a toolchain. Every function takes i32
 * parameters (pointers into the module's own memory) and returns nothing; locals are i64 unless
 * declared as i32. Instructions are written through `createCode`, one method per opcode used.
 */
export interface WasmFunction {
  name?: string; // exported under this name when set
  params: number;
  i32Locals?: number;
  i64Locals?: number;
  body: Uint8Array | number[];
}

const I32 = 0x7f;
const I64 = 0x7e;

export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

export function sleb(v: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    const done = (v === 0n && (byte & 0x40) === 0) || (v === -1n && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const section = (id: number, items: number[][]) => {
  const body = vec(items);
  return [id, ...uleb(body.length), ...body];
};
const name = (s: string) => [...uleb(s.length), ...new TextEncoder().encode(s)];

/** A module with one exported memory ("memory", `pages` × 64 KiB) and the given functions. */
export function buildModule(funcs: readonly WasmFunction[], pages: number): Uint8Array<ArrayBuffer> {
  const arities = [...new Set(funcs.map((f) => f.params))];
  const types = arities.map((n) => [0x60, ...uleb(n), ...Array<number>(n).fill(I32), 0]);
  const code = funcs.map((f) => {
    const locals: number[][] = [];
    if (f.i32Locals) locals.push([...uleb(f.i32Locals), I32]);
    if (f.i64Locals) locals.push([...uleb(f.i64Locals), I64]);
    const body = [...vec(locals), ...f.body, 0x0b];
    return [...uleb(body.length), ...body];
  });
  const exports = [[...name("memory"), 0x02, 0]];
  funcs.forEach((f, i) => {
    if (f.name) exports.push([...name(f.name), 0x00, ...uleb(i)]);
  });
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, types),
    ...section(
      3,
      funcs.map((f) => uleb(arities.indexOf(f.params))),
    ),
    ...section(5, [[0x00, ...uleb(pages)]]),
    ...section(7, exports),
    ...section(10, code),
  ]);
}

/** Instruction writer; method names follow the wasm text format. */
export function createCode() {
  const bytes: number[] = [];
  const w = (...b: number[]) => {
    bytes.push(...b);
    return c;
  };
  const c = {
    bytes,
    get: (i: number) => w(0x20, ...uleb(i)),
    set: (i: number) => w(0x21, ...uleb(i)),
    tee: (i: number) => w(0x22, ...uleb(i)),
    i32: (v: number) => w(0x41, ...sleb(BigInt(v | 0))),
    i64: (v: bigint) => w(0x42, ...sleb(BigInt.asIntN(64, v))),
    call: (f: number) => w(0x10, ...uleb(f)),
    i32Add: () => w(0x6a),
    i32Sub: () => w(0x6b),
    i32Store: (offset: number) => w(0x36, 2, ...uleb(offset)),
    i32Mul: () => w(0x6c),
    i32Load: (offset: number) => w(0x28, 2, ...uleb(offset)),
    i32LtU: () => w(0x49),
    i32WrapI64: () => w(0xa7),
    i64Add: () => w(0x7c),
    i64Sub: () => w(0x7d),
    i64Mul: () => w(0x7e),
    i64And: () => w(0x83),
    i64Or: () => w(0x84),
    i64ShrU: () => w(0x88),
    i64Load: (offset: number) => w(0x29, 3, ...uleb(offset)),
    i64Eqz: () => w(0x50),
    i64Load32U: (offset: number) => w(0x35, 2, ...uleb(offset)),
    i64Store32: (offset: number) => w(0x3e, 2, ...uleb(offset)),
    i64Store: (offset: number) => w(0x37, 3, ...uleb(offset)),
    select: () => w(0x1b),
    /** if … end on the i32 condition on the stack. */
    ifThen: (body: () => void) => {
      w(0x04, 0x40);
      body();
      return w(0x0b);
    },
    /** loop … br_if 0 end: the body runs while the condition it leaves is nonzero. */
    loop: (body: () => void) => {
      w(0x03, 0x40);
      body();
      return w(0x0d, 0, 0x0b);
    },
  };
  return c;
}
