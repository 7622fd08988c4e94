/**
 * Bytes, hex and byte order: the one module both runtimes use. Pure, no `node:` imports (the edge
 * bundles it). Byte order is part of each name (design.md): a `wire` hash is in internal order, as
 * protobuf fields and raw blocks carry it; a `display` hex is byte-reversed, as node RPCs and
 * explorers show hashes and txids (protocol.md §1.5).
 */
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { LightedgeError } from "./errors.ts";

/** Lowercase hex of bytes, in the order given. */
export const toHex: (bytes: Uint8Array) => string = bytesToHex;

const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Bytes of an even-length hex string, in the order given; anything else is `malformed` input. */
export function fromHex(hex: string, where = "hex"): Uint8Array {
  if (!HEX.test(hex)) throw new LightedgeError("malformed", where, `${where}: not a hex string`);
  return hexToBytes(hex);
}

/** Display hex of wire-order bytes (a hash or txid): reversed, as RPCs and explorers show it. */
export function displayHex(wire: Uint8Array): string {
  return bytesToHex(reversed(wire));
}

/** Wire-order bytes of a display hex of any even length (a txid, a hash). */
export function wireFromDisplayHex(hex: string, where = "hex"): Uint8Array {
  return reversed(fromHex(hex, where));
}

/** Wire-order bytes of a block hash given as 64 display hex characters (client input). */
export function wireHashOf(displayHash: string): Uint8Array {
  if (displayHash.length !== 64 || !HEX.test(displayHash)) {
    throw new LightedgeError("bad-request", "hash-hex", "a block hash is 64 hex characters");
  }
  return reversed(hexToBytes(displayHash));
}

/** A reversed copy (the input is left as it is). */
export function reversed(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = bytes[bytes.length - 1 - i]!;
  return out;
}

/** The parts one after another in one new buffer (one copy of each). */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Bytewise order (shorter first on a common prefix): how index levels sort their keys. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/**
 * Bump allocation of short-lived buffers: zeroed views into fresh slabs of `slabBytes`, never
 * reused. A fresh buffer of more than 64 bytes is an off-heap allocation (≈ 1 µs with its GC
 * bookkeeping), more than encoding a small message into it; for many small buffers that are
 * copied out and dropped together (a range's messages, a tree-state object's records) one slab
 * serves hundreds. A view keeps its whole slab alive: never for bytes that outlive the batch.
 */
export function slabAllocator(slabBytes = 1 << 20): (length: number) => Uint8Array {
  let slab = new Uint8Array(0);
  let used = 0;
  return (length) => {
    if (length > slab.length - used) {
      slab = new Uint8Array(Math.max(slabBytes, length));
      used = 0;
    }
    used += length;
    return slab.subarray(used - length, used);
  };
}

/** Equal length and bytes. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Bytewise order of `a[aAt … aAt + length)` and `b[bAt … bAt + length)`: negative, zero or
 * positive. Offsets instead of views, so a loop over packed entries allocates nothing.
 */
export function compareBytesAt(
  a: Uint8Array,
  aAt: number,
  b: Uint8Array,
  bAt: number,
  length: number,
): number {
  for (let i = 0; i < length; i++) {
    const d = a[aAt + i]! - b[bAt + i]!;
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * A big-endian u64 as a number: exact below 2^53 (byte offsets and lengths of stored objects), NaN
 * above, so a damaged field fails every comparison instead of becoming a wrong offset.
 */
export function getU64(view: DataView, at: number): number {
  const high = view.getUint32(at, false);
  return high < 0x20_0000 ? high * 2 ** 32 + view.getUint32(at + 4, false) : Number.NaN;
}

/** Writes a safe non-negative integer as a big-endian u64 (no BigInt: writers call it per entry). */
export function setU64(view: DataView, at: number, value: number): void {
  view.setUint32(at, Math.floor(value / 2 ** 32), false);
  view.setUint32(at + 4, value >>> 0, false);
}

/** 32 bytes little-endian → bigint (tree nodes are field elements encoded LE: the spec's LEOS2IP). */
export function leBytesToBigint(bytes: Uint8Array): bigint {
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]!);
  return v;
}

/** bigint → 32 bytes little-endian (I2LEOSP₂₅₆). */
export function bigintToLeBytes(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let x = v;
  for (let i = 0; i < 32; i++) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}
