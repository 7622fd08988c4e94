/**
 * The most bytes one node answer may take, per JSON-RPC method. The transport stops reading (and
 * drops the connection) past it: a node that streams without end, or a proxy in front of one that
 * answers with something else, must fail one call, not take the origin's memory with it.
 *
 * Each bound is several times what a valid answer can be, so no real answer comes near it:
 */

const MiB = 1024 * 1024;

/**
 * zcashd's MAX_BLOCK_SIZE (src/consensus/consensus.h: 2,000,000 bytes since Sapling), which
 * zebrad enforces too (zebra-chain block::MAX_BLOCK_BYTES). A transaction is inside a block.
 */
const MAX_BLOCK_BYTES = 2_000_000;

const LIMITS: Readonly<Record<string, number>> = {
  // Verbosity 0 is the block as hex (2 chars a byte); verbosity 1 lists its txids (at most one
  // per ~100 bytes of block) and its trees.
  getblock: 4 * MAX_BLOCK_BYTES + 4 * MiB,
  // Verbose: the hex and its decoding (inputs, outputs, shielded parts), some times its size.
  getrawtransaction: 8 * MAX_BLOCK_BYTES + 4 * MiB,
  // ZIP-401 caps the mempool's total cost at 80,000,000 with ≥ 10,000 per transaction: at most
  // 8,000 txids of 66 bytes each in JSON.
  getrawmempool: 16 * MiB,
  // Every subtree of a pool (2^16 at most, each a root and a height) in one answer.
  z_getsubtreesbyindex: 32 * MiB,
  // The insight-explorer address RPCs have no bound of their own: the busiest mainnet addresses
  // have millions of entries. 64 MiB of JSON is a few hundred MB decoded; over it the call is
  // refused (ResourceExhausted) rather than the origin running out of memory.
  getaddresstxids: 64 * MiB,
  getaddressutxos: 64 * MiB,
};

/** Small answers: chain info, a hash, a tree state, a balance, a txid. */
const DEFAULT_LIMIT = 4 * MiB;

/** The answer bound for one call of `method`. */
export function answerLimit(method: string): number {
  return LIMITS[method] ?? DEFAULT_LIMIT;
}

/** The bound for a batch: the sum of its calls' bounds (a JSON-RPC batch answers each in turn). */
export function batchAnswerLimit(methods: readonly string[]): number {
  let total = 0;
  for (const m of methods) total += answerLimit(m);
  return total;
}
