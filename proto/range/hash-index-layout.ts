import { LightedgeError } from "../errors.ts";
import type { HeadObject } from "./head.ts";
import { rangeFolder, rangeIndexName } from "./keys.ts";

/**
 * Layout of the block-hash → height index (proto/range-format.md §Hash index): which objects a head
 * names, their keys, and the 32-bit key of a hash. Pure; the codec is hash-index-codec.ts.
 */

/** Version of the index objects and of the head's `hashIndex` field. */
export const HASH_INDEX_VERSION = 1;

/** Ranges per epoch unless a writer chooses otherwise: the base level is rebuilt once per epoch. */
export const DEFAULT_EPOCH_RANGES = 64;

/** A level is cut into 2^bits shards so that a shard holds at most this many entries on average. */
export const SHARD_TARGET_ENTRIES = 4096;
export const MAX_SHARD_BITS = 16;

/** "LEDGHASH": identifies an index shard regardless of its key. */
export const HASH_MAGIC = new Uint8Array([0x4c, 0x45, 0x44, 0x47, 0x48, 0x41, 0x53, 0x48]);
export const HASH_HEADER_BYTES = 48;
export const HASH_ENTRY_BYTES = 8;
export const HASH_TRAILER_BYTES = 32;

/** The head field saying the index objects of its ranges exist. */
export interface HeadHashIndex {
  version: number;
  /** Ranges per epoch (the base level covers whole epochs from the first range). */
  epochRanges: number;
  /**
   * Version of the range-ends object stored beside each level (proto/range/range-ends.ts); absent
   * in heads written before those objects existed.
   */
  rangeEnds?: number;
}

/** One immutable level: the entries of ranges `firstIndex..lastIndex`, cut into 2^bits shards. */
export interface HashIndexLevel {
  network: string;
  rangeSize: number;
  firstIndex: number;
  lastIndex: number;
  bits: number;
}

/**
 * Key of a hash, the same for both byte orders: the first four bytes read big-endian XOR the last
 * four read little-endian (which are the first four of the reversed hash read big-endian). Clients
 * send BlockID.hash in wire or display order (edge/blocks/find-hash.ts accepts both), so one read
 * per level answers either. In wire order the first bytes of a block hash are its low-order bytes,
 * uniform under proof of work, so keys spread evenly over shards.
 */
export function hashKey32(hash: Uint8Array): number {
  if (hash.length !== 32) throw new LightedgeError("bad-request", "hash-index", "a block hash is 32 bytes");
  const front = ((hash[0]! << 24) | (hash[1]! << 16) | (hash[2]! << 8) | hash[3]!) >>> 0;
  const back = ((hash[31]! << 24) | (hash[30]! << 16) | (hash[29]! << 8) | hash[28]!) >>> 0;
  return (front ^ back) >>> 0;
}

/** Shard bits of a level holding `entries` entries: the fewest keeping shards ≤ the target on average. */
export function shardBitsFor(entries: number): number {
  let bits = 0;
  while (bits < MAX_SHARD_BITS && entries > SHARD_TARGET_ENTRIES * 2 ** bits) bits++;
  return bits;
}

/** The shard holding a key: its top `bits` bits. */
export function shardOf(key32: number, bits: number): number {
  return bits === 0 ? 0 : key32 >>> (32 - bits);
}

export function hashIndexLevel(
  network: string,
  rangeSize: number,
  firstIndex: number,
  lastIndex: number,
): HashIndexLevel {
  return {
    network,
    rangeSize,
    firstIndex,
    lastIndex,
    bits: shardBitsFor((lastIndex - firstIndex + 1) * rangeSize),
  };
}

/**
 * The levels a head names, computed from the head alone (never listed): the base level covers the
 * whole epochs from the first range, the recent level the ranges after them. Undefined when the
 * head has no index (written before it existed) or one of a version this reader does not know.
 */
export function headHashLevels(head: HeadObject): HashIndexLevel[] | undefined {
  const index = head.hashIndex;
  if (index === undefined || index.version !== HASH_INDEX_VERSION) return undefined;
  const first = head.firstHeight / head.rangeSize;
  const baseRanges = Math.floor(head.rangeCount / index.epochRanges) * index.epochRanges;
  const levels: HashIndexLevel[] = [];
  if (baseRanges > 0)
    levels.push(hashIndexLevel(head.network, head.rangeSize, first, first + baseRanges - 1));
  if (head.rangeCount > baseRanges)
    levels.push(
      hashIndexLevel(head.network, head.rangeSize, first + baseRanges, first + head.rangeCount - 1),
    );
  return levels;
}

/** `v1/<network>/r<size>/hash/<FIRST>-<LAST>/<SHARD>.bin`, SHARD as 4 lowercase hex digits. */
export function hashShardKey(level: HashIndexLevel, shard: number): string {
  const folder = `${rangeFolder(level.network, level.rangeSize)}hash/`;
  const span = `${rangeIndexName(level.firstIndex)}-${rangeIndexName(level.lastIndex)}`;
  return `${folder}${span}/${shard.toString(16).padStart(4, "0")}.bin`;
}

/** Validates the head's `hashIndex` field (proto/range/head.ts calls it when the field is present). */
export function isHeadHashIndex(value: unknown): value is HeadHashIndex {
  const v = value as HeadHashIndex;
  return (
    typeof v === "object" &&
    v !== null &&
    Number.isInteger(v.version) &&
    v.version >= 1 &&
    Number.isInteger(v.epochRanges) &&
    v.epochRanges >= 1 &&
    v.epochRanges <= 65_536 &&
    (v.rangeEnds === undefined || (Number.isInteger(v.rangeEnds) && v.rangeEnds >= 1))
  );
}
