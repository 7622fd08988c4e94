import { compareBytesAt, getU64, setU64 } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";
import { ADDRESS_KEY_BYTES } from "./address.ts";

/**
 * Address records (proto/range-format.md §Node-free history, Transparent address index, Records):
 * one per addressable output (received) and one per input spending one (spent), 104 bytes, filed
 * under the output's address key. Values are u64 zatoshi, as bigint everywhere in this API.
 */

const WHERE = "history-taddr";

export const RECORD_BYTES = 104;
/** Kind 0: an output paying the address. */
export const RECEIVED = 0;
/** Kind 1: an input spending one of the address's outputs. */
export const SPENT = 1;

export const R_KIND = 21;
export const R_HEIGHT = 24;
export const R_TX_INDEX = 28;
export const R_INDEX = 32;
export const R_VALUE = 36;
const R_TXID = 44;
const R_OFFSET = 76;
const R_LENGTH = 84;
const R_SPENT_HEIGHT = 88;
const R_SPENT_TX_INDEX = 92;
const R_SPENT_INDEX = 96;
const TXID_BYTES = 32;

/** An output of the chain: its block, its transaction's position there, its index. */
export interface OutputPosition {
  height: number;
  txIndex: number;
  index: number;
}

export interface AddressRecord {
  addressKey: Uint8Array;
  kind: typeof RECEIVED | typeof SPENT;
  /** The transaction's block. */
  height: number;
  /** The transaction's position in its block. */
  txIndex: number;
  /** Received: the output's index in the transaction; spent: the input's. */
  index: number;
  /** Zatoshi received, or spent (the spent output's value). */
  value: bigint;
  wireTxid: Uint8Array;
  /** The transaction's bytes in its range's raw-block object. */
  offset: number;
  length: number;
  /** Spent records only: the output spent (a received record of the same address). */
  spent?: OutputPosition;
}

/** The 104 stored bytes of a record (what the writer keeps, sorts and streams back). */
export function encodeAddressRecord(record: AddressRecord): Uint8Array {
  const refuse = (message: string) => new LightedgeError("bad-request", WHERE, `address record: ${message}`);
  if (record.addressKey.length !== ADDRESS_KEY_BYTES) throw refuse("an address key is 21 bytes");
  if (record.wireTxid.length !== TXID_BYTES) throw refuse("a txid is 32 bytes");
  if ((record.kind === SPENT) !== (record.spent !== undefined))
    throw refuse("a spent record, and only one, names the output it spends");
  const out = new Uint8Array(RECORD_BYTES);
  const view = new DataView(out.buffer);
  out.set(record.addressKey, 0);
  out[R_KIND] = record.kind;
  view.setUint32(R_HEIGHT, record.height, false);
  view.setUint32(R_TX_INDEX, record.txIndex, false);
  view.setUint32(R_INDEX, record.index, false);
  view.setBigUint64(R_VALUE, record.value, false);
  out.set(record.wireTxid, R_TXID);
  setU64(view, R_OFFSET, record.offset);
  view.setUint32(R_LENGTH, record.length, false);
  if (record.spent !== undefined) {
    view.setUint32(R_SPENT_HEIGHT, record.spent.height, false);
    view.setUint32(R_SPENT_TX_INDEX, record.spent.txIndex, false);
    view.setUint32(R_SPENT_INDEX, record.spent.index, false);
  }
  return out;
}

/** The record at byte `at` of packed records (copies of its key and txid). */
export function decodeAddressRecord(records: Uint8Array, at = 0): AddressRecord {
  const view = new DataView(records.buffer, records.byteOffset + at, RECORD_BYTES);
  const kind = records[at + R_KIND]!;
  const offset = getU64(view, R_OFFSET);
  if ((kind !== RECEIVED && kind !== SPENT) || Number.isNaN(offset))
    throw new LightedgeError("corrupt", WHERE, "address record: bad kind or offset");
  const record: AddressRecord = {
    addressKey: records.slice(at, at + ADDRESS_KEY_BYTES),
    kind,
    height: view.getUint32(R_HEIGHT, false),
    txIndex: view.getUint32(R_TX_INDEX, false),
    index: view.getUint32(R_INDEX, false),
    value: view.getBigUint64(R_VALUE, false),
    wireTxid: records.slice(at + R_TXID, at + R_TXID + TXID_BYTES),
    offset,
    length: view.getUint32(R_LENGTH, false),
  };
  if (kind === SPENT)
    record.spent = {
      height: view.getUint32(R_SPENT_HEIGHT, false),
      txIndex: view.getUint32(R_SPENT_TX_INDEX, false),
      index: view.getUint32(R_SPENT_INDEX, false),
    };
  return record;
}

/**
 * The stored order of records (§Records): address key, then height, position, kind, index — the
 * big-endian fields compared as bytes, at offsets, so sorting millions allocates nothing.
 */
export function compareRecordsAt(a: Uint8Array, aAt: number, b: Uint8Array, bAt: number): number {
  return (
    compareBytesAt(a, aAt, b, bAt, ADDRESS_KEY_BYTES) ||
    compareBytesAt(a, aAt + R_HEIGHT, b, bAt + R_HEIGHT, 8) ||
    a[aAt + R_KIND]! - b[bAt + R_KIND]! ||
    compareBytesAt(a, aAt + R_INDEX, b, bAt + R_INDEX, 4)
  );
}

/**
 * Why the record at `at` cannot follow the one at `previousAt` of `previous` (−1: first) in a level
 * of heights `low … high`; undefined when it can. The writer and the reader use this one check.
 */
export function recordProblem(
  records: Uint8Array,
  view: DataView,
  at: number,
  previous: Uint8Array,
  previousAt: number,
  low: number,
  high: number,
): string | undefined {
  const kind = records[at + R_KIND]!;
  if (kind !== RECEIVED && kind !== SPENT) return `kind ${kind}`;
  const height = view.getUint32(at + R_HEIGHT, false);
  if (height < low || height > high) return `height ${height} is outside ${low}–${high}`;
  if (previousAt >= 0 && compareRecordsAt(records, at, previous, previousAt) <= 0) return "out of order";
  return undefined;
}

/** Whether the records at `at` and `otherAt` are of the same address. */
export function sameAddress(records: Uint8Array, at: number, other: Uint8Array, otherAt: number): boolean {
  return compareBytesAt(records, at, other, otherAt, ADDRESS_KEY_BYTES) === 0;
}
