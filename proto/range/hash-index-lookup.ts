import { equalBytes, reversed } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";
import { FLAG_DATA, FRAME_HEADER_BYTES } from "../frame.ts";
import type { LoadCache } from "../lru.ts";
import { type BlockIdentity, readBlockIdentity } from "../wire/block-identity.ts";
import type { CodecOptions } from "./encode.ts";
import { decodeHashShard, type HashCandidate, type HashShard, shardCandidates } from "./hash-index-codec.ts";
import {
  type HashIndexLevel,
  hashKey32,
  hashShardKey,
  headHashLevels,
  shardOf,
} from "./hash-index-layout.ts";
import type { HeadObject } from "./head.ts";
import { rangeIndexOf, rangeKeys } from "./keys.ts";
import { type AsyncSha256, withTrailerDigest } from "./trailer-digest.ts";
import type { Span } from "./types.ts";

/**
 * GetBlock by hash for any sealed height (proto/range-format.md §Hash index): one shard read per
 * level, at most two, in parallel; then the candidate's frame, read from its range's `.full.bin`
 * at the span its entry gives, confirms the whole hash — and is the block a GetBlock sends.
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
 * Sealed blocks whose hash has the same key as `hash` (in either byte order), ascending by height;
 * undefined when the head names no index. Candidates only: confirm them (`lookupSealedHash`).
 */
export async function hashIndexCandidates(
  src: HashIndexSource,
  head: HeadObject,
  hash: Uint8Array,
): Promise<HashCandidate[] | undefined> {
  const levels = headHashLevels(head);
  if (levels === undefined) return undefined;
  const key = hashKey32(hash);
  const shards = await loadLevelShards(src, src.shards, levels, key, HASH_SHARDS);
  const found = shards.map(({ decoded }) => shardCandidates(decoded, key));
  return found.flat().sort((a, b) => a.height - b.height);
}

export type SealedHashLookup =
  | { indexed: false }
  | { indexed: true; found: { height: number; frame: Uint8Array } | undefined };

/**
 * The sealed block with this hash (wire or display order) and its stored `full` frame (header
 * included); `found` undefined means no sealed block has it (the index covers every sealed range).
 * A candidate whose frame names another hash shares the key only; one naming another height, or
 * not a frame of the entry's length, is a corrupt index or object.
 */
export async function lookupSealedHash(
  src: HashIndexSource,
  head: HeadObject,
  hash: Uint8Array,
): Promise<SealedHashLookup> {
  const candidates = await hashIndexCandidates(src, head, hash);
  if (candidates === undefined) return { indexed: false };
  const orders = [hash, reversed(hash)];
  for (const c of candidates) {
    const key = rangeKeys(head.network, head.rangeSize, rangeIndexOf(c.height, head.rangeSize)).data.full;
    const frame = await src.read(key, { offset: c.offset, length: FRAME_HEADER_BYTES + c.length });
    const corrupt = (why: string) =>
      new LightedgeError("corrupt", "hash-index", `hash index entry for height ${c.height}: ${why}`);
    if (frame === null) throw corrupt(`${key} is missing`);
    if (
      frame.length !== FRAME_HEADER_BYTES + c.length ||
      frame[0] !== FLAG_DATA ||
      new DataView(frame.buffer, frame.byteOffset + 1, 4).getUint32(0, false) !== c.length
    )
      throw corrupt(`no frame of ${c.length} bytes at ${c.offset} in ${key}`);
    const id = blockIdentityOf(frame.subarray(FRAME_HEADER_BYTES));
    if (id === undefined || id.height !== c.height)
      throw corrupt(`the frame at ${c.offset} is another block`);
    if (orders.some((h) => equalBytes(h, id.wireHash)))
      return { indexed: true, found: { height: c.height, frame } };
  }
  return { indexed: true, found: undefined };
}

/** A stored frame's block identity, or undefined when its message does not parse. */
function blockIdentityOf(message: Uint8Array): BlockIdentity | undefined {
  try {
    return readBlockIdentity(message);
  } catch {
    return undefined;
  }
}
