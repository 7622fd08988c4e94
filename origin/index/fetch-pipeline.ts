import type { ChainSource } from "../node/ports.ts";
import { buildIndexedBlock } from "./build-block.ts";
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
}

/**
 * The ordered parallel half of the sync pipeline (fetch → parse → project): up to `concurrency`
 * chunks in flight, each parsed as soon as it arrives, yielded strictly in height order. The
 * consumer's pace bounds memory: a new chunk starts only when the consumer takes one.
 */
export async function* fetchBlocks(
  chain: ChainSource,
  from: number,
  to: number,
  options: FetchPipelineOptions,
): AsyncGenerator<IndexedBlock[]> {
  const pending: Promise<IndexedBlock[]>[] = [];
  let next = from;
  const launch = () => {
    while (pending.length < options.concurrency && next <= to && !options.signal?.aborted) {
      const start = next;
      const end = Math.min(to, start + options.chunkSize - 1);
      next = end + 1;
      const task = chain
        .blocks(start, end)
        .then((blocks) => blocks.map((b) => buildIndexedBlock(b, options.history)));
      task.catch(() => {}); // observed when awaited in order; avoid unhandled rejections meanwhile
      pending.push(task);
    }
  };
  try {
    launch();
    while (pending.length > 0) {
      const chunk = await pending.shift()!;
      launch();
      yield chunk;
    }
  } finally {
    // The consumer stopped early (reorg, error): let the launched requests settle quietly.
    for (const task of pending) task.catch(() => {});
  }
}
