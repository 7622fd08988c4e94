import { equalBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import type { TreeSizes } from "../chain/index.ts";
import type { ChainSource } from "../node/ports.ts";
import { buildRawRun } from "./build-block.ts";
import type { IndexedBlock } from "./tail.ts";

export interface FetchPipelineOptions {
  /** Chunks fetched (and parsed) at once. */
  concurrency: number;
  /** Blocks per chunk (one batched `blocks(from, to)` call). */
  chunkSize: number;
  /** Stops launching new chunks (already launched ones are drained and dropped). */
  signal?: AbortSignal;
  /** Keep each block's raw bytes and history (node-free history is sealed from them). */
  history?: boolean;
  /** Block `from − 1` when the caller holds it: the first chunk's derived sizes must join its. */
  previous?: { wireHash: Uint8Array; treeSizes: TreeSizes };
}

/**
 * The ordered parallel half of the sync pipeline (fetch → parse → project): up to `concurrency`
 * chunks in flight, each fetched raw by height with one verbose call for its last block
 * (`ChainSource.rawBlocks`), parsed as soon as it arrives, yielded strictly in height order. The
 * consumer's pace bounds memory: a new chunk starts only when the consumer takes one.
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
  const pending: Promise<{ blocks: IndexedBlock[]; sizesBefore: TreeSizes }>[] = [];
  let previous = options.previous;
  let next = from;
  const launch = () => {
    while (pending.length < options.concurrency && next <= to && !options.signal?.aborted) {
      const start = next;
      const end = Math.min(to, start + options.chunkSize - 1);
      next = end + 1;
      const task = chain.rawBlocks(start, end).then((run) => buildRawRun(run, options.history));
      task.catch(() => {}); // observed when awaited in order; avoid unhandled rejections meanwhile
      pending.push(task);
    }
  };
  try {
    launch();
    while (pending.length > 0) {
      const chunk = await pending.shift()!;
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
    for (const task of pending) task.catch(() => {});
  }
}

function sameSizes(a: TreeSizes, b: TreeSizes): boolean {
  return a.sapling === b.sapling && a.orchard === b.orchard && a.ironwood === b.ironwood;
}
