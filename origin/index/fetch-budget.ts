/**
 * How many blocks the sync pipeline asks the node for next, bounded by bytes as well as by count.
 * Pure: the pipeline (fetch-pipeline.ts) tells it what it launched and what arrived.
 *
 * Why bytes: a chunk in flight costs the node's JSON answer (hex: twice the block bytes), its
 * decoded blocks and their parse. On the dev chain (≈ 72 KB a block) each 50-block chunk in flight
 * added ≈ 15 MB of RSS: 16 chunks peaked at 1,027 MB, 8 at 904 MB, at the same index rate
 * (bench/README.md §The origin at 200,000 blocks). Mainnet's 2022–23 spam blocks average ≈ 600 KB (≈ 640 Sapling
 * outputs of 948 bytes each: bench/scale/profile.ts), and a block may be 2 MB (zcashd's
 * MAX_BLOCK_SIZE, 2,000,000 bytes): 16 chunks of 50 would be 0.5–1.6 GB of raw blocks alone. So a chunk holds at
 * most `budgetBytes / MIN_CHUNKS` of blocks (at least one block), and chunks are launched while
 * those in flight are estimated to fit in `budgetBytes` (always at least one).
 *
 * The estimate is the last chunk's mean block size: a jump in block size is seen one chunk late
 * (chunks already asked for keep their size), and nothing is known before the first chunk arrives,
 * so the first one goes out alone.
 */

/** Chunks the budget should hold at once, so the node works on one while the indexer parses another. */
export const MIN_CHUNKS = 4;

export interface FetchBudgetOptions {
  /** Raw block bytes in flight (estimated), at most. */
  budgetBytes: number;
  /** Chunks in flight, at most. */
  concurrency: number;
  /** Blocks per chunk, at most. */
  chunkSize: number;
}

export class FetchBudget {
  readonly #o: FetchBudgetOptions;
  /** Mean raw bytes per block of the last chunk that arrived; undefined before the first. */
  #bytesPerBlock: number | undefined;

  constructor(o: FetchBudgetOptions) {
    this.#o = o;
  }

  /**
   * Blocks for the next chunk given what is in flight (chunks launched and not yet taken), or 0
   * when none may be launched now.
   */
  next(inFlight: { chunks: number; blocks: number }): number {
    const { budgetBytes, concurrency, chunkSize } = this.#o;
    if (inFlight.chunks >= concurrency) return 0;
    const perBlock = this.#bytesPerBlock;
    if (perBlock === undefined) return inFlight.chunks === 0 ? chunkSize : 0;
    const blocks = Math.max(1, Math.min(chunkSize, Math.floor(budgetBytes / (MIN_CHUNKS * perBlock))));
    if (inFlight.chunks > 0 && (inFlight.blocks + blocks) * perBlock > budgetBytes) return 0;
    return blocks;
  }

  /** A chunk arrived: `blocks` blocks of `rawBytes` bytes in all. */
  observe(blocks: number, rawBytes: number): void {
    if (blocks > 0) this.#bytesPerBlock = Math.max(1, rawBytes / blocks);
  }
}
