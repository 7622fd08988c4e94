import { equalBytes, reversed } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";
import type { LoadCache } from "../lru.ts";
import type { CodecOptions } from "./encode.ts";
import { decodeHashShard, type HashShard, shardHeights } from "./hash-index-codec.ts";
import {
  type HashIndexLevel,
  hashKey32,
  hashShardKey,
  headHashLevels,
  shardOf,
} from "./hash-index-layout.ts";
import type { HeadObject } from "./head.ts";
import { rangeIndexOf } from "./keys.ts";
import * as L from "./layout.ts";
import { type AsyncSha256, withTrailerDigest } from "./trailer-digest.ts";
import type { RangeMeta, Span } from "./types.ts";

/**
 * GetBlock by hash for any sealed height (proto/range-format.md §Hash index): one shard read per
 * level, at most two, in parallel; then the candidate's range metadata confirms the whole hash.
 * Pure: storage comes in through `read`, so the edge and the origin share this code.
 */

/** Whole object (or a span of it), or null when absent. */
export type ReadObject = (key: string, span?: Span) => Promise<Uint8Array | null>;

/** Where a reader gets index objects: the store, a cache of decoded ones, how to check trailers. */
export interface IndexObjectSource {
  read: ReadObject;
  sha256?: CodecOptions["sha256"];
  /** An async (native) SHA-256 that checks trailers instead (the edge: WebCrypto). */
  digest?: AsyncSha256;
}

export interface HashIndexSource extends IndexObjectSource {
  /** Decoded shards by key: they never change, so a reader keeps them as long as they fit. */
  shards?: LoadCache<string, HashShard>;
}

/**
 * An index object a head names, read whole, decoded and checked by `decode`, through `cache` when
 * given. The head is written after its index objects, so a missing one is damage (corrupt), not a
 * race. Every index lookup (hash, transaction, address) loads its objects this way.
 */
export async function loadIndexObject<T>(
  src: IndexObjectSource,
  cache: LoadCache<string, T> | undefined,
  key: string,
  where: string,
  decode: (bytes: Uint8Array, codec: CodecOptions) => T,
): Promise<T> {
  const load = async () => {
    const bytes = await src.read(key);
    if (bytes === null) throw new LightedgeError("corrupt", where, `index object ${key} is missing`);
    const codec = { sha256: src.sha256 };
    return decode(bytes, src.digest ? await withTrailerDigest(bytes, src.digest, codec) : codec);
  };
  return cache ? cache.load(key, load) : load();
}

/** One kind of index shard object a lookup reads. */
export interface LevelShardObject<L extends HashIndexLevel, T> {
  where: string;
  keyOf(level: L, shard: number): string;
  decode(bytes: Uint8Array, level: L, shard: number, codec: CodecOptions): T;
}

/**
 * For each level, the shard holding `key32` (its top bits), decoded: one read per level, all in
 * parallel (`loadIndexObject`). Every index lookup — hash, transaction, address — starts this way.
 */
export function loadLevelShards<L extends HashIndexLevel, T>(
  src: IndexObjectSource,
  cache: LoadCache<string, T> | undefined,
  levels: readonly L[],
  key32: number,
  object: LevelShardObject<L, T>,
): Promise<{ level: L; shard: number; decoded: T }[]> {
  return Promise.all(
    levels.map(async (level) => {
      const shard = shardOf(key32, level.bits);
      const decoded = await loadIndexObject(
        src,
        cache,
        object.keyOf(level, shard),
        object.where,
        (bytes, codec) => object.decode(bytes, level, shard, codec),
      );
      return { level, shard, decoded };
    }),
  );
}

const HASH_SHARDS: LevelShardObject<HashIndexLevel, HashShard> = {
  where: "hash-index",
  keyOf: hashShardKey,
  decode: decodeHashShard,
};

/**
 * Heights of sealed blocks whose hash has the same key as `hash` (in either byte order), ascending;
 * undefined when the head names no index. Candidates only: confirm them (`lookupSealedHash`).
 */
export async function hashIndexCandidates(
  src: HashIndexSource,
  head: HeadObject,
  hash: Uint8Array,
): Promise<number[] | undefined> {
  const levels = headHashLevels(head);
  if (levels === undefined) return undefined;
  const key = hashKey32(hash);
  const shards = await loadLevelShards(src, src.shards, levels, key, HASH_SHARDS);
  const found = shards.map(({ decoded }) => shardHeights(decoded, key));
  return found.flat().sort((a, b) => a - b);
}

export interface SealedHashSource extends HashIndexSource {
  /** Metadata of a sealed range (the reader's own cache). */
  meta(index: number): Promise<RangeMeta>;
}

export type SealedHashLookup =
  | { indexed: false }
  | { indexed: true; found: { height: number; meta: RangeMeta } | undefined };

/**
 * The sealed block with this hash (wire or display order), confirmed against its range's block
 * table; `found` undefined means no sealed block has it (the index covers every sealed range).
 */
export async function lookupSealedHash(
  src: SealedHashSource,
  head: HeadObject,
  hash: Uint8Array,
): Promise<SealedHashLookup> {
  const candidates = await hashIndexCandidates(src, head, hash);
  if (candidates === undefined) return { indexed: false };
  const orders = [hash, reversed(hash)];
  for (const height of candidates) {
    const meta = await src.meta(rangeIndexOf(height, head.rangeSize));
    const at = (height - meta.firstHeight) * meta.entryBytes + L.B_HASH;
    const stored = meta.table.subarray(at, at + L.HASH_BYTES);
    if (orders.some((h) => equalBytes(h, stored))) return { indexed: true, found: { height, meta } };
  }
  return { indexed: true, found: undefined };
}
