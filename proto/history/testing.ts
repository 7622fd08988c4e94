import { sha256 } from "@noble/hashes/sha2.js";
import { LightedgeError } from "../errors.ts";
import { headLevelSpans } from "../range/hash-index-layout.ts";
import type { HeadObject } from "../range/head.ts";
import { writeTrailer } from "../range/index-object.ts";
import { P2PKH, P2SH } from "./address.ts";
import { rawBlocksKey, txTableKey } from "./keys.ts";
import { HISTORY_VERSION } from "./layout.ts";
import { encodeRawBlocks } from "./raw-object.ts";
import { addressIndexObjects } from "./taddr-index.ts";
import { type AddressRecord, RECEIVED, SPENT } from "./taddr-record.ts";
import { type TxIndexEntry, txIndexObjects } from "./tx-index.ts";
import { type BlockTransaction, encodeTxTable, type TxTableBlock } from "./tx-table.ts";

/**
 * A synthetic chain with transparent traffic, and the store a history writer leaves for it (pure,
 * for tests). Block bytes are a 4-byte stand-in header, a one-byte transaction count and the
 * transactions; a transaction is filler bytes whose txid is their SHA-256. Every transaction pays
 * output 0 to one of `addresses` addresses, and every one but the coinbase spends the oldest unspent
 * output, so addresses get received and spent records across ranges.
 */
export interface SyntheticHistoryOptions {
  network?: string;
  rangeSize: number;
  firstIndex?: number;
  rangeCount: number;
  addresses: number;
}

export interface SyntheticBlock {
  height: number;
  bytes: Uint8Array;
  table: TxTableBlock;
}

export interface SyntheticHistory {
  network: string;
  rangeSize: number;
  firstIndex: number;
  rangeCount: number;
  blocks: SyntheticBlock[];
  entries: TxIndexEntry[];
  records: AddressRecord[];
}

/** The key of synthetic address `a`: even ones P2PKH, odd ones P2SH. */
export function syntheticAddressKey(a: number): Uint8Array {
  const key = new Uint8Array(21);
  key.set(sha256(new TextEncoder().encode(`address ${a}`)).subarray(0, 20));
  key[20] = a % 2 === 0 ? P2PKH : P2SH;
  return key;
}

export function syntheticHistory(o: SyntheticHistoryOptions): SyntheticHistory {
  const network = o.network ?? "regtest";
  const firstIndex = o.firstIndex ?? 0;
  const keys = Array.from({ length: o.addresses }, (_, a) => syntheticAddressKey(a));
  const blocks: SyntheticBlock[] = [];
  const entries: TxIndexEntry[] = [];
  const records: AddressRecord[] = [];
  const unspent: AddressRecord[] = [];
  let frame = 0;
  for (let height = firstIndex * o.rangeSize; height < (firstIndex + o.rangeCount) * o.rangeSize; height++) {
    if (height % o.rangeSize === 0) frame = 0;
    const txs = Array.from({ length: 1 + (height % 3) }, (_, j) =>
      Uint8Array.from({ length: 20 + ((height * 7 + j * 13) % 61) }, (_, i) => (height + j * 31 + i) & 0xff),
    );
    const parts = [
      new TextEncoder().encode(`b${String(height % 1000).padStart(3, "0")}`),
      Uint8Array.of(txs.length),
    ];
    const transactions: BlockTransaction[] = [];
    let offset = parts[0]!.length + 1;
    const located: TxIndexEntry[] = [];
    txs.forEach((tx, index) => {
      const wireTxid = sha256(Uint8Array.from([...tx, ...new TextEncoder().encode(String(height))]));
      transactions.push({ wireTxid, offset, length: tx.length });
      located.push({ wireTxid, height, index, offset: frame + 5 + offset, length: tx.length });
      parts.push(tx);
      offset += tx.length;
    });
    const bytes = Uint8Array.from(parts.flatMap((p) => [...p]));
    blocks.push({ height, bytes, table: { length: bytes.length, transactions } });
    frame += 5 + bytes.length;
    for (const tx of located) {
      entries.push(tx);
      const where = {
        height,
        txIndex: tx.index,
        wireTxid: tx.wireTxid,
        offset: tx.offset,
        length: tx.length,
      };
      if (tx.index > 0 && unspent.length > 0) {
        const spent = unspent.shift()!;
        records.push({
          ...where,
          addressKey: spent.addressKey,
          kind: SPENT,
          index: 0,
          value: spent.value,
          spent: { height: spent.height, txIndex: spent.txIndex, index: spent.index },
        });
      }
      const received: AddressRecord = {
        ...where,
        addressKey: keys[(height * 7 + tx.index) % o.addresses]!,
        kind: RECEIVED,
        index: 0,
        value: BigInt(1000 + height * 10 + tx.index) * (height % 5 === 0 ? 2n ** 33n : 1n),
      };
      records.push(received);
      unspent.push(received);
    }
  }
  return { network, rangeSize: o.rangeSize, firstIndex, rangeCount: o.rangeCount, blocks, entries, records };
}

/** Every object a history writer puts for `history` with epochs of `epochRanges`, and the head naming them. */
export function storeHistory(
  history: SyntheticHistory,
  epochRanges: number,
): { objects: Map<string, Uint8Array>; head: HeadObject } {
  const { network, rangeSize, firstIndex, rangeCount } = history;
  const objects = new Map<string, Uint8Array>();
  for (let index = firstIndex; index < firstIndex + rangeCount; index++) {
    const blocks = history.blocks.slice(
      (index - firstIndex) * rangeSize,
      (index - firstIndex + 1) * rangeSize,
    );
    objects.set(rawBlocksKey(network, rangeSize, index), encodeRawBlocks(blocks.map((b) => b.bytes)));
    objects.set(
      txTableKey(network, rangeSize, index),
      encodeTxTable(
        { network, rangeSize, index },
        blocks.map((b) => b.table),
      ),
    );
  }
  const head = { network, rangeSize, firstHeight: firstIndex * rangeSize, rangeCount } as HeadObject;
  const levels = headLevelSpans(head, epochRanges).map((span) => {
    const inSpan = (r: { height: number }) =>
      r.height >= span.firstIndex * rangeSize && r.height < (span.lastIndex + 1) * rangeSize;
    const txid = txIndexObjects(span, history.entries.filter(inSpan));
    const taddr = addressIndexObjects(span, history.records.filter(inSpan));
    for (const o of [...txid.objects, ...taddr.objects]) objects.set(o.key, o.bytes);
    return { transactions: txid.level.count, addresses: taddr.level.count };
  });
  head.history = { version: HISTORY_VERSION, epochRanges, levels };
  return { objects, head };
}

/** `good` with `edit` applied and its trailer written again: only a decoder's structural checks can refuse it. */
export function resealed(good: Uint8Array, edit: (view: DataView, bytes: Uint8Array) => void): Uint8Array {
  const bytes = good.slice();
  edit(new DataView(bytes.buffer), bytes);
  writeTrailer(bytes);
  return bytes;
}

/** The message of the `corrupt` error `decode` throws; throws when it decodes or fails otherwise. */
export function corruptMessage(decode: () => unknown): string {
  try {
    decode();
  } catch (err) {
    if (err instanceof LightedgeError && err.kind === "corrupt") return err.message;
    throw err;
  }
  throw new Error("decoded a damaged object");
}
