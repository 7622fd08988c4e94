import {
  frameOf,
  type Projection,
  type RangeMeta,
  RangeReader,
  rangeIndexOf,
  type SpanRead,
  type SpanReadOptions,
  verifySection,
  type WholeRead,
  wireHashView,
  wirePrevHashView,
} from "../../proto/range/index.ts";
import type { BlobStore } from "../store/index.ts";
import type { ChainBlock } from "./chain-view.ts";
import { codecOptions } from "./codec-options.ts";

/** Frames of heights `lo..hi` of one sealed range, as one ranged read returned them (ascending). */
export type SealedSpan = SpanRead<Uint8Array>;

/** Reads sealed ranges back from the store (the origin's own reads: server streams, bootstrap). */
export interface SealedReader {
  /** Decoded, validated metadata of range `index` (cached); `corrupt` when absent. */
  meta(index: number): Promise<RangeMeta>;
  /**
   * Stored frames of heights `lo..hi` (lo ≤ hi, one range): one ranged read of the data object
   * (into `opts.into`'s buffer when given: the caller then owns it).
   */
  read(projection: Projection, lo: number, hi: number, opts?: SpanReadOptions): Promise<SealedSpan>;
  /**
   * Range `index`'s whole data object of a projection by its ends alone (no metadata read), when this
   * process has already checked that object whole (verifySection); undefined otherwise: `read` it.
   */
  readVerifiedWhole(
    projection: Projection,
    index: number,
    opts?: SpanReadOptions,
  ): Promise<WholeRead<Uint8Array> | undefined>;
  /** Stored frames of `from..to` (ascending, or descending when from > to), one ranged read per range. */
  blocks(projection: Projection, from: number, to: number, signal?: AbortSignal): AsyncGenerator<ChainBlock>;
  /** Drops cached metadata (and verification marks) of ranges ≥ `index` (they are being rebuilt). */
  forget(fromIndex: number): void;
}

/** Decoded metadata kept (≈ 85 KB each at 1,000 blocks per range: ≈ 22 MB). */
const CACHE_ENTRIES = 256;

/**
 * The origin's side of the sealed-range reader (proto/range/reader.ts, shared with the edge): data
 * spans come back as bytes. Integrity (proto/range-format.md §Integrity): a metadata object is
 * checked whole on every load; a data object's SHA-256 covers the whole object, so it is checked
 * the first time a read covers the whole object and remembered for the process's life (objects are
 * immutable); partial reads are trusted within the metadata's bounds — the exact span length must
 * come back — as the edge trusts its ranged reads.
 */
export function createSealedReader(store: BlobStore, network: string, rangeSize: number): SealedReader {
  const ranges = new RangeReader<Uint8Array>(
    {
      readObject: (key) => store.get(key),
      async readSpan(key, span, opts) {
        const bytes = await store.get(key, span, opts);
        return bytes === null ? null : { body: bytes, length: bytes.length };
      },
    },
    { network, rangeSize, cacheEntries: CACHE_ENTRIES, codec: codecOptions },
  );
  /** Projections whose whole data object passed verifySection, per range index. */
  const verified = new Map<number, Set<Projection>>();

  const read = async (
    projection: Projection,
    lo: number,
    hi: number,
    opts?: SpanReadOptions,
  ): Promise<SealedSpan> => {
    const span = await ranges.read(projection, lo, hi, opts);
    const { meta } = span;
    if (span.span.length === meta.sections[projection].length && !verified.get(meta.index)?.has(projection)) {
      verifySection(meta, projection, span.body, codecOptions);
      verified.set(meta.index, (verified.get(meta.index) ?? new Set()).add(projection));
    }
    return span;
  };

  return {
    meta: (index) => ranges.meta(index),
    read,
    async readVerifiedWhole(projection, index, opts) {
      // Its ends come from the reader's ends cache (kept for every range it decoded) or, evicted,
      // its metadata again; the read must return the object's exact length (RangeReader #fetch).
      return verified.get(index)?.has(projection) ? ranges.readWhole(projection, index, [], opts) : undefined;
    },
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
            wireHash: wireHashView(s.meta, height),
            wirePrevHash: wirePrevHashView(s.meta, height),
            frame: frameOf(s, height),
          };
        }
        if (index === last) return;
      }
    },
    forget(fromIndex) {
      ranges.forget(fromIndex);
      for (const index of [...verified.keys()]) if (index >= fromIndex) verified.delete(index);
    },
  };
}
