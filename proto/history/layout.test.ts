import { describe, expect, it } from "vitest";
import { displayHex } from "../bytes.ts";
import { decodeHead, encodeHead, type HeadObject } from "../range/index.ts";
import { syntheticWireHash } from "../range/testing.ts";
import { headHistoryLevels, taddrShardBits, txidShardBits } from "./index.ts";

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
    const future = { ...head, history: { version: 2 } as unknown as HeadObject["history"] };
    expect(headHistoryLevels(future)).toBeUndefined();
    expect(decodeHead(encodeHead(future)).history).toEqual({ version: 2 });
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
