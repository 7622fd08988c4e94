/**
 * Test support: a real ChainView with a hook between blocks (to inject a fault, slow a stream,
 * or run a reorg at a chosen point) and a callback when a stream is finished or abandoned.
 */
import type { ChainBlock, ChainView, Projection } from "../../index/chain-view.ts";

export interface ViewHooks {
  /** Runs before the `index`-th block of a stream is yielded; may throw or wait. */
  beforeBlock?(index: number, block: ChainBlock): Promise<void> | void;
  /** Runs when a stream's iterator is finished: completed, failed, or returned early. */
  streamClosed?(): void;
}

export function hookedView(inner: ChainView, hooks: ViewHooks): ChainView {
  async function* blocks(
    projection: Projection,
    from: number,
    to: number,
    options?: { signal?: AbortSignal },
  ) {
    let index = 0;
    try {
      for await (const block of inner.blocks(projection, from, to, options)) {
        await hooks.beforeBlock?.(index++, block);
        yield block;
      }
    } finally {
      hooks.streamClosed?.();
    }
  }
  return {
    ...inner,
    blocks,
    async *blockFrames(projection, from, to, options) {
      for await (const block of blocks(projection, from, to, options)) yield block.frame;
    },
  };
}
