import { createCipheriv, createHash } from "node:crypto";

/**
 * Synthetic block hashes (wire order): 32 deterministic bytes per height, last 3 zero (display
 * "000000…", mainnet's leading zeros). Height h is bytes [32h, 32h + 32) of an AES-128-CTR
 * keystream keyed by the seed — a pseudorandom function of (seed, height), so any height is
 * computed alone (the scale node, bootstrap) and a whole range with one native call: a SHA-256 per
 * block was 7–16 % of the generator's CPU.
 */
export function syntheticHashes(seed: string, first: number, count: number): Uint8Array {
  if (!Number.isSafeInteger(first) || first < 0) throw new Error(`no synthetic hash below height 0`);
  const key = keyOf(seed);
  const iv = Buffer.alloc(16);
  // Counter block 2h: a big-endian 128-bit integer, as OpenSSL's CTR mode increments it.
  const counter = 2 * first;
  iv.writeUInt32BE(Math.floor(counter / 2 ** 32), 8);
  iv.writeUInt32BE(counter >>> 0, 12);
  const cipher = createCipheriv("aes-128-ctr", key, iv);
  const out = cipher.update(Buffer.alloc(32 * count));
  for (let at = 29; at < out.length; at += 32) {
    out[at] = 0;
    out[at + 1] = 0;
    out[at + 2] = 0;
  }
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

/** The hash of one height; zeros below height 0 (the parent of block 0). */
export function syntheticHash(seed: string, height: number): Uint8Array {
  return height < 0 ? new Uint8Array(32) : syntheticHashes(seed, height, 1);
}

const keys = new Map<string, Buffer>();

function keyOf(seed: string): Buffer {
  let key = keys.get(seed);
  if (!key) {
    key = createHash("sha256").update(`lightedge-scale|${seed}`).digest().subarray(0, 16);
    keys.set(seed, key);
  }
  return key;
}
