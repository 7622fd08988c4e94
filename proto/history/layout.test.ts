import { describe, expect, it } from "vitest";
import { displayHex } from "../bytes.ts";
import { decodeHead, encodeHead, type HeadObject } from "../range/index.ts";
import { syntheticWireHash } from "../range/testing.ts";
import { headHistoryLevels, historyIndexedTip, taddrShardBits, txidShardBits } from "./index.ts";

const head: HeadObject = {
  format: "lightedge-head",
  version: 1,
  network: "testnet",
  rangeSize: 10,
  firstHeight: 30,
  rangeCount: 5,
  tip: { height: 79, displayHash: displayHex(syntheticWireHash(79)), time: 1_600_000_000 },
  updatedAt: "2026-11-29T20:00:00.000Z",
  lightdInfo: {
    chainName: "test",
    saplingActivationHeight: 280000,
    consensusBranchId: "c2d6d0b4",
    blockHeight: 90,
    estimatedHeight: 90,
    upgradeName: "NU6",
    upgradeHeight: 2976000,
    zcashdBuild: "v2.3.0",
    zcashdSubversion: "/Zebra:2.3.0/",
  },
  history: {
    version: 1,
    epochRanges: 2,
    levels: [
      { transactions: 5000, addresses: 513 },
      { transactions: 10, addresses: 0 },
    ],
  },
};

const corrupt = expect.objectContaining({ kind: "corrupt" });

describe("the head's history field", () => {
  it("names the hash index's levels for its epoch, each with its own shard bits", () => {
    const levels = headHistoryLevels(head)!;
    expect(
      levels.map((l) => [l.txid.firstIndex, l.txid.lastIndex, l.taddr.firstIndex, l.taddr.lastIndex]),
    ).toEqual([
      [3, 6, 3, 6],
      [7, 7, 7, 7],
    ]);
    expect(levels.map((l) => [l.txid.count, l.txid.bits, l.taddr.count, l.taddr.bits])).toEqual([
      [5000, 3, 513, 1],
      [10, 0, 0, 0],
    ]);
  });

  it("is absent, or of a version this reader does not know: no history", () => {
    const { history: _, ...bare } = head;
    expect(headHistoryLevels(bare)).toBeUndefined();
    const future = { ...head, history: { version: 3 } as unknown as HeadObject["history"] };
    expect(headHistoryLevels(future)).toBeUndefined();
    expect(historyIndexedTip(future)).toBeUndefined();
    expect(decodeHead(encodeHead(future)).history).toEqual({ version: 3 });
  });

  it("covers every range at version 1, and the first rangeCount ranges at version 2", () => {
    expect(historyIndexedTip(head)).toBe(79);
    // Three of the head's five ranges: one whole epoch (ranges 3–4) and a recent level (5).
    const lagging: HeadObject = {
      ...head,
      history: { version: 2, epochRanges: 2, rangeCount: 3, levels: head.history!.levels },
    };
    expect(decodeHead(encodeHead(lagging))).toEqual(lagging);
    expect(
      headHistoryLevels(lagging)!.map((l) => [l.txid.firstIndex, l.txid.lastIndex, l.taddr.lastIndex]),
    ).toEqual([
      [3, 4, 4],
      [5, 5, 5],
    ]);
    expect(historyIndexedTip(lagging)).toBe(59);
    // No range covered yet: no levels, the origin answers from the first height.
    const none: HeadObject = { ...head, history: { version: 2, epochRanges: 2, rangeCount: 0, levels: [] } };
    expect(headHistoryLevels(decodeHead(encodeHead(none)))).toEqual([]);
    expect(historyIndexedTip(none)).toBe(29);
    const all: HeadObject = { ...head, history: { ...head.history!, version: 2, rangeCount: 5 } };
    expect(headHistoryLevels(all)).toEqual(headHistoryLevels(head));
    expect(historyIndexedTip(all)).toBe(79);
  });

  it("round-trips through the head's JSON", () => {
    expect(decodeHead(encodeHead(head))).toEqual(head);
  });

  it("is refused as corrupt when it does not describe the head's levels", () => {
    const bad = (history: unknown) => new TextEncoder().encode(JSON.stringify({ ...head, history }));
    const h = head.history!;
    expect(() => decodeHead(bad({ ...h, version: 0 }))).toThrow(corrupt);
    expect(() => decodeHead(bad({ ...h, epochRanges: 0 }))).toThrow(corrupt);
    expect(() => decodeHead(bad({ ...h, levels: h.levels.slice(1) }))).toThrow(/bad history/);
    expect(() => decodeHead(bad({ ...h, levels: undefined }))).toThrow(/bad history/);
    // Fewer transactions than blocks: every block has a coinbase.
    expect(() => decodeHead(bad({ ...h, levels: [h.levels[0], { transactions: 9, addresses: 0 }] }))).toThrow(
      /bad history/,
    );
    expect(() =>
      decodeHead(bad({ ...h, levels: [h.levels[0], { transactions: 10, addresses: -1 }] })),
    ).toThrow(/bad history/);
    expect(() => decodeHead(bad({ ...h, levels: [h.levels[0], null] }))).toThrow(/bad history/);
    expect(() => decodeHead(bad("yes"))).toThrow(/bad history/);
    // Version 2: levels of 0 … rangeCount ranges, one entry per level those ranges make.
    const v2 = { ...h, version: 2, rangeCount: 3 };
    expect(decodeHead(bad(v2)).history).toEqual(v2);
    expect(() => decodeHead(bad({ ...v2, rangeCount: 6 }))).toThrow(/bad history/);
    expect(() => decodeHead(bad({ ...v2, rangeCount: -1 }))).toThrow(/bad history/);
    expect(() => decodeHead(bad({ ...v2, rangeCount: undefined }))).toThrow(/bad history/);
    expect(() => decodeHead(bad({ ...v2, rangeCount: 2 }))).toThrow(/bad history/);
    expect(() => decodeHead(bad({ ...v2, rangeCount: 4, levels: h.levels.slice(0, 1) }))).not.toThrow();
  });
});

describe("shard bits", () => {
  it("keep transaction index shards at ≤ 1,024 entries and address shards at ≤ 512 addresses on average", () => {
    expect([0, 1024, 1025, 2048, 2049, 4_000_000].map(txidShardBits)).toEqual([0, 0, 1, 1, 2, 12]);
    expect([0, 512, 513, 1024, 1025, 1_000_000].map(taddrShardBits)).toEqual([0, 0, 1, 1, 2, 11]);
    expect(txidShardBits(2 ** 40)).toBe(16);
    expect(taddrShardBits(2 ** 40)).toBe(16);
  });
});
