import { sha256 } from "@noble/hashes/sha2.js";
import { compareBytesAt, equalBytes, getU64, setU64 } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";
import type { CodecOptions } from "../range/encode.ts";
import { shardOf } from "../range/hash-index-layout.ts";
import {
  newShardObject,
  openShardObject,
  SHARD_HEADER_BYTES,
  type ShardFormat,
  writeTrailer,
} from "../range/index-object.ts";
import type { LevelSpan } from "../range/keys.ts";
import type { Span } from "../range/types.ts";
import { ADDRESS_KEY_BYTES, P2SH } from "./address.ts";
import { addressDirectoryKey, addressRecordsKey } from "./keys.ts";
import {
  addressIndexLevel,
  HISTORY_VERSION,
  type HistoryIndexLevel,
  itemKey32,
  levelHeights,
} from "./layout.ts";
import { byShard, type LevelObject, PackedItems } from "./level-writer.ts";
import {
  type AddressRecord,
  compareRecordsAt,
  decodeAddressRecord,
  encodeAddressRecord,
  R_KIND,
  R_VALUE,
  RECEIVED,
  RECORD_BYTES,
  recordProblem,
  sameAddress,
} from "./taddr-record.ts";

/**
 * The transparent address index (proto/range-format.md §Node-free history, Transparent address
 * index): per level, shards of two objects — a directory (per address: its record count and first
 * record, its totals, the SHA-256 of its records) read whole, and the records, read by one ranged
 * read per address and checked against the directory's digest.
 */

const WHERE = "history-taddr";

/** "LEDGADIR": identifies an address directory regardless of its key. */
export const ADIR_MAGIC = new Uint8Array([0x4c, 0x45, 0x44, 0x47, 0x41, 0x44, 0x49, 0x52]);
/**
 * Per address: key (21), reserved (3), record count (u32), first record (u64), total received
 * (u64), total spent (u64), SHA-256 of its records (32), reserved (4).
 */
export const DIRECTORY_ENTRY_BYTES = 88;
const D_RECORD_COUNT = 24;
const D_FIRST_RECORD = 28;
const D_RECEIVED = 36;
const D_SPENT = 44;
const D_DIGEST = 52;
const DIGEST_BYTES = 32;
const TYPE_AT = ADDRESS_KEY_BYTES - 1;
const EMPTY_ENTRY = new Uint8Array(DIRECTORY_ENTRY_BYTES);

const DIRECTORY: ShardFormat = {
  magic: ADIR_MAGIC,
  version: HISTORY_VERSION,
  entryBytes: DIRECTORY_ENTRY_BYTES,
  what: "address directory",
  where: WHERE,
  keyOf: addressDirectoryKey,
};

/**
 * Every object of a level, shard by shard (directory, then records), from its records (104 bytes
 * each, `encodeAddressRecord`) already sorted by address key, height, position, kind, index, with
 * exactly `level.count` distinct addresses (the count picks the shard bits, so it comes first:
 * `addressIndexLevel`). Holds one shard; copies each record once and allocates nothing per record.
 */
export function* encodeAddressIndexLevel(
  level: HistoryIndexLevel,
  sortedRecords: Iterable<Uint8Array>,
  options: CodecOptions = {},
): Generator<LevelObject> {
  const refuse = (message: string) => new LightedgeError("bad-request", WHERE, `address index: ${message}`);
  const hash = options.sha256 ?? sha256;
  const { low, high } = levelHeights(level);
  const records = new PackedItems(RECORD_BYTES * 4096);
  const directory = new PackedItems(DIRECTORY_ENTRY_BYTES * 1024);
  const previous = new Uint8Array(RECORD_BYTES);
  let total = 0;
  let addresses = 0;
  // The open address: where its records start in the shard's records, and its totals as
  // [received high, received low, spent high, spent low] 32-bit halves (exact: no BigInt per record).
  let addressStart = -1;
  const sums = [0, 0, 0, 0];
  const writeTotal = (at: number, high: number, low: number) => {
    if (high > 0xffff_ffff) throw refuse("an address's total is beyond 2^64 zatoshi");
    directory.view.setUint32(at, high, false);
    directory.view.setUint32(at + 4, low, false);
  };
  /** Writes the open address's directory entry; its records end at byte `end` of the shard's. */
  const finishAddress = (end: number) => {
    const entry = directory.append(EMPTY_ENTRY);
    directory.bytes.set(records.bytes.subarray(addressStart, addressStart + ADDRESS_KEY_BYTES), entry);
    directory.view.setUint32(entry + D_RECORD_COUNT, (end - addressStart) / RECORD_BYTES, false);
    setU64(directory.view, entry + D_FIRST_RECORD, addressStart / RECORD_BYTES);
    writeTotal(entry + D_RECEIVED, sums[0]!, sums[1]!);
    writeTotal(entry + D_SPENT, sums[2]!, sums[3]!);
    directory.bytes.set(hash(records.bytes.subarray(addressStart, end)), entry + D_DIGEST);
    addressStart = -1;
  };
  const add = (record: Uint8Array) => {
    if (record.length !== RECORD_BYTES) throw refuse(`a record is ${RECORD_BYTES} bytes`);
    const at = records.append(record);
    const problem = recordProblem(records.bytes, records.view, at, previous, total > 0 ? 0 : -1, low, high);
    if (problem !== undefined) throw refuse(`record ${total}: ${problem}`);
    if (records.bytes[at + TYPE_AT]! > P2SH) throw refuse(`record ${total}: bad address type`);
    if (addressStart < 0 || !sameAddress(records.bytes, at, previous, 0)) {
      if (addressStart >= 0) finishAddress(at);
      addressStart = at;
      sums.fill(0);
      addresses++;
    }
    const half = records.bytes[at + R_KIND] === RECEIVED ? 0 : 2;
    sums[half] += records.view.getUint32(at + R_VALUE, false);
    sums[half + 1] += records.view.getUint32(at + R_VALUE + 4, false);
    if (sums[half + 1]! >= 2 ** 32) {
      sums[half + 1] -= 2 ** 32;
      sums[half]++;
    }
    previous.set(record);
    total++;
  };
  function* close(shard: number): Generator<LevelObject> {
    if (addressStart >= 0) finishAddress(records.length);
    const { bytes } = newShardObject(DIRECTORY, level, shard, directory.length / DIRECTORY_ENTRY_BYTES);
    bytes.set(directory.used(), SHARD_HEADER_BYTES);
    writeTrailer(bytes, options);
    const recordsObject = records.used().slice();
    directory.length = 0;
    records.length = 0;
    yield { key: addressDirectoryKey(level, shard), bytes };
    yield { key: addressRecordsKey(level, shard), bytes: recordsObject };
  }
  yield* byShard(level.bits, sortedRecords, add, close);
  if (addresses !== level.count) throw refuse(`${addresses} addresses in a level of ${level.count}`);
}

/** A level's objects from records in memory (any order): sorts them, counts addresses, encodes. */
export function addressIndexObjects(
  span: LevelSpan,
  records: readonly AddressRecord[],
  options: CodecOptions = {},
): { level: HistoryIndexLevel; objects: LevelObject[] } {
  const sorted = records.map(encodeAddressRecord).sort((a, b) => compareRecordsAt(a, 0, b, 0));
  let addresses = 0;
  sorted.forEach((record, i) => {
    if (i === 0 || !sameAddress(record, 0, sorted[i - 1]!, 0)) addresses++;
  });
  const level = addressIndexLevel(span, addresses);
  return { level, objects: [...encodeAddressIndexLevel(level, sorted, options)] };
}

/** A decoded, validated directory: query it with `findAddress`. */
export interface AddressDirectory {
  level: HistoryIndexLevel;
  shard: number;
  count: number;
  /** The packed entries, 88 bytes each. */
  entries: Uint8Array;
  /** Records of all its addresses: the records object is this many × 104 bytes. */
  recordCount: number;
}

/** What a directory says of one address. */
export interface AddressDirectoryEntry {
  addressKey: Uint8Array;
  recordCount: number;
  /** Its first record's number in the shard's records object. */
  firstRecord: number;
  /** Zatoshi. */
  received: bigint;
  spent: bigint;
  /** SHA-256 of its records' bytes. */
  digest: Uint8Array;
}

function directoryCorrupt(message: string): LightedgeError {
  return new LightedgeError("corrupt", WHERE, `address directory: ${message}`);
}

/**
 * Decodes and validates a directory read under the key of (`level`, `shard`): size, magic, version,
 * trailer, identity; every address of a valid type, in its shard, ascending, with records, and the
 * records contiguous from the first.
 */
export function decodeAddressDirectory(
  bytes: Uint8Array,
  level: HistoryIndexLevel,
  shard: number,
  options: CodecOptions = {},
): AddressDirectory {
  const { count, entries: view } = openShardObject(bytes, DIRECTORY, level, shard, options);
  const entries = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  let next = 0;
  for (let i = 0, at = 0; i < count; i++, at += DIRECTORY_ENTRY_BYTES) {
    const records = view.getUint32(at + D_RECORD_COUNT, false);
    const problem =
      entries[at + TYPE_AT]! > P2SH
        ? "bad address type"
        : shardOf(itemKey32(entries, at), level.bits) !== shard
          ? "belongs to another shard"
          : i > 0 && compareBytesAt(entries, at, entries, at - DIRECTORY_ENTRY_BYTES, ADDRESS_KEY_BYTES) <= 0
            ? "out of order"
            : records === 0 || getU64(view, at + D_FIRST_RECORD) !== next
              ? "records not contiguous"
              : undefined;
    if (problem !== undefined) throw directoryCorrupt(`address ${i}: ${problem}`);
    next += records;
  }
  return { level, shard, count, entries, recordCount: next };
}

/** The `i`-th address of a directory (0 ≤ i < count), in key order. */
export function entryAt(directory: AddressDirectory, i: number): AddressDirectoryEntry {
  const { entries } = directory;
  const at = i * DIRECTORY_ENTRY_BYTES;
  const view = new DataView(entries.buffer, entries.byteOffset + at, DIRECTORY_ENTRY_BYTES);
  return {
    addressKey: entries.slice(at, at + ADDRESS_KEY_BYTES),
    recordCount: view.getUint32(D_RECORD_COUNT, false),
    firstRecord: getU64(view, D_FIRST_RECORD),
    received: view.getBigUint64(D_RECEIVED, false),
    spent: view.getBigUint64(D_SPENT, false),
    digest: entries.slice(at + D_DIGEST, at + D_DIGEST + DIGEST_BYTES),
  };
}

/** What the directory says of this address (its 21-byte key), or undefined when it has none. */
export function findAddress(
  directory: AddressDirectory,
  addressKey: Uint8Array,
): AddressDirectoryEntry | undefined {
  let lo = 0;
  let hi = directory.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const order = compareBytesAt(
      directory.entries,
      mid * DIRECTORY_ENTRY_BYTES,
      addressKey,
      0,
      ADDRESS_KEY_BYTES,
    );
    if (order === 0) return entryAt(directory, mid);
    if (order < 0) lo = mid + 1;
    else hi = mid;
  }
  return undefined;
}

/** Where an address's records are in its shard's records object: one ranged read. */
export function recordsSpan(entry: AddressDirectoryEntry): Span {
  return { offset: entry.firstRecord * RECORD_BYTES, length: entry.recordCount * RECORD_BYTES };
}

function recordsCorrupt(message: string): LightedgeError {
  return new LightedgeError("corrupt", WHERE, `address records: ${message}`);
}

/**
 * An address's records from the ranged read of `recordsSpan(entry)`, checked: exactly that many
 * bytes, the directory's SHA-256, every record of this address, of a known kind, at a height of the
 * level, in order, and their values adding up to the directory's totals.
 */
export function decodeAddressRecords(
  bytes: Uint8Array,
  level: HistoryIndexLevel,
  entry: AddressDirectoryEntry,
  options: CodecOptions = {},
): AddressRecord[] {
  if (bytes.length !== entry.recordCount * RECORD_BYTES)
    throw recordsCorrupt(`${bytes.length} bytes for ${entry.recordCount} records`);
  if (!equalBytes((options.sha256 ?? sha256)(bytes), entry.digest)) throw recordsCorrupt("SHA-256 mismatch");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { low, high } = levelHeights(level);
  const out: AddressRecord[] = [];
  const totals = [0n, 0n];
  for (let r = 0, at = 0; r < entry.recordCount; r++, at += RECORD_BYTES) {
    const problem = sameAddress(bytes, at, entry.addressKey, 0)
      ? recordProblem(bytes, view, at, bytes, at - RECORD_BYTES, low, high)
      : "of another address";
    if (problem !== undefined) throw recordsCorrupt(`record ${r}: ${problem}`);
    const record = decodeAddressRecord(bytes, at);
    totals[record.kind] += record.value;
    out.push(record);
  }
  if (totals[0] !== entry.received || totals[1] !== entry.spent)
    throw recordsCorrupt("values do not add up to the directory's totals");
  return out;
}
