import { LightedgeError } from "../errors.ts";
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
 * Entries travel as a BigUint64Array of `key32 · 2³² + height`: sorting it numerically (native,
 * no comparator) orders by key then height, which is the stored order, and each value is exactly
 * the stored 8 bytes read big-endian.
 */

const WHERE = "hash-index";

export type HashEntries = BigUint64Array;

/** One entry for a block: its hash key and height. */
export function hashEntry(wireHash: Uint8Array, height: number): bigint {
  return (BigInt(H.hashKey32(wireHash)) << 32n) | BigInt(height);
}

/** The entries of one sealed range, from its metadata's block table (unsorted). */
export function metaHashEntries(meta: RangeMeta): HashEntries {
  const out = new BigUint64Array(meta.blockCount);
  for (let k = 0; k < meta.blockCount; k++) {
    const at = k * meta.entryBytes + L.B_HASH;
    out[k] = hashEntry(meta.table.subarray(at, at + L.HASH_BYTES), meta.firstHeight + k);
  }
  return out;
}

/** The entries of consecutive blocks (unsorted). */
export function blockHashEntries(blocks: readonly { height: number; wireHash: Uint8Array }[]): HashEntries {
  const out = new BigUint64Array(blocks.length);
  blocks.forEach((b, k) => {
    out[k] = hashEntry(b.wireHash, b.height);
  });
  return out;
}

/** Every part's entries in one sorted array. */
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

/**
 * Every shard object of a level from its sorted entries, which must be exactly one per block of
 * the level's ranges. Deterministic: the same ranges always give the same bytes.
 */
export function encodeHashLevel(
  level: HashIndexLevel,
  entries: HashEntries,
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
      bytes: encodeShard(level, shard, entries.subarray(from, to), options),
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
  options: CodecOptions,
): Uint8Array {
  const { bytes, view } = newShardObject(HASH_SHARD, level, shard, entries.length);
  for (let i = 0; i < entries.length; i++)
    view.setBigUint64(SHARD_HEADER_BYTES + i * H.HASH_ENTRY_BYTES, entries[i]!, false);
  writeTrailer(bytes, options);
  return bytes;
}

/** A decoded, validated shard: query it with `shardHeights`. */
export interface HashShard {
  level: HashIndexLevel;
  shard: number;
  count: number;
  /** The entry table (8 bytes each: key u32, height u32, big-endian). */
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
    if (key < previousKey || (key === previousKey && height <= previousHeight))
      throw corrupt(`entry ${i} is out of order`);
    previousKey = key;
    previousHeight = height;
  }
}

/** Heights whose hash has this key (usually one or none; a 32-bit key can be shared). */
export function shardHeights(shard: HashShard, key32: number): number[] {
  const { entries, count } = shard;
  const keyAt = (i: number) => entries.getUint32(i * H.HASH_ENTRY_BYTES, false);
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyAt(mid) < key32) lo = mid + 1;
    else hi = mid;
  }
  const out: number[] = [];
  for (let i = lo; i < count && keyAt(i) === key32; i++)
    out.push(entries.getUint32(i * H.HASH_ENTRY_BYTES + 4, false));
  return out;
}
