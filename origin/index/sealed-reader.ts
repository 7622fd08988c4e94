import { LightedgeError } from "../../proto/errors.ts";
import {
  assertMetaIdentity,
  blockSpan,
  decodeRangeMeta,
  type Projection,
  type RangeMeta,
  rangeIndexOf,
  rangeKeys,
  verifySection,
} from "../../proto/range/index.ts";
import type { BlobStore } from "../store/index.ts";
import type { ChainBlock } from "./chain-view.ts";
import { codecOptions } from "./codec-options.ts";
import { type SealedSpan, sealedFrame, sealedHash, sealedPrevHash } from "./sealed-span.ts";

export type { SealedSpan };

/** Reads sealed ranges back from the store (the origin's own reads: server streams, bootstrap). */
export interface SealedReader {
  /** Decoded, validated metadata of range `index` (cached); not-found when absent. */
  meta(index: number): Promise<RangeMeta>;
  /** Stored frames of heights `lo..hi` (lo ≤ hi, one range): one ranged read of the data object. */
  read(projection: Projection, lo: number, hi: number): Promise<SealedSpan>;
  /** Stored frames of `from..to` (ascending, or descending when from > to), one ranged read per range. */
  blocks(projection: Projection, from: number, to: number, signal?: AbortSignal): AsyncGenerator<ChainBlock>;
  /** Drops cached metadata (and verification marks) of ranges ≥ `index` (they are being rebuilt). */
  forget(fromIndex: number): void;
}

/** Decoded metadata kept (≈ 85 KB each at 1,000 blocks per range: ≈ 22 MB). */
const CACHE_ENTRIES = 256;

/**
 * Integrity (proto/range-format.md §Integrity): a metadata object is checked whole on every load
 * (its SHA-256 trailer) before its table steers any read. A data object's SHA-256 covers the whole
 * object, so it is checked the first time a read covers the whole object and remembered for the
 * process's life (objects are immutable); partial reads are trusted within the metadata's bounds
 * — the exact span length must come back — as the edge trusts its ranged reads.
 */
export function createSealedReader(store: BlobStore, network: string, rangeSize: number): SealedReader {
  const cache = new Map<number, Promise<RangeMeta>>();
  /** Projections whose whole data object passed verifySection, per range index. */
  const verified = new Map<number, Set<Projection>>();

  const load = async (index: number): Promise<RangeMeta> => {
    const key = rangeKeys(network, rangeSize, index).meta;
    const bytes = await store.get(key);
    if (bytes === null)
      throw new LightedgeError("not-found", "sealed-reader", `range object ${key} is missing`);
    const meta = decodeRangeMeta(bytes, codecOptions);
    assertMetaIdentity(meta, { network, rangeSize, index });
    return meta;
  };

  const meta = (index: number): Promise<RangeMeta> => {
    let entry = cache.get(index);
    if (entry === undefined) {
      entry = load(index);
      entry.catch(() => cache.delete(index));
      if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    } else {
      cache.delete(index); // re-insert: most recently used last
    }
    cache.set(index, entry);
    return entry;
  };

  const read = async (projection: Projection, lo: number, hi: number): Promise<SealedSpan> => {
    const index = rangeIndexOf(lo, rangeSize);
    const m = await meta(index);
    const span = blockSpan(m, projection, lo, hi);
    const key = rangeKeys(network, rangeSize, index).data[projection];
    const bytes = await store.get(key, span);
    if (bytes === null || bytes.length !== span.length) {
      throw new LightedgeError(
        "corrupt",
        "sealed-reader",
        `${key}: expected ${span.length} bytes at ${span.offset}, got ${bytes?.length ?? "none"}`,
      );
    }
    if (span.length === m.sections[projection].length && !verified.get(index)?.has(projection)) {
      verifySection(m, projection, bytes, codecOptions);
      verified.set(index, (verified.get(index) ?? new Set()).add(projection));
    }
    return { meta: m, projection, lo, hi, bytes, base: span.offset };
  };

  return {
    meta,
    read,
    async *blocks(projection, from, to, signal) {
      const descending = from > to;
      const step = descending ? -1 : 1;
      const last = rangeIndexOf(to, rangeSize);
      for (let index = rangeIndexOf(from, rangeSize); ; index += step) {
        if (signal?.aborted) return;
        const lo = Math.max(Math.min(from, to), index * rangeSize);
        const hi = Math.min(Math.max(from, to), (index + 1) * rangeSize - 1);
        const s = await read(projection, lo, hi);
        for (let k = 0; k <= hi - lo; k++) {
          const height = descending ? hi - k : lo + k;
          yield {
            height,
            wireHash: sealedHash(s.meta, height),
            wirePrevHash: sealedPrevHash(s.meta, height),
            frame: sealedFrame(s, height),
          };
        }
        if (index === last) return;
      }
    },
    forget(fromIndex) {
      for (const index of [...cache.keys()]) if (index >= fromIndex) cache.delete(index);
      for (const index of [...verified.keys()]) if (index >= fromIndex) verified.delete(index);
    },
  };
}
