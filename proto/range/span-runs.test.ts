import { describe, expect, it } from "vitest";
import { spanRuns } from "./span-runs.ts";

/** Frame offsets of a range starting at 100 whose frames have these sizes. */
function offsetsOf(sizes: number[]): number[] {
  const offsets = [0];
  for (const n of sizes) offsets.push(offsets[offsets.length - 1]! + n);
  return offsets;
}
const offsets = offsetsOf([4, 4, 4, 10, 2, 2, 2]); // heights 100..106

describe("spanRuns (a buffered span read in runs)", () => {
  it("keeps a span within the limit as one run, in either order", () => {
    expect(spanRuns(offsets, 100, 100, 106, 28)).toEqual([{ from: 100, to: 106 }]);
    expect(spanRuns(offsets, 100, 105, 101, 1_000)).toEqual([{ from: 105, to: 101 }]);
  });

  it("cuts an ascending span into consecutive runs of at most the limit, a larger frame alone", () => {
    expect(spanRuns(offsets, 100, 100, 106, 8)).toEqual([
      { from: 100, to: 101 },
      { from: 102, to: 102 },
      { from: 103, to: 103 },
      { from: 104, to: 106 },
    ]);
  });

  it("cuts a descending span from its sending end, so the highest blocks are read first", () => {
    expect(spanRuns(offsets, 100, 106, 100, 8)).toEqual([
      { from: 106, to: 104 },
      { from: 103, to: 103 },
      { from: 102, to: 101 },
      { from: 100, to: 100 },
    ]);
    expect(spanRuns(offsets, 100, 103, 101, 9)).toEqual([
      { from: 103, to: 103 },
      { from: 102, to: 101 },
    ]);
  });

  it("covers every height once, in sending order, whatever the limit", () => {
    for (const limit of [1, 3, 4, 5, 9, 14, 100]) {
      for (const [from, to] of [
        [100, 106],
        [106, 100],
        [102, 104],
        [105, 105],
      ] as const) {
        const heights = spanRuns(offsets, 100, from, to, limit).flatMap((r) => {
          const step = r.from <= r.to ? 1 : -1;
          return Array.from({ length: Math.abs(r.to - r.from) + 1 }, (_, k) => r.from + k * step);
        });
        const step = from <= to ? 1 : -1;
        expect(heights).toEqual(Array.from({ length: Math.abs(to - from) + 1 }, (_, k) => from + k * step));
      }
    }
  });
});
