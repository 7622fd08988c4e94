import { wireHashOf } from "../../proto/bytes.ts";
import { LoadCache } from "../../proto/lru.ts";
import { type HashShard, type HeadObject, hashIndexCandidates, type Span } from "../../proto/range/index.ts";
import type { BlobStore } from "../store/index.ts";
import { codecOptions } from "./codec-options.ts";

/** Decoded hash-index shards kept (≤ 32 KB each: 2,048 entries of 16 bytes on average). */
const SHARD_CACHE_ENTRIES = 256;

/**
 * The origin's `resolveHeights` (origin/index/view.ts) for sealed heights: the heights the store's
 * block-hash index (proto/range-format.md §Hash index) gives for the hash's key — at most two shard
 * reads — when the head has one, and otherwise what `fallback` (the node) says. A hash the index
 * does not hold is not sealed: no node call. The view confirms a candidate from its block's
 * metadata, which it reads (and caches) anyway, rather than from the block's frame as the edge
 * does: GetBlock then reads that frame once, to send it.
 */
export function sealedHashResolver(o: {
  store: BlobStore;
  head(): HeadObject | null;
  fallback?(displayHash: string): Promise<number | undefined>;
}): (displayHash: string) => Promise<readonly number[]> {
  const source = {
    read: (key: string, span?: Span) => o.store.get(key, span),
    shards: new LoadCache<string, HashShard>({ maxEntries: SHARD_CACHE_ENTRIES, sharing: "in-flight" }),
    sha256: codecOptions.sha256,
  };
  return async (displayHash) => {
    const head = o.head();
    const candidates = head?.tip
      ? await hashIndexCandidates(source, head, wireHashOf(displayHash))
      : undefined;
    if (candidates !== undefined) return candidates.map((c) => c.height);
    const height = await o.fallback?.(displayHash);
    return height === undefined ? [] : [height];
  };
}
