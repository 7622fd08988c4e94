import { wireHashOf } from "../../proto/bytes.ts";
import { LoadCache } from "../../proto/lru.ts";
import { type HashShard, type HeadObject, lookupSealedHash, type Span } from "../../proto/range/index.ts";
import type { BlobStore } from "../store/index.ts";
import { codecOptions } from "./codec-options.ts";

/** Decoded hash-index shards kept (≤ 32 KB each: 2,048 entries of 16 bytes on average). */
const SHARD_CACHE_ENTRIES = 256;

/**
 * The origin's `resolveHeight` (origin/index/view.ts) for sealed heights: the store's block-hash
 * index (proto/range-format.md §Hash index) when the head has one — at most two shard reads — and
 * otherwise `fallback` (the node). A hash the index does not hold is not sealed: no node call.
 */
export function sealedHashResolver(o: {
  store: BlobStore;
  head(): HeadObject | null;
  fallback?(displayHash: string): Promise<number | undefined>;
}): (displayHash: string) => Promise<number | undefined> {
  const source = {
    read: (key: string, span?: Span) => o.store.get(key, span),
    shards: new LoadCache<string, HashShard>({ maxEntries: SHARD_CACHE_ENTRIES, sharing: "in-flight" }),
    sha256: codecOptions.sha256,
  };
  return async (displayHash) => {
    const head = o.head();
    const result = head?.tip ? await lookupSealedHash(source, head, wireHashOf(displayHash)) : undefined;
    if (result?.indexed) return result.found?.height;
    return o.fallback?.(displayHash);
  };
}
