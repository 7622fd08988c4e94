import { describe, expect, it } from "vitest";
import {
  extraCallsOf,
  MAX_RANGES_PER_REQUEST,
  maxRangesFor,
  planRange,
  sealedRangesOf,
  spareCallsFor,
} from "./plan.ts";

const extent = { rangeSize: 10, firstHeight: 100, tipHeight: 149 };

describe("planRange", () => {
  it("splits an ascending request into per-range sealed runs and an origin tail", () => {
    expect(planRange(95, 155, extent)).toEqual([
      { kind: "origin", from: 95, to: 99 },
      { kind: "sealed", index: 10, from: 100, to: 109 },
      { kind: "sealed", index: 11, from: 110, to: 119 },
      { kind: "sealed", index: 12, from: 120, to: 129 },
      { kind: "sealed", index: 13, from: 130, to: 139 },
      { kind: "sealed", index: 14, from: 140, to: 149 },
      { kind: "origin", from: 150, to: 155 },
    ]);
  });

  it("lists a descending request highest first, each run reversed", () => {
    expect(planRange(152, 137, extent)).toEqual([
      { kind: "origin", from: 152, to: 150 },
      { kind: "sealed", index: 14, from: 149, to: 140 },
      { kind: "sealed", index: 13, from: 139, to: 137 },
    ]);
  });

  it("sends a single block as one run, and everything to the origin when nothing is sealed", () => {
    expect(planRange(123, 123, extent)).toEqual([{ kind: "sealed", index: 12, from: 123, to: 123 }]);
    expect(planRange(5, 7, { rangeSize: 10, firstHeight: 0, tipHeight: -1 })).toEqual([
      { kind: "origin", from: 5, to: 7 },
    ]);
  });

  it("refuses a request touching more range objects than the subrequest budget allows", () => {
    const big = { rangeSize: 1, firstHeight: 0, tipHeight: 10_000_000 };
    expect(() => planRange(0, MAX_RANGES_PER_REQUEST, big)).toThrow(/sealed ranges/);
    expect(planRange(0, MAX_RANGES_PER_REQUEST - 1, big)).toHaveLength(MAX_RANGES_PER_REQUEST);
  });

  it("derives the cap from the configured budget: all of mainnet in one request at 50,000", () => {
    expect(MAX_RANGES_PER_REQUEST).toBe(maxRangesFor(10_000));
    const mainnet = { rangeSize: 1000, firstHeight: 0, tipHeight: 3_500_999 };
    expect(() => planRange(0, 3_500_999, mainnet)).toThrow(/3501 sealed ranges; at most 3328/);
    expect(planRange(0, 3_500_999, mainnet, maxRangesFor(50_000))).toHaveLength(3501);
    expect(planRange(3_500_999, 0, mainnet, maxRangesFor(50_000))[0]).toMatchObject({ from: 3_500_999 });
  });
});

describe("storage calls left for reading large spans in runs", () => {
  it("are the budget less the reserve and three calls per planned range, never negative", () => {
    expect(spareCallsFor(10_000, 3_000)).toBe(10_000 - 16 - 9_000);
    expect(spareCallsFor(10_000, maxRangesFor(10_000))).toBeLessThan(3);
    expect(spareCallsFor(100, 100)).toBe(0);
  });

  it("count each range a plan's segments touch, a bundle's several and origin segments none", () => {
    const segments = planRange(95, 155, extent);
    expect(sealedRangesOf(segments, extent.rangeSize)).toBe(5);
    expect(sealedRangesOf(planRange(152, 137, extent), extent.rangeSize)).toBe(2);
    const bundle = {
      kind: "sealed",
      index: 10,
      from: 100,
      to: 139,
      bundle: { index: 1, ranges: [] },
    } as const;
    expect(sealedRangesOf([bundle], extent.rangeSize)).toBe(4);
  });

  it("charge a range read in runs its metadata and each run, less the three it was planned", () => {
    expect([1, 2, 3, 6].map(extraCallsOf)).toEqual([0, 0, 1, 4]);
  });
});
