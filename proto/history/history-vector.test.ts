import { readFileSync } from "node:fs";
import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { fromHex, toHex } from "../bytes.ts";
import { headLevelSpans } from "../range/hash-index-layout.ts";
import type { HeadObject } from "../range/head.ts";
import { specVectorObjects } from "../range/spec-vectors.ts";
import {
  type AddressRecord,
  addressBalance,
  addressDirectoryEntries,
  addressIndexObjects,
  addressKeyOfTaddress,
  addressRecords,
  blockTxRange,
  decodeTxTable,
  encodeRawBlocks,
  encodeTxTable,
  headHistoryLevels,
  lookupTx,
  P2PKH,
  P2SH,
  RECEIVED,
  rawBlocks,
  rawBlocksKey,
  SPENT,
  type TxIndexEntry,
  type TxTableBlock,
  taddressOfKey,
  txIndexObjects,
  txSpan,
  txTableKey,
  txWireId,
} from "./index.ts";

/**
 * The node-free history test vector printed in proto/range-format.md (§Node-free history, Test
 * vector) must be what the codecs write from its documented inputs, and read back as documented.
 */
const spec = readFileSync(new URL("../range-format.md", import.meta.url), "utf8");
const ascii = (s: string) => new TextEncoder().encode(s);

// Network regtest, range size 2, three ranges (heights 0–5), epochRanges 2.
const NETWORK = "regtest";
const RANGE_SIZE = 2;
/** Per height, its transactions (ASCII); a block is `hdr<h>`, a count byte, its transactions. */
const TRANSACTIONS = [["cb0"], ["cb1"], ["cb2"], ["cb3", "tx3"], ["cb4"], ["cb5", "tx5"]];
const blockBytes = (h: number) =>
  Uint8Array.from([
    ...ascii(`hdr${h}`),
    TRANSACTIONS[h]!.length,
    ...TRANSACTIONS[h]!.flatMap((t) => [...ascii(t)]),
  ]);
/** A txid stands in as the SHA-256 of the transaction's bytes. */
const txidOf = (tx: string) => sha256(ascii(tx));

const A = Uint8Array.from([...new Uint8Array(20).fill(0xaa), P2PKH]);
const B = Uint8Array.from([...new Uint8Array(20).fill(0xbb), P2SH]);
/** (address, kind, height, position, index, zatoshi, spent output) as documented. */
const RECORDS: [Uint8Array, 0 | 1, number, number, number, bigint, [number, number, number]?][] = [
  [A, RECEIVED, 1, 0, 0, 500_000_000n],
  [B, RECEIVED, 2, 0, 0, 125_000_000n],
  [A, SPENT, 3, 1, 0, 500_000_000n, [1, 0, 0]],
  [B, RECEIVED, 3, 1, 0, 400_000_000n],
  [A, RECEIVED, 3, 1, 1, 99_990_000n],
  [B, SPENT, 5, 1, 0, 125_000_000n, [2, 0, 0]],
  [A, RECEIVED, 5, 1, 0, 124_990_000n],
];

/** Each range's table input, from its blocks' bytes: transactions follow the 5-byte header and count. */
function tableBlocks(index: number): TxTableBlock[] {
  return [0, 1].map((k) => {
    const height = index * RANGE_SIZE + k;
    let offset = 5;
    const transactions = TRANSACTIONS[height]!.map((tx) => {
      const located = { wireTxid: txidOf(tx), offset, length: tx.length };
      offset += tx.length;
      return located;
    });
    return { length: blockBytes(height).length, transactions };
  });
}

const written = new Map<string, Uint8Array>();
const entries: TxIndexEntry[] = [];
for (let index = 0; index < 3; index++) {
  const range = { network: NETWORK, rangeSize: RANGE_SIZE, index };
  written.set(
    rawBlocksKey(NETWORK, RANGE_SIZE, index),
    encodeRawBlocks([0, 1].map((k) => blockBytes(2 * index + k))),
  );
  const txs = encodeTxTable(range, tableBlocks(index));
  written.set(txTableKey(NETWORK, RANGE_SIZE, index), txs);
  // The transaction index's entries, from the table as a writer would take them.
  const table = decodeTxTable(txs, range);
  for (const k of [0, 1]) {
    const { first, count } = blockTxRange(table, k);
    for (let position = 0; position < count; position++)
      entries.push({
        wireTxid: txWireId(table, first + position),
        height: 2 * index + k,
        index: position,
        ...txSpan(table, first + position),
      });
  }
}
const records: AddressRecord[] = RECORDS.map(([addressKey, kind, height, txIndex, index, value, spent]) => {
  const tx = entries.find((e) => e.height === height && e.index === txIndex)!;
  return {
    addressKey,
    kind,
    height,
    txIndex,
    index,
    value,
    wireTxid: tx.wireTxid,
    offset: tx.offset,
    length: tx.length,
    ...(spent && { spent: { height: spent[0], txIndex: spent[1], index: spent[2] } }),
  };
});
const head = { network: NETWORK, rangeSize: RANGE_SIZE, firstHeight: 0, rangeCount: 3 } as HeadObject;
const txidObjects = new Map<string, Uint8Array>();
const taddrObjects = new Map<string, Uint8Array>();
head.history = {
  version: 1,
  epochRanges: 2,
  levels: headLevelSpans(head, 2).map((span) => {
    const inSpan = (r: { height: number }) =>
      r.height >= span.firstIndex * RANGE_SIZE && r.height < (span.lastIndex + 1) * RANGE_SIZE;
    const txid = txIndexObjects(span, entries.filter(inSpan));
    const taddr = addressIndexObjects(span, records.filter(inSpan));
    for (const o of txid.objects) txidObjects.set(o.key, o.bytes);
    for (const o of taddr.objects) taddrObjects.set(o.key, o.bytes);
    return { transactions: txid.level.count, addresses: taddr.level.count };
  }),
};

const hexOf = (objects: Map<string, Uint8Array>) => new Map([...objects].map(([k, v]) => [k, toHex(v)]));
const only = (suffix: string) =>
  new Map([...written].filter(([k]) => k.endsWith(suffix) && k.includes("00000001.")));
const documented = () =>
  new Map(
    ["vector-raw", "vector-txs", "vector-txid-objects", "vector-taddr-objects"].flatMap((tag) => [
      ...specVectorObjects(spec, tag),
    ]),
  );
const store = {
  read: async (key: string, span?: { offset: number; length: number }) => {
    const hex = documented().get(key) ?? (written.has(key) ? toHex(written.get(key)!) : undefined);
    if (hex === undefined) return null;
    const bytes = fromHex(hex);
    return span ? bytes.subarray(span.offset, span.offset + span.length) : bytes;
  },
};

describe("the specification's node-free history test vector", () => {
  it("names the documented addresses", () => {
    expect(taddressOfKey(A, NETWORK)).toBe("tmRGkeumjW7Ggcqg4d71QeZcrweSs2zs6r5");
    expect(taddressOfKey(B, NETWORK)).toBe("t2PfTENAXSpPPhZJGQWTTj9yoWNVj8EwsVD");
    expect(addressKeyOfTaddress("t2PfTENAXSpPPhZJGQWTTj9yoWNVj8EwsVD", NETWORK)).toEqual(B);
  });

  it("matches range 1's raw-block object and transaction table", () => {
    expect(hexOf(only(".raw.bin"))).toEqual(specVectorObjects(spec, "vector-raw"));
    expect(hexOf(only(".txs.bin"))).toEqual(specVectorObjects(spec, "vector-txs"));
    const raw = fromHex(specVectorObjects(spec, "vector-raw").get(rawBlocksKey(NETWORK, 2, 1))!);
    expect([...rawBlocks(raw)]).toEqual([blockBytes(2), blockBytes(3)]);
  });

  it("matches the transaction and address index levels, byte for byte, under the documented keys", () => {
    expect(head.history!.levels).toEqual([
      { transactions: 5, addresses: 2 },
      { transactions: 3, addresses: 2 },
    ]);
    expect(hexOf(txidObjects)).toEqual(specVectorObjects(spec, "vector-txid-objects"));
    expect(hexOf(taddrObjects)).toEqual(specVectorObjects(spec, "vector-taddr-objects"));
  });

  it("answers every transaction and both addresses from the documented objects", async () => {
    expect(headHistoryLevels(head)!.map((l) => [l.txid.firstIndex, l.txid.lastIndex, l.txid.bits])).toEqual([
      [0, 1, 0],
      [2, 2, 0],
    ]);
    for (const [height, txs] of TRANSACTIONS.entries())
      for (const [index, tx] of txs.entries()) {
        const found = await lookupTx(store, head, txidOf(tx));
        if (!found.indexed || !found.found) throw new Error(`${tx} not found`);
        expect(found.found).toMatchObject({ height, index });
        const raw = (await store.read(rawBlocksKey(NETWORK, 2, Math.floor(height / 2))))!;
        expect(
          new TextDecoder().decode(raw.subarray(found.found.offset, found.found.offset + found.found.length)),
        ).toBe(tx);
      }
    const balances = [];
    for (const key of [A, B]) {
      const lookup = await addressDirectoryEntries(store, head, key);
      if (!lookup.indexed) throw new Error("not indexed");
      balances.push(addressBalance(lookup.found));
      expect(
        (await addressRecords(store, lookup.found)).map((r) => [r.height, r.txIndex, r.kind, r.index]),
      ).toEqual(
        RECORDS.filter((r) => r[0] === key)
          .map((r) => [r[2], r[3], r[1], r[4]])
          .sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]! || x[3]! - y[3]!),
      );
    }
    expect(balances).toEqual([224_980_000n, 400_000_000n]);
  });
});
