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
