import { describe, expect, it } from "vitest";
import { displayHex, wireHashOf } from "../bytes.ts";
import {
  assertHeadMatchesRange,
  decodeHead,
  decodeRangeMeta,
  encodeHead,
  encodeSealedRange,
  type HeadObject,
  headKey,
  lastRangeIndex,
  rangeIndexOf,
  rangeKeys,
} from "./index.ts";
import { syntheticRange, syntheticWireHash } from "./testing.ts";

const head: HeadObject = {
  format: "lightedge-head",
  version: 1,
  network: "testnet",
  rangeSize: 10,
  firstHeight: 0,
  rangeCount: 3,
  tip: { height: 29, displayHash: displayHex(syntheticWireHash(29)), time: 1_600_002_175 },
  updatedAt: "2026-11-29T20:00:00.000Z",
  lightdInfo: {
    chainName: "test",
    saplingActivationHeight: 280000,
    consensusBranchId: "c2d6d0b4",
    blockHeight: 140,
    estimatedHeight: 140,
    upgradeName: "NU6",
    upgradeHeight: 2976000,
    zcashdBuild: "v2.3.0",
    zcashdSubversion: "/Zebra:2.3.0/",
  },
};

describe("the head object", () => {
  it("round-trips through its JSON encoding", () => {
    expect(decodeHead(encodeHead(head))).toEqual(head);
  });

  it("agrees with the last range it names", () => {
    const last = decodeRangeMeta(encodeSealedRange(syntheticRange({ rangeSize: 10, index: 2 })).meta);
    expect(lastRangeIndex(head)).toBe(2);
    expect(() => assertHeadMatchesRange(head, last)).not.toThrow();
  });

  it("is refused as corrupt when its tip disagrees with the last range", () => {
    const other = decodeRangeMeta(encodeSealedRange(syntheticRange({ rangeSize: 10, index: 1 })).meta);
    expect(() => assertHeadMatchesRange(head, other)).toThrow(expect.objectContaining({ kind: "corrupt" }));
    const wrongHash = { ...head, tip: { ...head.tip!, displayHash: displayHex(syntheticWireHash(28)) } };
    const last = decodeRangeMeta(encodeSealedRange(syntheticRange({ rangeSize: 10, index: 2 })).meta);
    expect(() => assertHeadMatchesRange(wrongHash, last)).toThrow(/disagrees/);
  });

  it("is refused as corrupt when damaged or inconsistent", () => {
    const bytes = encodeHead(head);
    const cases: Array<[string, Uint8Array]> = [
      ["truncated", bytes.subarray(0, bytes.length - 20)],
      ["not UTF-8", new Uint8Array([0xff, 0xfe, 0x7b])],
      ["wrong version", new TextEncoder().encode(JSON.stringify({ ...head, version: 2 }))],
      ["tip off the range grid", new TextEncoder().encode(JSON.stringify({ ...head, rangeCount: 4 }))],
      ["tip without ranges", new TextEncoder().encode(JSON.stringify({ ...head, rangeCount: 0 }))],
      ["unaligned first height", new TextEncoder().encode(JSON.stringify({ ...head, firstHeight: 5 }))],
      [
        "missing lightdInfo field",
        new TextEncoder().encode(JSON.stringify({ ...head, lightdInfo: { chainName: "test" } })),
      ],
      ["a range metadata object", encodeSealedRange(syntheticRange({ rangeSize: 1, index: 0 })).meta],
    ];
    for (const [name, b] of cases)
      expect(() => decodeHead(b), name).toThrow(expect.objectContaining({ kind: "corrupt" }));
  });

  it("refuses to encode a head whose tip is not the last sealed height", () => {
    expect(() => encodeHead({ ...head, tip: { ...head.tip!, height: 30 } })).toThrow(/refusing/);
  });
});

describe("object keys", () => {
  it("are computable from network, range size and index", () => {
    expect(rangeKeys("mainnet", 1000, 2222)).toEqual({
      meta: "v1/mainnet/r1000/00002222.meta.bin",
      data: {
        shielded: "v1/mainnet/r1000/00002222.shielded.bin",
        full: "v1/mainnet/r1000/00002222.full.bin",
        nullifiers: "v1/mainnet/r1000/00002222.nullifiers.bin",
      },
    });
    expect(headKey("testnet")).toBe("v1/testnet/head.json");
    expect(rangeIndexOf(2_222_999, 1000)).toBe(2222);
    expect(rangeIndexOf(2_223_000, 1000)).toBe(2223);
  });

  it("refuse names and numbers that would make a bad key", () => {
    for (const network of ["", "Main", "a/b", "../x", "x".repeat(17)])
      expect(() => headKey(network)).toThrow();
    expect(() => rangeKeys("mainnet", 0, 1)).toThrow();
    expect(() => rangeKeys("mainnet", 1000, -1)).toThrow();
    expect(() => rangeIndexOf(1.5, 1000)).toThrow();
  });

  it("convert between wire and display hash order", () => {
    const wire = syntheticWireHash(5);
    expect(wireHashOf(displayHex(wire))).toEqual(wire);
    expect(displayHex(wire).slice(0, 2)).toBe(wire[31]!.toString(16).padStart(2, "0"));
  });
});
