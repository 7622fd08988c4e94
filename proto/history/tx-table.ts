import { getU64, setU64 } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";
import { FRAME_HEADER_BYTES } from "../frame.ts";
import type { CodecOptions } from "../range/encode.ts";
import {
  openObject,
  readNetworkName,
  TRAILER_BYTES,
  writeNetworkName,
  writeTrailer,
} from "../range/index-object.ts";
import type { Span } from "../range/types.ts";
import { HISTORY_VERSION } from "./layout.ts";

/**
 * The transaction table of a range (proto/range-format.md §Node-free history, Transaction table):
 * where every block's frame and every transaction sits in the range's raw-block object. Read
 * (and cached) to answer GetTransaction by block and index, and to cut a raw-block object into
 * blocks without parsing them.
 */

const WHERE = "history-txs";

/** "LEDGTXNS": identifies a transaction table regardless of its key. */
export const TXS_MAGIC = new Uint8Array([0x4c, 0x45, 0x44, 0x47, 0x54, 0x58, 0x4e, 0x53]);
export const TXS_HEADER_BYTES = 64;
/** Per block: its frame's offset (u64), its first transaction (u32), its transaction count (u32). */
export const TXS_BLOCK_BYTES = 16;
/** Per transaction: txid (32, wire order), offset in the raw-block object (u64), length (u32). */
export const TXS_TX_BYTES = 44;
const TXID_BYTES = 32;
const FRAME_MAX = 0xffff_ffff;

/** Which range a table describes: the key it is stored under. */
export interface RangeId {
  network: string;
  rangeSize: number;
  index: number;
}

/** A transaction of a block, as the origin's block parser gives it (`origin/chain` ParsedTx). */
export interface BlockTransaction {
  wireTxid: Uint8Array;
  /** Offset of its first byte in its block's bytes. */
  offset: number;
  length: number;
}

/** What the table records of one block. */
export interface TxTableBlock {
  /** Length of the block's bytes (its frame is 5 bytes more). */
  length: number;
  transactions: readonly BlockTransaction[];
}

/** A decoded, validated table: query it with `blockFrameSpan`, `blockTxRange`, `txSpan`, `txWireId`. */
export interface TxTable extends RangeId {
  txCount: number;
  /** Byte length of the raw-block object. */
  rawLength: number;
  /** The whole object (blocks from byte 64, then transactions). */
  view: DataView;
}

const txEntryAt = (rangeSize: number, j: number) =>
  TXS_HEADER_BYTES + rangeSize * TXS_BLOCK_BYTES + j * TXS_TX_BYTES;

/** The table of a range from its blocks (exactly `rangeSize`, ascending), each with its transactions. */
export function encodeTxTable(
  range: RangeId,
  blocks: readonly TxTableBlock[],
  options: CodecOptions = {},
): Uint8Array {
  const refuse = (message: string) =>
    new LightedgeError("bad-request", WHERE, `transaction table: ${message}`);
  if (blocks.length !== range.rangeSize)
    throw refuse(`${blocks.length} blocks in a range of ${range.rangeSize}`);
  let txCount = 0;
  for (const block of blocks) txCount += block.transactions.length;
  const bytes = new Uint8Array(txEntryAt(range.rangeSize, txCount) + TRAILER_BYTES);
  const view = new DataView(bytes.buffer);
  bytes.set(TXS_MAGIC, 0);
  view.setUint16(8, HISTORY_VERSION, false);
  writeNetworkName(bytes, range.network);
  view.setUint32(28, range.rangeSize, false);
  view.setUint32(32, range.index, false);
  view.setUint32(36, txCount, false);
  let frame = 0;
  let j = 0;
  blocks.forEach((block, k) => {
    const at = TXS_HEADER_BYTES + k * TXS_BLOCK_BYTES;
    setU64(view, at, frame);
    view.setUint32(at + 8, j, false);
    view.setUint32(at + 12, block.transactions.length, false);
    for (const tx of block.transactions) {
      if (tx.wireTxid.length !== TXID_BYTES) throw refuse(`transaction ${j}: a txid is 32 bytes`);
      const txAt = txEntryAt(range.rangeSize, j++);
      bytes.set(tx.wireTxid, txAt);
      setU64(view, txAt + TXID_BYTES, frame + FRAME_HEADER_BYTES + tx.offset);
      view.setUint32(txAt + TXID_BYTES + 8, tx.length, false);
    }
    frame += FRAME_HEADER_BYTES + block.length;
  });
  setU64(view, 40, frame);
  // The writer's input must tile its blocks exactly as a reader will check (one implementation).
  checkTiling(view, range.rangeSize, txCount, frame, refuse);
  writeTrailer(bytes, options);
  return bytes;
}

/**
 * Decodes and validates a table read under the key of `range`: size, magic, version, trailer,
 * identity, and that frames and transactions tile the raw-block object (`checkTiling`).
 */
export function decodeTxTable(bytes: Uint8Array, range: RangeId, options: CodecOptions = {}): TxTable {
  const corrupt = (message: string) => new LightedgeError("corrupt", WHERE, `transaction table: ${message}`);
  const view = openObject(
    bytes,
    {
      magic: TXS_MAGIC,
      version: HISTORY_VERSION,
      minimum: TXS_HEADER_BYTES + TRAILER_BYTES,
      size: (v) => txEntryAt(v.getUint32(28, false), v.getUint32(36, false)) + TRAILER_BYTES,
    },
    corrupt,
    options,
  );
  const network = readNetworkName(bytes);
  const rangeSize = view.getUint32(28, false);
  const index = view.getUint32(32, false);
  if (network !== range.network || rangeSize !== range.rangeSize || index !== range.index)
    throw corrupt(
      `read as ${range.network} r${range.rangeSize} ${range.index}, describes ${network} r${rangeSize} ${index}`,
    );
  const txCount = view.getUint32(36, false);
  const rawLength = getU64(view, 40);
  checkTiling(view, rangeSize, txCount, rawLength, corrupt);
  return { network: range.network, rangeSize, index, txCount, rawLength, view };
}

/**
 * The tiling every table must have (§Transaction table): block k's frame starts where block k − 1's
 * last transaction ends (block 0's at 0); its transactions follow block k − 1's in the table, at
 * least one; the first starts more than 5 bytes into the frame (after the frame header, the block
 * header and the transaction count), each next one where the previous ends, and the last at the
 * end of the frame — where the next frame starts, or for the last block at the object's length.
 */
function checkTiling(
  view: DataView,
  rangeSize: number,
  txCount: number,
  rawLength: number,
  fail: (message: string) => LightedgeError,
): void {
  let frameStart = 0;
  let nextTx = 0;
  for (let k = 0; k < rangeSize; k++) {
    const at = TXS_HEADER_BYTES + k * TXS_BLOCK_BYTES;
    const frame = getU64(view, at);
    const first = view.getUint32(at + 8, false);
    const count = view.getUint32(at + 12, false);
    if (frame !== frameStart) throw fail(`block ${k}: frame at ${frame}, expected ${frameStart}`);
    if (first !== nextTx) throw fail(`block ${k}: first transaction ${first}, expected ${nextTx}`);
    if (count === 0 || first + count > txCount) throw fail(`block ${k}: ${count} transactions`);
    let end = getU64(view, txEntryAt(rangeSize, first) + TXID_BYTES);
    if (!(end > frame + FRAME_HEADER_BYTES))
      throw fail(`block ${k}: transaction ${first} is not in its block`);
    for (let j = first; j < first + count; j++) {
      const txAt = txEntryAt(rangeSize, j) + TXID_BYTES;
      const length = view.getUint32(txAt + 8, false);
      if (getU64(view, txAt) !== end || length === 0)
        throw fail(`transaction ${j} does not follow the one before it`);
      end += length;
    }
    if (end - frame - FRAME_HEADER_BYTES > FRAME_MAX) throw fail(`block ${k}: frame too long`);
    frameStart = end;
    nextTx = first + count;
  }
  if (nextTx !== txCount) throw fail(`blocks hold ${nextTx} transactions, header says ${txCount}`);
  if (frameStart !== rawLength)
    throw fail(`frames end at ${frameStart}, the object's length is ${rawLength}`);
}

function assertBlock(table: TxTable, k: number): void {
  if (!Number.isInteger(k) || k < 0 || k >= table.rangeSize)
    throw new LightedgeError("bad-request", WHERE, `no block ${k} in a range of ${table.rangeSize}`);
}

function assertTx(table: TxTable, j: number): void {
  if (!Number.isInteger(j) || j < 0 || j >= table.txCount)
    throw new LightedgeError("bad-request", WHERE, `no transaction ${j} in a table of ${table.txCount}`);
}

/** Block k's frame in the raw-block object (its bytes are the frame after its 5-byte header). */
export function blockFrameSpan(table: TxTable, k: number): Span {
  assertBlock(table, k);
  const at = TXS_HEADER_BYTES + k * TXS_BLOCK_BYTES;
  const offset = getU64(table.view, at);
  const end = k + 1 < table.rangeSize ? getU64(table.view, at + TXS_BLOCK_BYTES) : table.rawLength;
  return { offset, length: end - offset };
}

/** Block k's transactions: table indexes `first … first + count − 1`, in block order. */
export function blockTxRange(table: TxTable, k: number): { first: number; count: number } {
  assertBlock(table, k);
  const at = TXS_HEADER_BYTES + k * TXS_BLOCK_BYTES;
  return { first: table.view.getUint32(at + 8, false), count: table.view.getUint32(at + 12, false) };
}

/** Transaction j's bytes in the raw-block object. */
export function txSpan(table: TxTable, j: number): Span {
  assertTx(table, j);
  const at = txEntryAt(table.rangeSize, j) + TXID_BYTES;
  return { offset: getU64(table.view, at), length: table.view.getUint32(at + 8, false) };
}

/** Transaction j's txid (wire order; a view into the table). */
export function txWireId(table: TxTable, j: number): Uint8Array {
  assertTx(table, j);
  const { buffer, byteOffset } = table.view;
  return new Uint8Array(buffer, byteOffset + txEntryAt(table.rangeSize, j), TXID_BYTES);
}
