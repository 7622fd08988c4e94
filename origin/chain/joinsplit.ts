import type { Reader } from "./reader.ts";

// JSDescription (protocol spec §7.2): 304 fixed bytes + proof + 2 × 601-byte ciphertexts.
// The proof is PHGR13 (296 bytes) before Sapling (v2, v3) and Groth16 (192 bytes) from v4.
const JS_FIXED = 8 + 8 + 32 + 64 + 64 + 32 + 32 + 64 + 2 * 601;
const PHGR_PROOF = 296;
const GROTH_PROOF = 192;

/** Skips vJoinSplit (and joinSplitPubKey/Sig when any); returns the count. */
export function skipJoinSplits(r: Reader, groth: boolean): number {
  const size = JS_FIXED + (groth ? GROTH_PROOF : PHGR_PROOF);
  const n = r.count(size, "JoinSplit");
  if (n > 0) r.skip(n * size + 32 + 64, "JoinSplit data");
  return n;
}
