import type { PoolSet } from "../../proto/pools.ts";

/** What a projection keeps, as the fast encoder sees it. */
export interface Shape {
  readonly pools: PoolSet;
  /** Keep only nullifiers (spends' nf, actions' nullifier) and zero the tree sizes. */
  readonly nullifiers: boolean;
  /** Drop txs with no component in `pools` (GetBlockRange); GetBlock keeps every tx. */
  readonly dropEmpty: boolean;
}

export function varint32Size(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/** Size of a uint64 varint given as unsigned 32-bit halves. */
export function varint64Size(lo: number, hi: number): number {
  if (hi === 0) return varint32Size(lo);
  return Math.ceil((64 - Math.clz32(hi)) / 7);
}

export function writeVarint32(out: Uint8Array, p: number, v: number): number {
  while (v > 0x7f) {
    out[p++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  out[p++] = v;
  return p;
}

export function writeVarint64(out: Uint8Array, p: number, lo: number, hi: number): number {
  while (hi !== 0 || lo > 0x7f) {
    out[p++] = (lo & 0x7f) | 0x80;
    lo = ((lo >>> 7) | (hi << 25)) >>> 0;
    hi >>>= 7;
  }
  out[p++] = lo;
  return p;
}

/** Writes tag + 32-byte length + 32 bytes of a fixed-size bytes field. */
export function writeBytesField(out: Uint8Array, p: number, tag: number, bytes: Uint8Array): number {
  out[p] = tag;
  out[p + 1] = bytes.length;
  out.set(bytes, p + 2);
  return p + 2 + bytes.length;
}
