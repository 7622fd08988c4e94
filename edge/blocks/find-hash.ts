import { reversed } from "../../proto/bytes.ts";
import type { BlockID } from "../../proto/index.ts";
import { LoadCache } from "../../proto/lru.ts";
import {
  type HashShard,
  type HeadObject,
  heightOfWireHash,
  lastRangeIndex,
  lookupSealedHash,
  type RangeMeta,
} from "../../proto/range/index.ts";
import { webCryptoSha256 } from "../../proto/range/trailer-digest.ts";
import { checkBlockHash, heightOf } from "../../proto/wire/limits.ts";
import type { EdgeServices } from "../services.ts";
import type { ObjectReader } from "../store/index.ts";
import { readObjectBytes } from "../store/read-all.ts";
import { extentOf } from "./extent.ts";

/**
 * How many of the newest sealed ranges GetBlock-by-hash scans when the head names no hash index
 * (a store written before it existed) and the hash is not in a cached range. Without an index a
 * hash says nothing about its height, so a full search is O(ranges): older hashes go to the origin.
 */
export const MAX_HASH_SCAN_RANGES = 8;

/** Decoded hash-index shards kept per isolate (≤ 32 KB each: ≈ 4 MB). */
export const HASH_SHARD_CACHE_ENTRIES = 128;

const shardCaches = new WeakMap<ObjectReader, LoadCache<string, HashShard>>();

function shardCache(reader: ObjectReader): LoadCache<string, HashShard> {
  let cache = shardCaches.get(reader);
  if (cache === undefined) {
    // Settled values only: requests must not await each other's reads (proto/lru.ts).
    cache = new LoadCache({ maxEntries: HASH_SHARD_CACHE_ENTRIES, sharing: "settled" });
    shardCaches.set(reader, cache);
  }
  return cache;
}

/** A sealed block found by its hash: its height, and its stored `full` frame when the index read it. */
export interface SealedHashHit {
  height: number;
  frame?: Uint8Array;
}

/**
 * The sealed block a BlockID names, or undefined when none is sealed: a 32-byte hash wins over the
 * height (as the origin's resolveBlockId), found through the hash index; a height is sealed when
 * the head's extent holds it. GetBlock and GetTransaction-by-block share it.
 */
export async function sealedBlockOf(
  s: Pick<EdgeServices, "ranges" | "reader">,
  head: HeadObject | null,
  rpc: string,
  id: BlockID,
): Promise<SealedHashHit | undefined> {
  if (id.hash.length > 0) {
    const hash = checkBlockHash(rpc, id.hash);
    return head === null ? undefined : findSealedHash(s, head, hash);
  }
  const height = heightOf(rpc, id.height);
  const extent = extentOf(head);
  return height < extent.firstHeight || height > extent.tipHeight ? undefined : { height };
}

/**
 * The sealed block holding a block hash, or undefined. Both byte orders are tried. The store's
 * hash index (proto/range-format.md §Hash index: at most two shard reads, cached, then the
 * candidate's frame, which GetBlock then sends) covers every sealed range. A head without one: the
 * metadata cached in the isolate (a scan of 32 bytes per block), then the newest ranges.
 */
export async function findSealedHash(
  s: Pick<EdgeServices, "ranges" | "reader">,
  head: HeadObject,
  hash: Uint8Array,
): Promise<SealedHashHit | undefined> {
  const ranges = s.ranges(head.network, head.rangeSize);
  const indexed = await lookupSealedHash(
    {
      read: readObjectBytes(s.reader),
      shards: shardCache(s.reader),
      digest: webCryptoSha256,
    },
    head,
    hash,
  );
  if (indexed.indexed) return indexed.found;
  const orders = [hash, reversed(hash)];
  const look = (meta: RangeMeta) => {
    for (const h of orders) {
      const height = heightOfWireHash(meta, h);
      if (height !== undefined) return { meta, height };
    }
    return undefined;
  };
  for (const meta of await ranges.cached()) {
    const hit = look(meta);
    if (hit !== undefined) return hit;
  }
  const last = lastRangeIndex(head);
  const first = Math.max(head.firstHeight / head.rangeSize, last - MAX_HASH_SCAN_RANGES + 1);
  const indexes: number[] = [];
  for (let i = last; i >= first; i--) indexes.push(i);
  const scanned = await Promise.all(indexes.map((i) => ranges.meta(i)));
  for (const meta of scanned) {
    const hit = look(meta);
    if (hit !== undefined) return hit;
  }
  return undefined;
}
