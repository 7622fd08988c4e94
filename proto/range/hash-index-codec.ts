import { LightedgeError } from "../errors.ts";
import { FRAME_HEADER_BYTES } from "../frame.ts";
import type { CodecOptions } from "./encode.ts";
import type { HashIndexLevel } from "./hash-index-layout.ts";
import * as H from "./hash-index-layout.ts";
import {
  newShardObject,
  openShardObject,
  SHARD_HEADER_BYTES,
  type ShardFormat,
  writeTrailer,
} from "./index-object.ts";
import * as L from "./layout.ts";
import type { RangeMeta } from "./types.ts";

/**
 * Encoder and decoder of the hash index's shard objects (proto/range-format.md §Hash index).
 *
 * Keys travel as a BigUint64Array of `key32 · 2³² + height`: sorting it numerically (native, no
 * comparator) orders by key then height, which is the stored order. Each entry's frame span (offset
 * and message length in the range's `.full.bin`) is looked up by height when a level is encoded.
 */

const WHERE = "hash-index";

/** Sortable `key32 · 2³² + height` values. */
export type HashEntries = BigUint64Array;

/** What one sealed range gives the index: a key per block, and each block's full message length. */
export interface RangeHashes {
  /** One per block, in height order (unsorted by key). */
  keys: HashEntries;
  /** Length of each block's `full` message (its frame in `.full.bin` is 5 bytes longer), by height. */
  fullLengths: Uint32Array;
}

/** One entry's key value for a block: its hash key and height. */
export function hashEntry(wireHash: Uint8Array, height: number): bigint {
  return (BigInt(H.hashKey32(wireHash)) << 32n) | BigInt(height);
}

/** A sealed range's index input, from its metadata's block table and frame offsets. */
export function metaHashEntries(meta: RangeMeta): RangeHashes {
  const keys = new BigUint64Array(meta.blockCount);
  const fullLengths = new Uint32Array(meta.blockCount);
  const frames = meta.offsets.full;
  for (let k = 0; k < meta.blockCount; k++) {
    const at = k * meta.entryBytes + L.B_HASH;
    keys[k] = hashEntry(meta.table.subarray(at, at + L.HASH_BYTES), meta.firstHeight + k);
    fullLengths[k] = frames[k + 1]! - frames[k]! - FRAME_HEADER_BYTES;
  }
  return { keys, fullLengths };
}

/** A range's index input from its blocks, in height order, as the range encoder takes them. */
export function blockHashEntries(
  blocks: readonly { height: number; wireHash: Uint8Array; messages: { full: Uint8Array } }[],
): RangeHashes {
  const keys = new BigUint64Array(blocks.length);
  const fullLengths = new Uint32Array(blocks.length);
  blocks.forEach((b, k) => {
    keys[k] = hashEntry(b.wireHash, b.height);
    fullLengths[k] = b.messages.full.length;
  });
  return { keys, fullLengths };
}

/** Every part's keys in one sorted array. */
export function sortedEntries(parts: readonly HashEntries[]): HashEntries {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new BigUint64Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out.sort();
}

/** Frame offsets and message lengths of a level's blocks, by height − the level's first height. */
interface LevelFrames {
  offsets: Uint32Array;
  lengths: Uint32Array;
}

const U32_LIMIT = 2 ** 32;

function levelFrames(level: HashIndexLevel, fullLengths: readonly Uint32Array[]): LevelFrames {
  const blocks = (level.lastIndex - level.firstIndex + 1) * level.rangeSize;
  const offsets = new Uint32Array(blocks);
  const lengths = new Uint32Array(blocks);
  if (
    fullLengths.length * level.rangeSize !== blocks ||
    fullLengths.some((l) => l.length !== level.rangeSize)
  )
    throw new LightedgeError(
      "internal",
      WHERE,
      `level ${level.firstIndex}-${level.lastIndex} needs every range's message lengths`,
    );
  fullLengths.forEach((range, r) => {
    let offset = 0;
    for (let k = 0; k < level.rangeSize; k++) {
      const length = range[k]!;
      if (offset + FRAME_HEADER_BYTES + length >= U32_LIMIT)
        throw new LightedgeError("internal", WHERE, `range ${level.firstIndex + r}: .full.bin passes 4 GiB`);
      offsets[r * level.rangeSize + k] = offset;
      lengths[r * level.rangeSize + k] = length;
      offset += FRAME_HEADER_BYTES + length;
    }
  });
  return { offsets, lengths };
}

/**
 * Every shard object of a level from its sorted keys, which must be exactly one per block of the
 * level's ranges, and those ranges' `fullLengths` in range order (for the frame spans).
 * Deterministic: the same ranges always give the same bytes.
 */
export function encodeHashLevel(
  level: HashIndexLevel,
  entries: HashEntries,
  fullLengths: readonly Uint32Array[],
  options: CodecOptions = {},
): { key: string; bytes: Uint8Array }[] {
  const expected = (level.lastIndex - level.firstIndex + 1) * level.rangeSize;
  if (entries.length !== expected || level.bits !== H.shardBitsFor(expected)) {
    throw new LightedgeError(
      "internal",
      WHERE,
      `level ${level.firstIndex}-${level.lastIndex} needs ${expected} entries in ${2 ** H.shardBitsFor(expected)} shards, got ${entries.length} in ${2 ** level.bits}`,
    );
  }
  const frames = levelFrames(level, fullLengths);
  const shards = 2 ** level.bits;
  const out: { key: string; bytes: Uint8Array }[] = [];
  let from = 0;
  for (let shard = 0; shard < shards; shard++) {
    const to =
      shard === shards - 1
        ? entries.length
        : firstAtLeast(entries, BigInt(shard + 1) << BigInt(64 - level.bits));
    out.push({
      key: H.hashShardKey(level, shard),
      bytes: encodeShard(level, shard, entries.subarray(from, to), frames, options),
    });
    from = to;
  }
  return out;
}

/** Index of the first entry ≥ `value` in sorted entries. */
function firstAtLeast(entries: HashEntries, value: bigint): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The hash index's shard objects (§Hash index, Shard object). */
const HASH_SHARD: ShardFormat = {
  magic: H.HASH_MAGIC,
  version: H.HASH_INDEX_VERSION,
  entryBytes: H.HASH_ENTRY_BYTES,
  what: "hash index shard",
  where: WHERE,
  keyOf: H.hashShardKey,
};

function encodeShard(
  level: HashIndexLevel,
  shard: number,
  entries: HashEntries,
  frames: LevelFrames,
  options: CodecOptions,
): Uint8Array {
  const { bytes, view } = newShardObject(HASH_SHARD, level, shard, entries.length);
  const low = level.firstIndex * level.rangeSize;
  for (let i = 0; i < entries.length; i++) {
    const at = SHARD_HEADER_BYTES + i * H.HASH_ENTRY_BYTES;
    const value = entries[i]!;
    const k = Number(value & 0xffff_ffffn) - low;
    if (k < 0 || k >= frames.offsets.length)
      throw new LightedgeError("internal", WHERE, `entry at height ${k + low} is outside its level`);
    view.setBigUint64(at, value, false);
    view.setUint32(at + 8, frames.offsets[k]!, false);
    view.setUint32(at + 12, frames.lengths[k]!, false);
  }
  writeTrailer(bytes, options);
  return bytes;
}

/** A decoded, validated shard: query it with `shardHeights`. */
export interface HashShard {
  level: HashIndexLevel;
  shard: number;
  count: number;
  /** The entry table (16 bytes each: key, height, frame offset, message length; u32 big-endian). */
  entries: DataView;
}

function corrupt(message: string): LightedgeError {
  return new LightedgeError("corrupt", WHERE, `hash index shard: ${message}`);
}

/**
 * Decodes and validates a shard read under the key of (`level`, `shard`): size, magic, version,
 * trailer SHA-256, identity, and every entry in order, in the shard and inside the level's
 * heights. Anything else is "corrupt" (a reader never answers from an unchecked table).
 */
export function decodeHashShard(
  bytes: Uint8Array,
  level: HashIndexLevel,
  shard: number,
  options: CodecOptions = {},
): HashShard {
  const { count, entries } = openShardObject(bytes, HASH_SHARD, level, shard, options);
  checkEntries(entries, count, level, shard);
  return { level, shard, count, entries };
}

function checkEntries(entries: DataView, count: number, level: HashIndexLevel, shard: number): void {
  const low = level.firstIndex * level.rangeSize;
  const high = (level.lastIndex + 1) * level.rangeSize - 1;
  let previousKey = -1;
  let previousHeight = -1;
  for (let i = 0; i < count; i++) {
    const key = entries.getUint32(i * H.HASH_ENTRY_BYTES, false);
    const height = entries.getUint32(i * H.HASH_ENTRY_BYTES + 4, false);
    if (H.shardOf(key, level.bits) !== shard) throw corrupt(`entry ${i} belongs to another shard`);
    if (height < low || height > high)
      throw corrupt(`entry ${i}: height ${height} is outside ${low}–${high}`);
    const frameEnd =
      entries.getUint32(i * H.HASH_ENTRY_BYTES + 8, false) +
      FRAME_HEADER_BYTES +
      entries.getUint32(i * H.HASH_ENTRY_BYTES + 12, false);
    if (frameEnd >= U32_LIMIT) throw corrupt(`entry ${i}: its frame ends past 4 GiB`);
    if (key < previousKey || (key === previousKey && height <= previousHeight))
      throw corrupt(`entry ${i} is out of order`);
    previousKey = key;
    previousHeight = height;
  }
}

/** A block whose hash has a key: its height and where its `full` frame is in its range's object. */
export interface HashCandidate {
  height: number;
  /** The frame's first byte in `.full.bin`. */
  offset: number;
  /** The message's length (the frame is 5 bytes longer). */
  length: number;
}

/** Blocks whose hash has this key, ascending by height (usually one or none; keys can be shared). */
export function shardCandidates(shard: HashShard, key32: number): HashCandidate[] {
  const { entries, count } = shard;
  const E = H.HASH_ENTRY_BYTES;
  const keyAt = (i: number) => entries.getUint32(i * E, false);
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyAt(mid) < key32) lo = mid + 1;
    else hi = mid;
  }
  const out: HashCandidate[] = [];
  for (let i = lo; i < count && keyAt(i) === key32; i++)
    out.push({
      height: entries.getUint32(i * E + 4, false),
      offset: entries.getUint32(i * E + 8, false),
      length: entries.getUint32(i * E + 12, false),
    });
  return out;
}
