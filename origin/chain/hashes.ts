import { hash } from "node:crypto";

/**
 * SHA256d (Bitcoin-style double SHA-256): block hashes, v1–v4 txids, merkle nodes. Node's native
 * one-shot SHA-256 is ~3× @noble/hashes on 2 KB inputs (measured), and this is the hot path.
 */
export function sha256d(data: Uint8Array): Uint8Array {
  const once = hash("sha256", data, "buffer");
  const twice = hash("sha256", once, "buffer");
  return new Uint8Array(twice.buffer, twice.byteOffset, 32);
}

const personalizations = new Map<string, Uint8Array>();

/** 16-byte personalization from an ASCII tag (ZIP 244 tags are exactly 16 characters). */
export function personal(tag: string): Uint8Array {
  let p = personalizations.get(tag);
  if (p === undefined) {
    p = new TextEncoder().encode(tag);
    if (p.length !== 16) throw new Error(`personalization "${tag}" is not 16 bytes`);
    personalizations.set(tag, p);
  }
  return p;
}

export { blake2b256 } from "./blake2b.ts";

const hexChars = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Hex of bytes in the order given. */
export function toHex(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += hexChars[bytes[i]!];
  return s;
}

/** Display hex (byte-reversed, as RPC and explorers show hashes) of a wire-order hash. */
export function displayHex(wire: Uint8Array): string {
  let s = "";
  for (let i = wire.length - 1; i >= 0; i--) s += hexChars[wire[i]!];
  return s;
}

/** Wire-order bytes of a display-order hex hash. */
export function wireFromDisplayHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex))
    throw new TypeError(`not hex: ${hex.slice(0, 80)}`);
  const n = hex.length / 2;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[n - 1 - i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}
