import { describe, expect, it } from "vitest";
import { levelsDue } from "./level-schedule.ts";

/** The heads (range counts) of a sync of `ranges` ranges, one head a range, that rewrite the levels. */
function rewrites(ranges: number, epochRanges: number, followFrom = ranges): number[] {
  const out: number[] = [];
  let covered = 0;
  for (let rangeCount = 1; rangeCount <= ranges; rangeCount++)
    if (levelsDue({ covered, rangeCount, epochRanges, catchingUp: rangeCount < followFrom })) {
      out.push(rangeCount);
      covered = rangeCount;
    }
  return out;
}

describe("when a head rewrites the history index levels", () => {
  it("every head while following the node", () => {
    expect(rewrites(5, 64, 1)).toEqual([1, 2, 3, 4, 5]);
    expect(levelsDue({ covered: 5, rangeCount: 5, epochRanges: 64, catchingUp: false })).toBe(false);
  });

  it("while catching up, once the levels lack max(an epoch, the ranges they cover); at the end whatever they lack", () => {
    // A mainnet-sized sync: 3,430 ranges of 1,000 blocks, epochs of 64 ranges.
    const heads = rewrites(3430, 64);
    expect(heads).toEqual([64, 128, 256, 512, 1024, 2048, 3430]);
    // The rows rewritten, in ranges: within 3× the final levels' (rewriting at every head: n²/2).
    const rewritten = heads.reduce((sum, n) => sum + n, 0);
    expect(rewritten).toBeLessThan(3 * 3430);
    // A sync that reaches the node's tip at range 100 follows from there: a rewrite per head.
    expect(rewrites(103, 64, 100)).toEqual([64, 100, 101, 102, 103]);
  });
});
