import { RangeReader, type RangeStore } from "../../proto/range/reader.ts";
import { webCryptoSha256 } from "../../proto/range/trailer-digest.ts";
import type { ObjectReader } from "./object-reader.ts";
import { objectBytes } from "./read-all.ts";

/**
 * Range metadata kept per isolate and network: immutable objects, so they stay for as long as
 * they fit. 64 entries ≈ 4 MB at 1,000 blocks per range (≈ 60 B per block with three
 * projections), well inside the 128 MB isolate limit (workers-platform.md §1).
 */
export const META_CACHE_ENTRIES = 64;

/**
 * The edge's side of the sealed-range reader (proto/range/reader.ts): metadata read whole, data
 * spans handed back as the storage's native body, untouched, so they can be piped to the client
 * (edge-streaming.md), with the object's size for the reader to check against the metadata.
 */
export function edgeRangeStore(reader: ObjectReader): RangeStore<ReadableStream<Uint8Array>> {
  return {
    async readObject(key) {
      const object = await reader.get(key);
      return object === null ? null : objectBytes(object, key);
    },
    async readSpan(key, span) {
      const object = await reader.get(key, span);
      if (object === null) return null;
      return { body: object.body, size: object.size, discard: () => object.body.cancel() };
    },
  };
}

/** One reader per (network, range size), built on first use and kept for the isolate's life. */
export function createRangeReaders(reader: ObjectReader) {
  const store = edgeRangeStore(reader);
  const readers = new Map<string, RangeReader<ReadableStream<Uint8Array>>>();
  return (network: string, rangeSize: number): RangeReader<ReadableStream<Uint8Array>> => {
    const key = `${network}/${rangeSize}`;
    let r = readers.get(key);
    if (r === undefined) {
      // Settled values only: requests must not await each other's reads (proto/lru.ts).
      r = new RangeReader(store, {
        network,
        rangeSize,
        cacheEntries: META_CACHE_ENTRIES,
        sharing: "settled",
        // Native SHA-256: the JavaScript one was most of a random GetBlock's CPU (proto/range/trailer-digest.ts).
        digest: webCryptoSha256,
      });
      readers.set(key, r);
    }
    return r;
  };
}
