import { describe, expect, it } from "vitest";
import {
  blockFrameSpan,
  blockTxRange,
  decodeTxTable,
  encodeRawBlocks,
  encodeTxTable,
  type TxTableBlock,
  txSpan,
  txWireId,
} from "./index.ts";
import { corruptMessage, resealed } from "./testing.ts";

const range = { network: "regtest", rangeSize: 3, index: 7 };
const txid = (n: number) => new Uint8Array(32).fill(n);
/** Block bytes: a 4-byte header, a count byte, then transactions of the given lengths. */
function block(lengths: number[], tag: number): { bytes: Uint8Array; table: TxTableBlock } {
  let offset = 5;
  const transactions = lengths.map((length, j) => {
    const tx = { wireTxid: txid(tag * 16 + j), offset, length };
    offset += length;
    return tx;
  });
  const bytes = Uint8Array.from({ length: offset }, (_, i) => (tag + i) & 0xff);
  return { bytes, table: { length: bytes.length, transactions } };
}
const blocks = [block([10], 1), block([3, 7], 2), block([20], 3)];
const good = encodeTxTable(
  range,
  blocks.map((b) => b.table),
);
const raw = encodeRawBlocks(blocks.map((b) => b.bytes));

const edited = (edit: (view: DataView, bytes: Uint8Array) => void, from = good) => resealed(from, edit);
const BLOCKS = 64;
const TXS = 64 + 16 * 3;

const refusal = (bytes: Uint8Array, id = range) => corruptMessage(() => decodeTxTable(bytes, id));

describe("the transaction table", () => {
  it("locates every block's frame and every transaction in the raw-block object", () => {
    expect(good.length).toBe(64 + 16 * 3 + 44 * 4 + 32);
    const table = decodeTxTable(good, range);
    expect(table).toMatchObject({ ...range, txCount: 4, rawLength: raw.length });
    let j = 0;
    blocks.forEach((b, k) => {
      const frame = blockFrameSpan(table, k);
      expect(raw.subarray(frame.offset + 5, frame.offset + frame.length)).toEqual(b.bytes);
      const { first, count } = blockTxRange(table, k);
      expect([first, count]).toEqual([j, b.table.transactions.length]);
      b.table.transactions.forEach((tx, position) => {
        const span = txSpan(table, first + position);
        expect(raw.subarray(span.offset, span.offset + span.length)).toEqual(
          b.bytes.subarray(tx.offset, tx.offset + tx.length),
        );
        expect(txWireId(table, first + position)).toEqual(tx.wireTxid);
        j++;
      });
    });
  });

  it("refuses lookups outside the range as the caller's error", () => {
    const table = decodeTxTable(good, range);
    for (const bad of [() => blockFrameSpan(table, 3), () => blockTxRange(table, -1), () => txSpan(table, 4)])
      expect(bad).toThrow(expect.objectContaining({ kind: "bad-request" }));
    expect(() => txWireId(table, 1.5)).toThrow(/no transaction/);
  });

  describe("is corrupt", () => {
    it("truncated, with another magic or version, padded, or with a flipped byte", () => {
      expect(refusal(good.subarray(0, 90))).toMatch(/truncated/);
      expect(refusal(edited((_, b) => (b[0] = 0)))).toMatch(/magic/);
      expect(refusal(edited((v) => v.setUint16(8, 2)))).toMatch(/version 2/);
      expect(refusal(edited((v) => v.setUint32(36, 5)))).toMatch(/size/);
      const flipped = good.slice();
      flipped[100] ^= 1;
      expect(refusal(flipped)).toMatch(/SHA-256/);
    });

    it("read under another range's key", () => {
      expect(refusal(good, { ...range, index: 8 })).toMatch(/describes/);
      expect(refusal(good, { ...range, network: "testnet" })).toMatch(/describes/);
      expect(
        refusal(
          edited((v) => v.setUint32(28, 4)),
          { ...range, rangeSize: 4 },
        ),
      ).toMatch(/size/);
      expect(refusal(edited((_, b) => (b[12] = 0x41)))).toMatch(/describes undefined/);
    });

    it("when block 0's frame does not start at 0, or a frame not where the previous block ends", () => {
      expect(refusal(edited((v) => v.setUint32(BLOCKS + 4, 1)))).toMatch(/block 0: frame at 1/);
      expect(refusal(edited((v) => v.setUint32(BLOCKS + 16 + 4, 21)))).toMatch(
        /block 1: frame at 21, expected 20/,
      );
    });

    it("when a block's transactions do not follow the previous block's, or it has none, or too many", () => {
      expect(refusal(edited((v) => v.setUint32(BLOCKS + 16 + 8, 2)))).toMatch(
        /first transaction 2, expected 1/,
      );
      expect(refusal(edited((v) => v.setUint32(BLOCKS + 12, 0)))).toMatch(/block 0: 0 transactions/);
      expect(refusal(edited((v) => v.setUint32(BLOCKS + 32 + 12, 2)))).toMatch(/block 2: 2 transactions/);
    });

    it("when a block's first transaction is not after its frame header and block header", () => {
      // Block 0's frame is 0–20; its transaction at byte 5 would overlap the block header's place.
      const early = edited((v) => {
        v.setUint32(TXS + 32 + 4, 5);
        v.setUint32(TXS + 40, 15);
      });
      expect(refusal(early)).toMatch(/transaction 0 is not in its block/);
    });

    it("when a transaction does not start where the one before it ends, or is empty", () => {
      expect(refusal(edited((v) => v.setUint32(TXS + 44 * 2 + 36, 34)))).toMatch(
        /transaction 2 does not follow/,
      );
      const empty = edited((v) => {
        v.setUint32(TXS + 44 + 40, 0);
        v.setUint32(TXS + 44 * 2 + 36, 30);
        v.setUint32(TXS + 44 * 2 + 40, 10);
      });
      expect(refusal(empty)).toMatch(/transaction 1 does not follow/);
    });

    it("when a block's last transaction does not end its frame", () => {
      // Block 0's transaction a byte shorter: its frame would end at 19, where block 1's does not start.
      expect(refusal(edited((v) => v.setUint32(TXS + 40, 9)))).toMatch(/block 1: frame at 20, expected 19/);
    });

    it("when a frame would be longer than a frame header can say (u32)", () => {
      expect(refusal(edited((v) => v.setUint32(TXS + 44 * 3 + 40, 0xffff_ffff)))).toMatch(
        /block 2: frame too long/,
      );
    });

    it("when the last frame does not end at the object's length", () => {
      expect(refusal(edited((v) => v.setUint32(44, raw.length + 1)))).toMatch(
        /frames end at 70, the object.s length is 71/,
      );
      expect(refusal(edited((v) => v.setUint32(40, 1)))).toMatch(/length is 4294967366/);
      expect(refusal(edited((v) => v.setUint32(40, 0x20_0000)))).toMatch(/length is NaN/);
    });

    it("when the blocks hold fewer transactions than the header counts", () => {
      const bytes = new Uint8Array(good.length + 44);
      bytes.set(good.subarray(0, good.length - 32));
      const extra = edited((v) => v.setUint32(36, 5), bytes);
      expect(refusal(extra)).toMatch(/blocks hold 4 transactions, header says 5/);
    });
  });

  it("refuses to encode what a reader would refuse, as the caller's error", () => {
    const badRequest = expect.objectContaining({ kind: "bad-request" });
    const tables = blocks.map((b) => b.table);
    expect(() => encodeTxTable(range, tables.slice(1))).toThrow(/2 blocks in a range of 3/);
    const shortTxid = {
      ...tables[0]!,
      transactions: [{ ...tables[0]!.transactions[0]!, wireTxid: txid(1).subarray(1) }],
    };
    expect(() => encodeTxTable(range, [shortTxid, tables[1]!, tables[2]!])).toThrow(/32 bytes/);
    const gap = { ...tables[1]!, transactions: [tables[1]!.transactions[0]!] };
    expect(() => encodeTxTable(range, [tables[0]!, gap, tables[2]!])).toThrow(badRequest);
    const none = { length: 4, transactions: [] };
    expect(() => encodeTxTable(range, [tables[0]!, none, tables[2]!])).toThrow(/block 1: 0 transactions/);
    expect(() => encodeTxTable({ ...range, network: "No" }, tables)).toThrow(badRequest);
  });
});
