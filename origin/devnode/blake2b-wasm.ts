/**
 * BLAKE2b-256 with a 16-byte personalization (RFC 7693; every ZIP 244 node) for the dev node's
 * generator. The compression function is WebAssembly emitted below (native i64 add/xor/rotr,
 * fully unrolled): ZIP 244 txids dominated synthetic block generation with the pure-JS hash
 * (~5 µs per 128-byte block on this 2-core machine; bench/devnode-getblock.ts). origin/chain
 * keeps @noble/hashes; blake2b-wasm.test.ts checks both agree.
 */

const IV = [
  0x6a09e667f3bcc908n,
  0xbb67ae8584caa73bn,
  0x3c6ef372fe94f82bn,
  0xa54ff53a5f1d36f1n,
  0x510e527fade682d1n,
  0x9b05688c2b3e6c1fn,
  0x1f83d9abfb41bd6bn,
  0x5be0cd19137e2179n,
];

const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

// Memory layout: h (8 × u64) at 0, the message block (128 bytes) at 64.
const H = 0;
const M = 64;

const op = {
  get: 0x20,
  set: 0x21,
  i32const: 0x41,
  i64const: 0x42,
  load: 0x29,
  store: 0x37,
  add: 0x7c,
  xor: 0x85,
  rotr: 0x8a,
  extendU: 0xad,
  select: 0x1b,
  end: 0x0b,
};

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(v: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}

/** compress(t: i32 byte count, last: i32): h ← F(h, m, t, last). Locals: v0..15 = 2.., m0..15 = 18... */
function compressBody(): number[] {
  const c: number[] = [];
  const v = (i: number) => 2 + i;
  const m = (i: number) => 18 + i;
  const get = (l: number) => c.push(op.get, ...uleb(l));
  const set = (l: number) => c.push(op.set, ...uleb(l));
  const i64 = (x: bigint) => c.push(op.i64const, ...sleb(BigInt.asIntN(64, x)));
  const load = (offset: number) => c.push(op.i32const, 0, op.load, 3, ...uleb(offset));
  for (let i = 0; i < 8; i++) {
    load(H + 8 * i);
    set(v(i));
    i64(IV[i]!);
    set(v(i + 8));
  }
  for (let i = 0; i < 16; i++) {
    load(M + 8 * i);
    set(m(i));
  }
  get(v(12));
  get(0);
  c.push(op.extendU, op.xor);
  set(v(12));
  get(v(14)); // v14 ^= last ? ~0 : 0
  i64(-1n);
  i64(0n);
  get(1);
  c.push(op.select, op.xor);
  set(v(14));
  const addTo = (a: number, b: number) => {
    get(a);
    get(b);
    c.push(op.add);
    set(a);
  };
  const xorRot = (d: number, a: number, r: number) => {
    get(d);
    get(a);
    c.push(op.xor);
    i64(BigInt(r));
    c.push(op.rotr);
    set(d);
  };
  const g = (a: number, b: number, cc: number, d: number, x: number, y: number) => {
    addTo(v(a), v(b));
    addTo(v(a), m(x));
    xorRot(v(d), v(a), 32);
    addTo(v(cc), v(d));
    xorRot(v(b), v(cc), 24);
    addTo(v(a), v(b));
    addTo(v(a), m(y));
    xorRot(v(d), v(a), 16);
    addTo(v(cc), v(d));
    xorRot(v(b), v(cc), 63);
  };
  for (let r = 0; r < 12; r++) {
    const s = SIGMA[r % 10]!;
    g(0, 4, 8, 12, s[0]!, s[1]!);
    g(1, 5, 9, 13, s[2]!, s[3]!);
    g(2, 6, 10, 14, s[4]!, s[5]!);
    g(3, 7, 11, 15, s[6]!, s[7]!);
    g(0, 5, 10, 15, s[8]!, s[9]!);
    g(1, 6, 11, 12, s[10]!, s[11]!);
    g(2, 7, 8, 13, s[12]!, s[13]!);
    g(3, 4, 9, 14, s[14]!, s[15]!);
  }
  for (let i = 0; i < 8; i++) {
    c.push(op.i32const, 0);
    load(H + 8 * i);
    get(v(i));
    c.push(op.xor);
    get(v(i + 8));
    c.push(op.xor, op.store, 3, ...uleb(H + 8 * i));
  }
  c.push(op.end);
  const locals = [1, ...uleb(32), 0x7e]; // one run of 32 i64 locals
  return [...uleb(locals.length + c.length), ...locals, ...c];
}

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

function moduleBytes(): Uint8Array<ArrayBuffer> {
  const name = [...new TextEncoder().encode("compress")];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 2, 0x7f, 0x7f, 0]), // type: (i32, i32) -> ()
    ...section(3, [1, 0]),
    ...section(5, [1, 0, 1]), // one memory, min 1 page
    ...section(7, [2, 3, ...[..."mem"].map((ch) => ch.charCodeAt(0)), 2, 0, name.length, ...name, 0, 0]),
    ...section(10, [1, ...compressBody()]),
  ]);
}

const instance = new WebAssembly.Instance(new WebAssembly.Module(moduleBytes()));
const compress = instance.exports.compress as (t: number, last: number) => void;
const memory = new Uint8Array((instance.exports.mem as WebAssembly.Memory).buffer);
const state = new DataView(memory.buffer);

const initial = new WeakMap<Uint8Array, Uint8Array>();

/** h0 for this personalization (memoized per personalization array: callers reuse theirs). */
function initialState(personalization: Uint8Array): Uint8Array {
  let h = initial.get(personalization);
  if (h === undefined) {
    for (let i = 0; i < 8; i++) state.setBigUint64(H + 8 * i, IV[i]!, true);
    state.setUint32(H, state.getUint32(H, true) ^ 0x01010020, true); // digest 32, key 0, fanout 1, depth 1
    for (let i = 0; i < 16; i++) memory[H + 48 + i]! ^= personalization[i]!;
    h = memory.slice(H, H + 64);
    initial.set(personalization, h);
  }
  return h;
}

/** BLAKE2b-256 of the concatenation of `parts` under a 16-byte personalization (no key). */
export function blake2b256(personalization: Uint8Array, parts: readonly Uint8Array[]): Uint8Array {
  memory.set(initialState(personalization), H);
  let fill = 0;
  let total = 0;
  for (const part of parts) {
    for (let i = 0; i < part.length; ) {
      // Compress only when more input follows: the final block must carry the last flag.
      if (fill === 128) {
        total += 128;
        compress(total, 0);
        fill = 0;
      }
      const take = Math.min(128 - fill, part.length - i);
      memory.set(part.subarray(i, i + take), M + fill);
      fill += take;
      i += take;
    }
  }
  memory.fill(0, M + fill, M + 128);
  compress(total + fill, 1);
  return memory.slice(H, H + 32);
}
