import { LightedgeError } from "../errors.ts";
import { FRAME_HEADER_BYTES } from "../frame.ts";
import { LoadCache, type LoadSharing, Lru } from "../lru.ts";
import { bundleEnds, bundleKey, bundleStored, type HeadBundles } from "./bundles.ts";
import { decodeRangeMeta } from "./decode-meta.ts";
import type { CodecOptions } from "./encode.ts";
import type { HashIndexLevel } from "./hash-index-layout.ts";
import { type Projection, rangeKeys } from "./keys.ts";
import { assertMetaIdentity, blockInfo, blockSpan } from "./meta-query.ts";
import {
  decodeRangeEnds,
  endsLevelOf,
  endsOf,
  type RangeEnds,
  type RangeEndsTable,
  rangeEndsAt,
  rangeEndsKey,
} from "./range-ends.ts";
import { type AsyncSha256, withTrailerDigest } from "./trailer-digest.ts";
import type { RangeMeta, Span } from "./types.ts";

/**
 * Reading sealed ranges back, the same at the origin and the edge: metadata decoded, checked and
 * cached (immutable objects: an entry is dropped only to bound memory), and the one ranged read
 * of a data object a run of heights needs. The store behind it is a small role interface; what a
 * body is (bytes at the origin, a native stream at the edge) is the adapter's business.
 */
export interface RangeStore<Body> {
  /** A whole object's bytes (metadata objects are small), or null when it is absent. */
  readObject(key: string): Promise<Uint8Array | null>;
  /** `span` of a data object, or null when it is absent. */
  readSpan(key: string, span: Span, opts?: SpanReadOptions): Promise<SpanBody<Body> | null>;
}

/** How a data span is read: passed through to the store (the origin reads into a buffer pool). */
export interface SpanReadOptions {
  /** The buffer for the span's bytes, given its length; a store that streams ignores it. */
  into?(length: number): Uint8Array;
}

export interface SpanBody<Body> {
  body: Body;
  /** The whole object's size, when the store reports it (checked against the metadata). */
  size?: number;
  /** Bytes returned, when known (checked against the span). */
  length?: number;
  /** Releases a body that will not be read (a stream to cancel). */
  discard?(): Promise<void>;
}

/** One ranged read: heights `lo..hi` (ascending) of one range, as the store returned them. */
export interface SpanRead<Body> {
  meta: RangeMeta;
  projection: Projection;
  lo: number;
  hi: number;
  /** Where the body sits in the data object. */
  span: Span;
  body: Body;
}

/**
 * One whole range of a projection, or a run of ranges read from one bundle (proto/range/bundles.ts),
 * as the store returned it, with what a continuity check needs of it: its ends (first block's parent,
 * last block's hash). No frame offsets: its bytes are sent as they are.
 */
export interface WholeRead<Body> {
  /** The (first) range's index. */
  index: number;
  projection: Projection;
  ends: RangeEnds;
  /** The data object's length (= the whole span). */
  length: number;
  body: Body;
}

/**
 * Range ends kept by default: ≈ 200 bytes each against ≈ 85 KB for decoded metadata, so a reader
 * keeps them for every range it has decoded (≈ 3 MB, 16 M blocks at 1,000 per range), and a whole
 * range read again later — the next wallet's download — costs one storage read, not two.
 */
export const RANGE_ENDS_ENTRIES = 16_384;

/** Decoded range-ends objects kept: the base and recent level a head names, and the last head's. */
const ENDS_TABLE_ENTRIES = 4;

export interface RangeReaderOptions {
  network: string;
  rangeSize: number;
  /** Decoded metadata kept (≈ 85 KB each at 1,000 blocks per range). */
  cacheEntries: number;
  /** How concurrent readers of one range's metadata share the load (default in-flight; Workers: settled). */
  sharing?: LoadSharing;
  codec?: CodecOptions;
  /** Ends of ranges whose metadata was decoded, kept for whole-range reads (default RANGE_ENDS_ENTRIES). */
  endsEntries?: number;
  /** An async (native) SHA-256 that checks metadata trailers instead of the codec's (the edge: WebCrypto). */
  digest?: AsyncSha256;
}

const WHERE = "range-reader";

export class RangeReader<Body> {
  readonly network: string;
  readonly rangeSize: number;
  readonly #store: RangeStore<Body>;
  readonly #codec: CodecOptions | undefined;
  readonly #digest: AsyncSha256 | undefined;
  readonly #metas: LoadCache<number, RangeMeta>;
  readonly #ends: Lru<number, RangeEnds>;
  readonly #endsTables: LoadCache<string, RangeEndsTable>;

  constructor(store: RangeStore<Body>, options: RangeReaderOptions) {
    this.network = options.network;
    this.rangeSize = options.rangeSize;
    this.#store = store;
    this.#codec = options.codec;
    this.#digest = options.digest;
    this.#metas = new LoadCache({
      maxEntries: options.cacheEntries,
      sharing: options.sharing ?? "in-flight",
    });
    this.#ends = new Lru({ maxEntries: options.endsEntries ?? RANGE_ENDS_ENTRIES });
    this.#endsTables = new LoadCache({
      maxEntries: ENDS_TABLE_ENTRIES,
      sharing: options.sharing ?? "in-flight",
    });
  }

  /**
   * Decoded, checked metadata of range `index`. Callers read ranges the head says are sealed, and
   * the head is written only after its ranges: a missing object is damage (`corrupt`), not a race.
   */
  meta(index: number): Promise<RangeMeta> {
    return this.#metas.load(index, () => this.#load(index));
  }

  /** Metadata already decoded in memory, most recently used first (for cheap lookups by hash). */
  async cached(): Promise<RangeMeta[]> {
    return this.#metas.values();
  }

  /** Heights `lo..hi` (lo ≤ hi, one range) of a projection: one ranged read of its data object. */
  async read(
    projection: Projection,
    lo: number,
    hi: number,
    opts?: SpanReadOptions,
  ): Promise<SpanRead<Body>> {
    const meta = await this.meta(Math.floor(lo / this.rangeSize));
    return this.#read(meta, projection, lo, hi, blockSpan(meta, projection, lo, hi), opts);
  }

  /**
   * The whole data object of range `index` of a projection: one storage read once the range's
   * ends are known — an earlier decode of its metadata, or the range-ends object of the level
   * of `endsLevels` (the head's, `headEndsLevels`) holding it, one read for up to a whole level
   * of ranges — else its metadata first.
   */
  async readWhole(
    projection: Projection,
    index: number,
    endsLevels: readonly HashIndexLevel[] = [],
    opts?: SpanReadOptions,
  ): Promise<WholeRead<Body>> {
    const ends =
      this.#ends.get(index) ?? (await this.#levelEnds(endsLevels, index)) ?? endsOf(await this.meta(index));
    const length = ends.lengths[projection];
    const key = rangeKeys(this.network, this.rangeSize, index).data[projection];
    const body = await this.#fetch(key, { offset: 0, length }, length, opts);
    return { index, projection, ends, length, body };
  }

  /**
   * The ends of bundle `bundle`'s ranges, in order, when its projection's object is stored and
   * every range's ends are known without a metadata read (decoded before, or in a range-ends object
   * of `endsLevels`); else undefined: read its ranges one by one. Their chaining is checked
   * (`corrupt` when they do not).
   */
  async bundleRanges(
    projection: Projection,
    bundle: number,
    field: HeadBundles,
    endsLevels: readonly HashIndexLevel[],
  ): Promise<RangeEnds[] | undefined> {
    const ranges: RangeEnds[] = [];
    for (let index = bundle * field.ranges; index < (bundle + 1) * field.ranges; index++) {
      const ends = this.#ends.get(index) ?? (await this.#levelEnds(endsLevels, index));
      if (ends === undefined) return undefined;
      ranges.push(ends);
    }
    return bundleStored(field, bundleEnds(ranges).lengths[projection]) ? ranges : undefined;
  }

  /**
   * Heights `from..to` (ascending, at least two of the bundle's ranges) of bundle `bundle`, its
   * ranges' ends from `bundleRanges`: one ranged read of the bundle object. A run that starts or
   * ends inside a range needs that range's metadata (for the frame offset and the hash there).
   */
  async readBundle(
    projection: Projection,
    bundle: number,
    field: HeadBundles,
    ranges: readonly RangeEnds[],
    from: number,
    to: number,
  ): Promise<WholeRead<Body>> {
    const size = this.rangeSize;
    const base = bundle * field.ranges;
    const first = Math.floor(from / size) - base;
    const last = Math.floor(to / size) - base;
    let before = 0; // bytes of the bundle's ranges before `first`
    for (let k = 0; k < first; k++) before += ranges[k]!.lengths[projection];
    let through = before; // … and through `last`
    for (let k = first; k <= last; k++) through += ranges[k]!.lengths[projection];
    const [head, tail] = await Promise.all([
      from % size === 0 ? undefined : this.meta(base + first),
      (to + 1) % size === 0 ? undefined : this.meta(base + last),
    ]);
    const start = before + (head ? blockSpan(head, projection, from, from).offset : 0);
    const lastStart = through - ranges[last]!.lengths[projection];
    const end = tail ? lastStart + blockSpan(tail, projection, tail.firstHeight, to).length : through;
    const ends: RangeEnds = {
      firstHeight: from,
      parentWireHash: head ? blockInfo(head, from).wirePrevHash : ranges[first]!.parentWireHash,
      lastHeight: to,
      lastWireHash: tail ? blockInfo(tail, to).wireHash : ranges[last]!.lastWireHash,
      lengths: bundleEnds(ranges).lengths,
    };
    const key = bundleKey(this.network, this.rangeSize, field.ranges, bundle, projection);
    const span = { offset: start, length: end - start };
    const body = await this.#fetch(key, span, ends.lengths[projection]);
    return { index: base + first, projection, ends, length: span.length, body };
  }

  /** Range `index`'s ends from the range-ends object of its level, or undefined without one. */
  async #levelEnds(levels: readonly HashIndexLevel[], index: number): Promise<RangeEnds | undefined> {
    const level = endsLevelOf(levels, index);
    if (level === undefined) return undefined;
    const key = rangeEndsKey(level);
    const table = await this.#endsTables.load(key, async () => {
      const bytes = await this.#store.readObject(key);
      // The head is written after the objects it names: a missing one is damage, not a race.
      if (bytes === null) throw new LightedgeError("corrupt", WHERE, `range-ends object ${key} is missing`);
      const codec = this.#digest ? await withTrailerDigest(bytes, this.#digest, this.#codec) : this.#codec;
      return decodeRangeEnds(bytes, level, codec);
    });
    return rangeEndsAt(table, index);
  }

  /** One block's stored message without its frame header: the bare bytes of a unary answer. */
  async readMessage(projection: Projection, height: number): Promise<SpanRead<Body>> {
    const meta = await this.meta(Math.floor(height / this.rangeSize));
    const frame = blockSpan(meta, projection, height, height);
    const span = { offset: frame.offset + FRAME_HEADER_BYTES, length: frame.length - FRAME_HEADER_BYTES };
    return this.#read(meta, projection, height, height, span);
  }

  async #read(
    meta: RangeMeta,
    projection: Projection,
    lo: number,
    hi: number,
    span: Span,
    opts?: SpanReadOptions,
  ): Promise<SpanRead<Body>> {
    const key = rangeKeys(this.network, this.rangeSize, meta.index).data[projection];
    const body = await this.#fetch(key, span, meta.sections[projection].length, opts);
    return { meta, projection, lo, hi, span, body };
  }

  /** `span` of data (or bundle) object `key`, checked against the object's length its ranges give. */
  async #fetch(key: string, span: Span, expected: number, opts?: SpanReadOptions): Promise<Body> {
    const got = await this.#store.readSpan(key, span, opts);
    if (got === null) throw new LightedgeError("corrupt", WHERE, `stored object ${key} is missing`);
    const problem =
      got.size !== undefined && got.size !== expected
        ? `${key} is ${got.size} bytes, its ranges' lengths say ${expected}`
        : got.length !== undefined && got.length !== span.length
          ? `${key}: expected ${span.length} bytes at ${span.offset}, got ${got.length}`
          : undefined;
    if (problem !== undefined) {
      await got.discard?.().catch(() => {});
      throw new LightedgeError("corrupt", WHERE, problem);
    }
    return got.body;
  }

  /** Drops cached metadata of ranges ≥ `fromIndex` (they are being rebuilt). */
  forget(fromIndex: number): void {
    this.#metas.deleteWhere((index) => index >= fromIndex);
    this.#ends.deleteWhere((index) => index >= fromIndex);
    this.#endsTables.clear();
  }

  async #load(index: number): Promise<RangeMeta> {
    const key = rangeKeys(this.network, this.rangeSize, index).meta;
    const bytes = await this.#store.readObject(key);
    if (bytes === null) throw new LightedgeError("corrupt", WHERE, `range metadata ${key} is missing`);
    const codec = this.#digest ? await withTrailerDigest(bytes, this.#digest, this.#codec) : this.#codec;
    const meta = decodeRangeMeta(bytes, codec);
    assertMetaIdentity(meta, { network: this.network, rangeSize: this.rangeSize, index });
    this.#ends.set(index, endsOf(meta));
    return meta;
  }
}

/** The stored frame of `height` in a read whose body is its bytes, without copying. */
export function frameOf(read: SpanRead<Uint8Array>, height: number): Uint8Array {
  const offsets = read.meta.offsets[read.projection];
  const k = height - read.meta.firstHeight;
  return read.body.subarray(offsets[k]! - read.span.offset, offsets[k + 1]! - read.span.offset);
}
