import { compareBytesAt, getU64, setU64 } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";
import type { LoadCache } from "../lru.ts";
import type { CodecOptions } from "../range/encode.ts";
import { shardOf } from "../range/hash-index-layout.ts";
import {
  type IndexObjectSource,
  type LevelShardObject,
  loadLevelShards,
} from "../range/hash-index-lookup.ts";
import type { HeadObject } from "../range/head.ts";
import {
  newShardObject,
  openShardObject,
  SHARD_HEADER_BYTES,
  type ShardFormat,
  writeTrailer,
} from "../range/index-object.ts";
import type { LevelSpan } from "../range/keys.ts";
import { txIndexShardKey } from "./keys.ts";
import {
  HISTORY_VERSION,
  type HistoryIndexLevel,
  headHistoryLevels,
  itemKey32,
  levelHeights,
  txIndexLevel,
} from "./layout.ts";
import { byShard, type LevelObject, PackedItems } from "./level-writer.ts";

/**
 * The transaction index (proto/range-format.md §Node-free history, Transaction index): txid →
 * where the transaction's bytes are, in levels of sorted shards. An entry carries the whole txid,
 * so a match is the transaction, never a candidate.
 */

const WHERE = "history-txid";

/** "LEDGTXID": identifies a transaction index shard regardless of its key. */
export const TXID_MAGIC = new Uint8Array([0x4c, 0x45, 0x44, 0x47, 0x54, 0x58, 0x49, 0x44]);
/** txid (32), height (u32), position in block (u32), offset in the raw-block object (u64), length (u32). */
export const TX_ENTRY_BYTES = 52;
const TXID_BYTES = 32;
const E_HEIGHT = 32;
const E_INDEX = 36;
const E_OFFSET = 40;
const E_LENGTH = 48;
/** The sort key: txid then height, big-endian, so bytewise order is the stored order. */
const ORDER_BYTES = 36;

/** Where a transaction is: its block, its position there, its bytes in the range's raw-block object. */
export interface TxLocation {
  height: number;
  /** Position in the block (0 = coinbase). */
  index: number;
  offset: number;
  length: number;
}

export interface TxIndexEntry extends TxLocation {
  wireTxid: Uint8Array;
}

const TX_SHARD: ShardFormat = {
  magic: TXID_MAGIC,
  version: HISTORY_VERSION,
  entryBytes: TX_ENTRY_BYTES,
  what: "transaction index shard",
  where: WHERE,
  keyOf: txIndexShardKey,
};

/** The 52 stored bytes of an entry (what the writer keeps, sorts and streams back). */
export function encodeTxEntry(entry: TxIndexEntry): Uint8Array {
  if (entry.wireTxid.length !== TXID_BYTES)
    throw new LightedgeError("bad-request", WHERE, "a txid is 32 bytes");
  const out = new Uint8Array(TX_ENTRY_BYTES);
  const view = new DataView(out.buffer);
  out.set(entry.wireTxid, 0);
  view.setUint32(E_HEIGHT, entry.height, false);
  view.setUint32(E_INDEX, entry.index, false);
  setU64(view, E_OFFSET, entry.offset);
  view.setUint32(E_LENGTH, entry.length, false);
  return out;
}

/** The entry at byte `at` of packed entries (a copy of its txid). */
export function decodeTxEntry(entries: Uint8Array, at = 0): TxIndexEntry {
  return { wireTxid: entries.slice(at, at + TXID_BYTES), ...locationAt(entries, at) };
}

function locationAt(entries: Uint8Array, at: number): TxLocation {
  const view = new DataView(entries.buffer, entries.byteOffset + at, TX_ENTRY_BYTES);
  const offset = getU64(view, E_OFFSET);
  if (Number.isNaN(offset))
    throw new LightedgeError("corrupt", WHERE, "transaction index: offset beyond 2^53");
  return {
    height: view.getUint32(E_HEIGHT, false),
    index: view.getUint32(E_INDEX, false),
    offset,
    length: view.getUint32(E_LENGTH, false),
  };
}

/**
 * Why the entry at `at` cannot follow the one at `previousAt` of `previous` (−1: it is the first)
 * in a level of heights `low … high`; undefined when it can. The writer and the reader check
 * entries with this one function.
 */
function entryProblem(
  entries: Uint8Array,
  view: DataView,
  at: number,
  previous: Uint8Array,
  previousAt: number,
  low: number,
  high: number,
): string | undefined {
  const height = view.getUint32(at + E_HEIGHT, false);
  if (height < low || height > high) return `height ${height} is outside ${low}–${high}`;
  if (previousAt >= 0 && compareBytesAt(entries, at, previous, previousAt, ORDER_BYTES) <= 0)
    return "out of order";
  return undefined;
}

/**
 * Every shard object of a level, one at a time, from its entries (52 bytes each, `encodeTxEntry`)
 * already sorted bytewise — txid, then height — exactly `level.count` of them (the count picks the
 * shard bits, so it comes first: `txIndexLevel`). Holds one shard; copies each entry once.
 */
export function* encodeTxIndexLevel(
  level: HistoryIndexLevel,
  sortedEntries: Iterable<Uint8Array>,
  options: CodecOptions = {},
): Generator<LevelObject> {
  const refuse = (message: string) =>
    new LightedgeError("bad-request", WHERE, `transaction index: ${message}`);
  const { low, high } = levelHeights(level);
  const shard = new PackedItems(TX_ENTRY_BYTES * 2048);
  const previous = new Uint8Array(TX_ENTRY_BYTES);
  let total = 0;
  const add = (entry: Uint8Array) => {
    if (entry.length !== TX_ENTRY_BYTES) throw refuse(`an entry is ${TX_ENTRY_BYTES} bytes`);
    const at = shard.append(entry);
    const problem = entryProblem(shard.bytes, shard.view, at, previous, total > 0 ? 0 : -1, low, high);
    if (problem !== undefined) throw refuse(`entry ${total}: ${problem}`);
    previous.set(entry);
    total++;
  };
  function* close(number: number): Generator<LevelObject> {
    const { bytes } = newShardObject(TX_SHARD, level, number, shard.length / TX_ENTRY_BYTES);
    bytes.set(shard.used(), SHARD_HEADER_BYTES);
    writeTrailer(bytes, options);
    shard.length = 0;
    yield { key: txIndexShardKey(level, number), bytes };
  }
  yield* byShard(level.bits, sortedEntries, add, close);
  if (total !== level.count) throw refuse(`${total} entries in a level of ${level.count}`);
}

/** A level's objects from entries in memory (any order): sorts them, then `encodeTxIndexLevel`. */
export function txIndexObjects(
  span: LevelSpan,
  entries: readonly TxIndexEntry[],
  options: CodecOptions = {},
): { level: HistoryIndexLevel; objects: LevelObject[] } {
  const sorted = entries.map(encodeTxEntry).sort((a, b) => compareBytesAt(a, 0, b, 0, ORDER_BYTES));
  const level = txIndexLevel(span, entries.length);
  return { level, objects: [...encodeTxIndexLevel(level, sorted, options)] };
}

/** A decoded, validated shard: query it with `findTx`. */
export interface TxShard {
  level: HistoryIndexLevel;
  shard: number;
  count: number;
  /** The packed entries, 52 bytes each. */
  entries: Uint8Array;
}

/**
 * Decodes and validates a shard read under the key of (`level`, `shard`): size, magic, version,
 * trailer, identity, and every entry in its shard, at a height of the level, in order.
 */
export function decodeTxShard(
  bytes: Uint8Array,
  level: HistoryIndexLevel,
  shard: number,
  options: CodecOptions = {},
): TxShard {
  const { count, entries: view } = openShardObject(bytes, TX_SHARD, level, shard, options);
  const entries = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const { low, high } = levelHeights(level);
  for (let i = 0, at = 0; i < count; i++, at += TX_ENTRY_BYTES) {
    const problem =
      shardOf(itemKey32(entries, at), level.bits) !== shard
        ? "belongs to another shard"
        : entryProblem(entries, view, at, entries, at - TX_ENTRY_BYTES, low, high);
    if (problem !== undefined)
      throw new LightedgeError("corrupt", WHERE, `transaction index shard: entry ${i}: ${problem}`);
  }
  return { level, shard, count, entries };
}

/**
 * Where the transaction with this txid (wire order) is, or undefined when the shard has none. Zcash
 * txids are unique (coinbases carry their height); were one stored twice, the highest wins.
 */
export function findTx(shard: TxShard, wireTxid: Uint8Array): TxLocation | undefined {
  const { entries, count } = shard;
  let lo = 0;
  let hi = count;
  // The first entry whose txid is above the one sought; the match, if any, is just before it.
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareBytesAt(entries, mid * TX_ENTRY_BYTES, wireTxid, 0, TXID_BYTES) <= 0) lo = mid + 1;
    else hi = mid;
  }
  const at = (lo - 1) * TX_ENTRY_BYTES;
  if (lo === 0 || compareBytesAt(entries, at, wireTxid, 0, TXID_BYTES) !== 0) return undefined;
  return locationAt(entries, at);
}

const TX_SHARDS: LevelShardObject<HistoryIndexLevel, TxShard> = {
  where: WHERE,
  keyOf: txIndexShardKey,
  decode: decodeTxShard,
};

export interface TxIndexSource extends IndexObjectSource {
  /** Decoded shards by key: immutable, so a reader keeps them as long as they fit. */
  shards?: LoadCache<string, TxShard>;
}

export type TxLookup = { indexed: false } | { indexed: true; found: TxLocation | undefined };

/**
 * The sealed transaction with this txid (wire order): one shard read per level, in parallel, at
 * most two. `found` undefined means no block the levels cover holds it (every sealed range, unless
 * they lag the head while its writer catches up: the caller asks the origin either way);
 * `indexed: false` that the head names no history (ask a node).
 */
export async function lookupTx(
  src: TxIndexSource,
  head: HeadObject,
  wireTxid: Uint8Array,
): Promise<TxLookup> {
  if (wireTxid.length !== TXID_BYTES) throw new LightedgeError("bad-request", WHERE, "a txid is 32 bytes");
  const levels = headHistoryLevels(head);
  if (levels === undefined) return { indexed: false };
  const shards = await loadLevelShards(
    src,
    src.shards,
    levels.map((l) => l.txid),
    itemKey32(wireTxid),
    TX_SHARDS,
  );
  const found = shards.map(({ decoded }) => findTx(decoded, wireTxid));
  // Levels are in height order: a later level's match is the higher one.
  return { indexed: true, found: found.findLast((location) => location !== undefined) };
}
