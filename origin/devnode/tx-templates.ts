import { createHash } from "node:crypto";
import { blake2b256, personal } from "../chain/hashes.ts";

/**
 * Byte templates for the parts of synthetic shielded outputs that no light client sees: memos,
 * cv/rk, outCiphertext, the AEAD tag, proofs and signatures. Only the compact parts (nullifiers,
 * cmu/cmx, epk, the first 52 ciphertext bytes) are drawn per output, so compact blocks stay
 * random while each tx costs little to build and hash: ZIP 244 digests memos and non-compact
 * parts under their own personalizations, and proofs and signatures not at all, so those child
 * digests depend only on (template, count) and are computed once (`repeatedDigest`).
 * The same few templates serve every seed: they are constants, like the dummy Equihash solution.
 */
export const TEMPLATE_COUNT = 4;

export interface TxTemplate {
  cv: Uint8Array;
  rk: Uint8Array;
  /** encCiphertext[52..564] (ZIP 244 "memo" part). */
  memo: Uint8Array;
  /** encCiphertext[564..580] (the AEAD tag; non-compact). */
  encTail: Uint8Array;
  outCiphertext: Uint8Array;
  /** Sapling anchor for spends (a canonical field element). */
  anchor: Uint8Array;
  /** Proof and signature bytes, tiled to any length (ByteWriter.tile). */
  filler: Uint8Array;
}

function stream(label: string, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i * 32 < n; i++) {
    const block = createHash("sha256").update(`lightedge-devnode-template|${label}|${i}`).digest();
    out.set(block.subarray(0, Math.min(32, n - i * 32)), i * 32);
  }
  return out;
}

export const templates: readonly TxTemplate[] = Array.from({ length: TEMPLATE_COUNT }, (_, k) => {
  const anchor = stream(`${k}|anchor`, 32);
  anchor[31]! &= 0x3f;
  return {
    cv: stream(`${k}|cv`, 32),
    rk: stream(`${k}|rk`, 32),
    memo: stream(`${k}|memo`, 512),
    encTail: stream(`${k}|tag`, 16),
    outCiphertext: stream(`${k}|out`, 80),
    anchor,
    filler: stream(`${k}|filler`, 8192),
  };
});

const repeated = new Map<string, Uint8Array>();

/** BLAKE2b-256 under `tag` of `count` copies of `parts(template)` concatenated (memoized). */
export function repeatedDigest(
  tag: string,
  k: number,
  count: number,
  parts: (t: TxTemplate) => Uint8Array[],
): Uint8Array {
  const key = `${tag}|${k}|${count}`;
  let d = repeated.get(key);
  if (d === undefined) {
    const one = parts(templates[k]!);
    d = blake2b256(personal(tag), Array.from({ length: count }, () => one).flat());
    repeated.set(key, d);
  }
  return d;
}

const empties = new Map<string, Uint8Array>();

/** BLAKE2b-256 of nothing under `tag`: the digest ZIP 244 uses for an absent part. */
export function emptyDigest(tag: string): Uint8Array {
  let d = empties.get(tag);
  if (d === undefined) {
    d = blake2b256(personal(tag), []);
    empties.set(tag, d);
  }
  return d;
}
