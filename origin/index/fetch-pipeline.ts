import { equalBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import type { TreeSizes } from "../chain/index.ts";
import type { ChainSource } from "../node/ports.ts";
import { buildRawRun } from "./build-block.ts";
import { FetchBudget } from "./fetch-budget.ts";
import type { IndexedBlock } from "./tail.ts";

export interface FetchPipelineOptions {
  /** Chunks fetched (and parsed) at once. */
  concurrency: number;
  /** Blocks per chunk at most (one batched `rawBlocks(from, to)` call). */
  chunkSize: number;
  /** Raw block bytes in flight, estimated (fetch-budget.ts); default DEFAULT_FETCH_BUDGET_BYTES. */
  budgetBytes?: number;
  /** Stops launching new chunks (already launched ones are drained and dropped). */
  signal?: AbortSignal;
  /** Keep each block's raw bytes and history (node-free history is sealed from them). */
  history?: boolean;
  /** Block `from − 1` when the caller holds it: the first chunk's derived sizes must join its. */
  previous?: { wireHash: Uint8Array; treeSizes: TreeSizes };
}

/** Raw block bytes the sync pipeline keeps in flight by default (`--fetch-budget-mib`). */
export const DEFAULT_FETCH_BUDGET_BYTES = 32 * 1024 * 1024;

/**
 * The ordered parallel half of the sync pipeline (fetch → parse → project): up to `concurrency`
 * chunks in flight holding about `budgetBytes` of raw blocks (fetch-budget.ts), each fetched raw
 * by height with one verbose call for its last block (`ChainSource.rawBlocks`), parsed as soon as
 * it arrives, yielded strictly in height order. The consumer's pace bounds memory: a new chunk
 * starts only when the consumer takes one.
 *
 * Each chunk's tree sizes are derived back from the node's sizes for its last block; where a
 * chunk's first block extends the previous chunk's last, the sizes must join too, so a count that
 * disagrees with the node's is caught at every chunk boundary (`malformed`), never stored.
 */
export async function* fetchBlocks(
  chain: ChainSource,
  from: number,
  to: number,
  options: FetchPipelineOptions,
): AsyncGenerator<IndexedBlock[]> {
  const budget = new FetchBudget({
    budgetBytes: options.budgetBytes ?? DEFAULT_FETCH_BUDGET_BYTES,
    concurrency: options.concurrency,
    chunkSize: options.chunkSize,
  });
  type Chunk = { blocks: IndexedBlock[]; sizesBefore: TreeSizes; rawBytes: number };
  const pending: { blocks: number; task: Promise<Chunk> }[] = [];
  let previous = options.previous;
  let next = from;
  const launch = () => {
    while (next <= to && !options.signal?.aborted) {
      const inFlight = { chunks: pending.length, blocks: pending.reduce((n, p) => n + p.blocks, 0) };
      const blocks = budget.next(inFlight);
      if (blocks === 0) return;
      const start = next;
      const end = Math.min(to, start + blocks - 1);
      next = end + 1;
      const task = chain.rawBlocks(start, end).then((run) => ({
        ...buildRawRun(run, options.history),
        rawBytes: run.raws.reduce((n, raw) => n + raw.length, 0),
      }));
      task.catch(() => {}); // observed when awaited in order; avoid unhandled rejections meanwhile
      pending.push({ blocks: end - start + 1, task });
    }
  };
  try {
    launch();
    while (pending.length > 0) {
      const chunk = await pending.shift()!.task;
      budget.observe(chunk.blocks.length, chunk.rawBytes);
      launch();
      const first = chunk.blocks[0]!;
      // A chunk that does not extend the previous block is a reorg: the consumer rolls back.
      const joins = previous !== undefined && equalBytes(first.wirePrevHash, previous.wireHash);
      if (joins && !sameSizes(previous!.treeSizes, chunk.sizesBefore))
        throw new LightedgeError(
          "malformed",
          "index.fetch",
          `block ${first.height}: the note commitments counted from the raw blocks do not join the node's tree sizes at block ${first.height - 1}`,
        );
      previous = chunk.blocks[chunk.blocks.length - 1]!;
      yield chunk.blocks;
    }
  } finally {
    // The consumer stopped early (reorg, error): let the launched requests settle quietly.
    for (const { task } of pending) task.catch(() => {});
  }
}

function sameSizes(a: TreeSizes, b: TreeSizes): boolean {
  return a.sapling === b.sapling && a.orchard === b.orchard && a.ironwood === b.ironwood;
}
