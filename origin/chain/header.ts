import type { Reader } from "./reader.ts";
import type { BlockHeader } from "./types.ts";

/** Equihash solution sizes: (200,9) on mainnet/testnet, (48,5) on regtest (protocol spec §7.6). */
const SOLUTION_SIZES = new Set([1344, 36]);

/** Reads the block header; `raw` is a view of exactly the hashed bytes. */
export function readHeader(r: Reader): BlockHeader {
  const start = r.pos;
  const version = r.u32("header version");
  const wirePrevHash = r.bytes(32, "hashPrevBlock");
  const merkleRoot = r.bytes(32, "hashMerkleRoot");
  const blockCommitments = r.bytes(32, "hashBlockCommitments");
  const time = r.u32("nTime");
  const bits = r.u32("nBits");
  const nonce = r.bytes(32, "nNonce");
  const solutionAt = r.pos;
  const solution = r.varBytes("Equihash solution");
  if (!SOLUTION_SIZES.has(solution.length)) {
    r.fail(`Equihash solution of ${solution.length} bytes (expected 1344 or 36)`, solutionAt);
  }
  const raw = r.buf.subarray(start, r.pos);
  return { version, wirePrevHash, merkleRoot, blockCommitments, time, bits, nonce, solution, raw };
}
