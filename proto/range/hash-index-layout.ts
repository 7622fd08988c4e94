import { LightedgeError } from "../errors.ts";
import type { HeadObject } from "./head.ts";
import { type LevelSpan, levelObjectKey, shardName } from "./keys.ts";

/**
 * Layout of the block-hash → height index (proto/range-format.md §Hash index): which objects a head
 * names, their keys, and the 32-bit key of a hash. Pure; the codec is hash-index-codec.ts.
 */

/**
 * Version of the index objects and of the head's `hashIndex` field. 2: each entry also says where
 * the block's frame is in its range's `.full.bin`, so a lookup confirms a candidate from the frame
 * it reads anyway (one read fewer than v1, which confirmed against the range's metadata).
 */
export const HASH_INDEX_VERSION = 2;

/** Ranges per epoch unless a writer chooses otherwise: the base level is rebuilt once per epoch. */
export const DEFAULT_EPOCH_RANGES = 64;

/**
 * A level is cut into 2^bits shards so that a shard holds at most this many entries on average:
 * 2,048 entries of 16 bytes keep a shard ≤ 32 KB, one small read.
 */
export const SHARD_TARGET_ENTRIES = 2048;
export const MAX_SHARD_BITS = 16;

/** "LEDGHASH": identifies an index shard regardless of its key. */
export const HASH_MAGIC = new Uint8Array([0x4c, 0x45, 0x44, 0x47, 0x48, 0x41, 0x53, 0x48]);
/**
 * Entries follow the 48-byte shard header of proto/range/index-object.ts; the trailer is after them.
 * An entry: key u32, height u32, the frame's offset in `.full.bin` u32, its message length u32.
 */
export const HASH_ENTRY_BYTES = 16;

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
export interface HashIndexLevel extends LevelSpan {
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

/**
 * Shard bits of a level holding `entries` entries: the fewest keeping shards ≤ `target` on average
 * (at most 16). The history indexes use it with their own targets (proto/history/layout.ts).
 */
export function shardBitsFor(entries: number, target = SHARD_TARGET_ENTRIES): number {
  let bits = 0;
  while (bits < MAX_SHARD_BITS && entries > target * 2 ** bits) bits++;
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
 * The ranges of the levels a head names when its epochs are `epochRanges` ranges (§Hash index,
 * Levels): the base level covers the whole epochs from the first range, the recent level the
 * ranges after them; each only when not empty. The history indexes use the same levels.
 */
export function headLevelSpans(
  head: Pick<HeadObject, "network" | "rangeSize" | "firstHeight" | "rangeCount">,
  epochRanges: number,
): LevelSpan[] {
  const { network, rangeSize, rangeCount } = head;
  const first = head.firstHeight / rangeSize;
  const baseRanges = Math.floor(rangeCount / epochRanges) * epochRanges;
  const spans: LevelSpan[] = [];
  if (baseRanges > 0)
    spans.push({ network, rangeSize, firstIndex: first, lastIndex: first + baseRanges - 1 });
  if (rangeCount > baseRanges)
    spans.push({ network, rangeSize, firstIndex: first + baseRanges, lastIndex: first + rangeCount - 1 });
  return spans;
}

/**
 * The levels a head names, computed from the head alone (never listed). Undefined when the head
 * has no index (written before it existed) or one of a version this reader does not know.
 */
export function headHashLevels(head: HeadObject): HashIndexLevel[] | undefined {
  const index = head.hashIndex;
  if (index === undefined || index.version !== HASH_INDEX_VERSION) return undefined;
  return headLevelSpans(head, index.epochRanges).map((s) =>
    hashIndexLevel(s.network, s.rangeSize, s.firstIndex, s.lastIndex),
  );
}

/**
 * `v1/<network>/r<size>/hash/<FIRST>-<LAST>/<SHARD>.v2.bin`, SHARD as 4 lowercase hex digits. The
 * version is in the name because a level's v1 shards (`<SHARD>.bin`) may be cached for a year
 * under their own keys: a store re-indexed at v2 must not reuse them.
 */
export function hashShardKey(level: LevelSpan, shard: number): string {
  return levelObjectKey(level, "hash", `${shardName(shard)}.v${HASH_INDEX_VERSION}.bin`);
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
