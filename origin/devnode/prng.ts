import { createCipheriv, createHash } from "node:crypto";

/**
 * Deterministic randomness for synthetic blocks, derived from (seed, height, branch). Bulk bytes
 * come from an AES-128-CTR keystream (native, several GB/s) drawn in 16 KB chunks — one cipher call
 * per byte request costs ~2 µs, more than the bytes — and small choices from a xoshiro128**
 * generator seeded from the same key. Not cryptographic; only reproducible and cheap.
 */
export interface BlockRandom {
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Uniform float in [0, 1). */
  float(): number;
  /** n keystream bytes (a fresh view; callers may keep it). */
  bytes(n: number): Uint8Array;
}

const CHUNK = 16 * 1024;
const zeros = Buffer.alloc(CHUNK);

export function blockRandom(seed: string, height: number, branch: number): BlockRandom {
  const key = createHash("sha256").update(`lightedge-devnode|${seed}|${height}|${branch}`).digest();
  const cipher = createCipheriv("aes-128-ctr", key.subarray(0, 16), key.subarray(16, 32));
  let pool = Buffer.alloc(0);
  let used = 0;
  let s0 = key.readUInt32LE(0) | 1;
  let s1 = key.readUInt32LE(4) | 2;
  let s2 = key.readUInt32LE(8) | 4;
  let s3 = key.readUInt32LE(12) | 8;
  // xoshiro128** (32-bit state words: stays in Smi/int32 arithmetic, no BigInt).
  function next(): number {
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl(s3, 11);
    return result;
  }
  return {
    int: (n) => Math.floor((next() / 2 ** 32) * n),
    float: () => next() / 2 ** 32,
    bytes(n) {
      if (n > pool.length - used) {
        // A fresh chunk each time: views handed out earlier stay valid.
        pool = cipher.update(n > CHUNK ? Buffer.alloc(n) : zeros);
        used = 0;
      }
      used += n;
      return new Uint8Array(pool.buffer, pool.byteOffset + used - n, n);
    },
  };
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
