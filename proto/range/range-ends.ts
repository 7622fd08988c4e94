import { sha256 } from "@noble/hashes/sha2.js";
import { equalBytes } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";
import type { CodecOptions } from "./encode.ts";
import { type HashIndexLevel, headHashLevels } from "./hash-index-layout.ts";
import type { HeadObject } from "./head.ts";
import { assertNetworkName, levelObjectKey, type Projection } from "./keys.ts";
import * as L from "./layout.ts";
import { lastWireHash } from "./meta-query.ts";
import type { EncodedRange, RangeMeta, SealedRangeInput } from "./types.ts";

/**
 * Range-ends objects (proto/range-format.md §Range ends): beside each hash-index level, what a
 * whole-range read needs of every range of the level — its first block's parent hash, its last
 * block's hash and its data objects' lengths — so a cold reader streaming many whole ranges (a
 * wallet download: 3,000 ranges at mainnet height) reads one or two small objects instead of each
 * range's 60 KB metadata. Pure: encode, decode, keys; readers and writers do the I/O.
 */

/** Version of the range-ends objects, and the head's `hashIndex.rangeEnds` value naming them. */
export const RANGE_ENDS_VERSION = 1;

/** "LEDGENDS": identifies a range-ends object regardless of its key. */
export const ENDS_MAGIC = new Uint8Array([0x4c, 0x45, 0x44, 0x47, 0x45, 0x4e, 0x44, 0x53]);
/** Magic, version, projection count, network, range size, first and last range, parent hash. */
export const ENDS_HEADER_BYTES = 72;
const PROJECTION_COUNT = L.SECTION_ORDER.length;
/** Per range: its last block's hash, then one u64 data-object length per projection. */
export const ENDS_ENTRY_BYTES = L.HASH_BYTES + 8 * PROJECTION_COUNT;

const WHERE = "range-ends";

/** What a whole-range read needs of one range: its ends and its data objects' lengths. */
export interface RangeEnds {
  firstHeight: number;
  /** The first block's prevHash (wire order): what the previous range must end with. */
  parentWireHash: Uint8Array;
  lastHeight: number;
  lastWireHash: Uint8Array;
  lengths: Record<Projection, number>;
}

/** A range's ends from its decoded metadata (copies: an entry must not pin a 60 KB object). */
export function endsOf(meta: RangeMeta): RangeEnds {
  return {
    firstHeight: meta.firstHeight,
    parentWireHash: meta.parentWireHash.slice(),
    lastHeight: meta.lastHeight,
    lastWireHash: lastWireHash(meta).slice(),
    lengths: {
      shielded: meta.sections.shielded.length,
      full: meta.sections.full.length,
      nullifiers: meta.sections.nullifiers.length,
    },
  };
}

/** A range's ends as the writer encoded it (its blocks and encoded objects). */
export function endsOfEncoded(input: SealedRangeInput, encoded: EncodedRange): RangeEnds {
  const first = input.blocks[0]!;
  const last = input.blocks[input.blocks.length - 1]!;
  return {
    firstHeight: first.height,
    parentWireHash: first.wirePrevHash.slice(),
    lastHeight: last.height,
    lastWireHash: last.wireHash.slice(),
    lengths: {
      shielded: encoded.data.shielded.length,
      full: encoded.data.full.length,
      nullifiers: encoded.data.nullifiers.length,
    },
  };
}

/** `…/hash/<FIRST>-<LAST>/ends.bin`: the level's folder, beside its shards. */
export function rangeEndsKey(level: HashIndexLevel): string {
  return levelObjectKey(level, "hash", "ends.bin");
}

/** The hash-index levels whose range-ends objects the head names; empty when it names none. */
export function headEndsLevels(head: HeadObject): HashIndexLevel[] {
  if (head.hashIndex?.rangeEnds !== RANGE_ENDS_VERSION) return [];
  return headHashLevels(head) ?? [];
}

/** The level of `levels` holding range `index`, or undefined. */
export function endsLevelOf(levels: readonly HashIndexLevel[], index: number): HashIndexLevel | undefined {
  return levels.find((l) => index >= l.firstIndex && index <= l.lastIndex);
}

/** The range-ends object of a level from its ranges' ends, in order, one per range. */
export function encodeRangeEnds(
  level: HashIndexLevel,
  ends: readonly RangeEnds[],
  options: CodecOptions = {},
): Uint8Array {
  const count = level.lastIndex - level.firstIndex + 1;
  if (ends.length !== count)
    throw new LightedgeError(
      "internal",
      WHERE,
      `level ${level.firstIndex}-${level.lastIndex}: ${ends.length} ends`,
    );
  const out = new Uint8Array(ENDS_HEADER_BYTES + count * ENDS_ENTRY_BYTES + L.TRAILER_BYTES);
  const view = new DataView(out.buffer);
  out.set(ENDS_MAGIC, 0);
  view.setUint16(8, RANGE_ENDS_VERSION, false);
  out[10] = PROJECTION_COUNT;
  out[11] = level.network.length;
  out.set(new TextEncoder().encode(level.network), 12);
  view.setUint32(28, level.rangeSize, false);
  view.setUint32(32, level.firstIndex, false);
  view.setUint32(36, level.lastIndex, false);
  out.set(ends[0]!.parentWireHash, 40);
  ends.forEach((e, k) => {
    const index = level.firstIndex + k;
    const expected = index * level.rangeSize;
    // The writer's own ranges: a gap here is a bug upstream, never stored.
    if (e.firstHeight !== expected || e.lastHeight !== expected + level.rangeSize - 1)
      throw new LightedgeError(
        "internal",
        WHERE,
        `range ${index}: ends of heights ${e.firstHeight}–${e.lastHeight}`,
      );
    if (k > 0 && !equalBytes(e.parentWireHash, ends[k - 1]!.lastWireHash))
      throw new LightedgeError("internal", WHERE, `range ${index} does not follow range ${index - 1}`);
    const at = ENDS_HEADER_BYTES + k * ENDS_ENTRY_BYTES;
    out.set(e.lastWireHash, at);
    L.SECTION_ORDER.forEach((p, j) => {
      view.setBigUint64(at + L.HASH_BYTES + 8 * j, BigInt(e.lengths[p]), false);
    });
  });
  const trailerAt = out.length - L.TRAILER_BYTES;
  out.set((options.sha256 ?? sha256)(out.subarray(0, trailerAt)), trailerAt);
  return out;
}

/** A decoded, validated range-ends object: query it with `rangeEndsAt`. */
export interface RangeEndsTable {
  level: HashIndexLevel;
  parentWireHash: Uint8Array;
  /** The entry table, ENDS_ENTRY_BYTES per range. */
  entries: Uint8Array;
}

function corrupt(message: string): LightedgeError {
  return new LightedgeError("corrupt", WHERE, `range-ends object: ${message}`);
}

/**
 * Decodes and validates a range-ends object read under the key of `level`: size, magic, version,
 * projection count, trailer SHA-256 and identity. Anything else is corrupt (DataLoss).
 */
export function decodeRangeEnds(
  bytes: Uint8Array,
  level: HashIndexLevel,
  options: CodecOptions = {},
): RangeEndsTable {
  const minimum = ENDS_HEADER_BYTES + L.TRAILER_BYTES;
  if (bytes.length < minimum) throw corrupt(`truncated (${bytes.length} bytes)`);
  if (!equalBytes(bytes.subarray(0, 8), ENDS_MAGIC)) throw corrupt("bad magic (not a range-ends object)");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint16(8, false);
  if (version !== RANGE_ENDS_VERSION) throw corrupt(`unsupported version ${version}`);
  if (bytes[10] !== PROJECTION_COUNT) throw corrupt(`projection count ${bytes[10]}`);
  const count = level.lastIndex - level.firstIndex + 1;
  if (bytes.length !== minimum + count * ENDS_ENTRY_BYTES)
    throw corrupt(`size ${bytes.length} does not match ${count} ranges`);
  const trailerAt = bytes.length - L.TRAILER_BYTES;
  if (!equalBytes((options.sha256 ?? sha256)(bytes.subarray(0, trailerAt)), bytes.subarray(trailerAt)))
    throw corrupt("SHA-256 mismatch");
  const nameLength = Math.min(bytes[11]!, L.NETWORK_FIELD_BYTES);
  const network = new TextDecoder().decode(bytes.subarray(12, 12 + nameLength));
  try {
    assertNetworkName(network);
  } catch {
    throw corrupt("bad network name");
  }
  const rangeSize = view.getUint32(28, false);
  const firstIndex = view.getUint32(32, false);
  const lastIndex = view.getUint32(36, false);
  if (
    network !== level.network ||
    rangeSize !== level.rangeSize ||
    firstIndex !== level.firstIndex ||
    lastIndex !== level.lastIndex
  )
    throw corrupt(
      `object for ${rangeEndsKey(level)} describes ${network} r${rangeSize} ${firstIndex}-${lastIndex}`,
    );
  return {
    level,
    parentWireHash: bytes.slice(40, 72),
    entries: bytes.slice(ENDS_HEADER_BYTES, trailerAt),
  };
}

/** The ends of range `index` of a decoded table (the caller picked the level holding it). */
export function rangeEndsAt(table: RangeEndsTable, index: number): RangeEnds {
  const { level, entries } = table;
  const k = index - level.firstIndex;
  if (k < 0 || index > level.lastIndex)
    throw new LightedgeError(
      "internal",
      WHERE,
      `range ${index} is not in ${level.firstIndex}-${level.lastIndex}`,
    );
  const view = new DataView(entries.buffer, entries.byteOffset, entries.byteLength);
  const at = k * ENDS_ENTRY_BYTES;
  const lengths = {} as Record<Projection, number>;
  L.SECTION_ORDER.forEach((p, j) => {
    lengths[p] = Number(view.getBigUint64(at + L.HASH_BYTES + 8 * j, false));
  });
  const firstHeight = index * level.rangeSize;
  return {
    firstHeight,
    // Ranges chain (the writer refuses ranges that do not): a range's parent is the previous one's last hash.
    parentWireHash:
      k === 0
        ? table.parentWireHash
        : entries.subarray(at - ENDS_ENTRY_BYTES, at - ENDS_ENTRY_BYTES + L.HASH_BYTES),
    lastHeight: firstHeight + level.rangeSize - 1,
    lastWireHash: entries.subarray(at, at + L.HASH_BYTES),
    lengths,
  };
}
