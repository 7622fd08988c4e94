import { describe, expect, it } from "vitest";
import { bundleEnds, bundleKey, bundleOf, bundleStored, bundlesWithin, isHeadBundles } from "./bundles.ts";
import { encodeSealedRange } from "./encode.ts";
import { endsOfEncoded } from "./range-ends.ts";
import { syntheticRange } from "./testing.ts";

const endsOfRange = (index: number) => {
  const input = syntheticRange({ rangeSize: 10, index });
  return endsOfEncoded(input, encodeSealedRange(input));
};

describe("range bundles", () => {
  const field = { ranges: 4, maxBytes: 1_000, to: 12 };

  it("are named by bundle index under a folder of their size, beside the ranges", () => {
    expect(bundleKey("mainnet", 1000, 10, 341, "shielded")).toBe(
      "v1/mainnet/r1000/b10/00000341.shielded.bin",
    );
  });

  it("exist for whole bundles at or past the first range and below `to`", () => {
    // A store from range 3: bundle 0 (ranges 0..3) is not whole in it; 1 and 2 are; 3 is past `to`.
    expect([0, 3, 4, 7, 8, 11, 12].map((i) => bundleOf(field, 3, i))).toEqual([
      undefined,
      undefined,
      1,
      1,
      2,
      2,
      undefined,
    ]);
    expect(bundleStored(field, 1_000)).toBe(true);
    expect(bundleStored(field, 1_001)).toBe(false);
  });

  it("are named in a head only within its ranges, at a multiple of their size", () => {
    const head = { firstHeight: 30, rangeSize: 10, rangeCount: 10 }; // ranges 3..12
    expect(isHeadBundles(field, head)).toBe(true);
    expect(isHeadBundles({ ...field, to: 16 }, head)).toBe(false);
    expect(isHeadBundles({ ...field, to: 10 }, head)).toBe(false);
    expect(isHeadBundles({ ...field, ranges: 1 }, head)).toBe(false);
    expect(isHeadBundles({ ...field, maxBytes: 0 }, head)).toBe(false);
    // Cut back to the ranges below 10 (bootstrap after a bad range): bundle 2 (8..11) is gone.
    expect(bundlesWithin(field, 10)).toEqual({ ...field, to: 8 });
  });

  it("have their ranges' ends combined, and refuse ranges that do not chain", () => {
    const ranges = [4, 5, 6, 7].map(endsOfRange);
    const ends = bundleEnds(ranges);
    expect(ends.firstHeight).toBe(40);
    expect(ends.lastHeight).toBe(79);
    expect(ends.parentWireHash).toEqual(ranges[0]!.parentWireHash);
    expect(ends.lastWireHash).toEqual(ranges[3]!.lastWireHash);
    expect(ends.lengths.shielded).toBe(ranges.reduce((n, r) => n + r.lengths.shielded, 0));
    const broken = [...ranges];
    broken[2] = { ...broken[2]!, parentWireHash: new Uint8Array(32) };
    expect(() => bundleEnds(broken)).toThrow(expect.objectContaining({ kind: "corrupt" }));
    expect(() => bundleEnds([ranges[0]!, ranges[2]!])).toThrow(expect.objectContaining({ kind: "corrupt" }));
  });
});
