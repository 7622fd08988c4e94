import { describe, expect, it } from "vitest";
import { dataReads, monthly, PRICES, perSync } from "./cost.ts";

const sync = { blocks: 3_081_800, ranges: 3_082, bytes: 18e9, blocksPerRequest: 10_000 };

describe("scale cost model", () => {
  it("counts one data read per range, plus one metadata read per range when none is cached", () => {
    const one = perSync(sync);
    expect(one.classB).toEqual({ low: 3_082, high: 6_164 });
    expect(one.workerRequests).toBe(309 + 3);
    // Piping every byte at 3.3 GB per CPU-second dominates the upper bound.
    expect(one.cpuMs.high - one.cpuMs.low).toBeCloseTo(18e9 / 3.3e6, 0);
  });

  it("counts one read per bundle a request touches", () => {
    const layout = { firstHeight: 419_200, rangeSize: 1000, bundleRanges: 10 };
    expect(dataReads({ ...sync })).toBe(3_082); // no bundles: one per range
    // 419,200 … 3,500,999 in 10,000-block requests: each touches 11 ranges in two bundles (41 and
    // 42, …); 309 requests, the last one of 1,800 blocks in bundles 349 and 350.
    expect(dataReads({ ...sync, layout })).toBe(309 * 2);
    // The same in one request: bundles 41 … 350.
    expect(dataReads({ ...sync, blocksPerRequest: 3_081_800, layout })).toBe(310);
    // Aligned 10,000-block requests: one bundle each.
    expect(
      dataReads({
        ...sync,
        blocks: 100_000,
        blocksPerRequest: 10_000,
        layout: { ...layout, firstHeight: 0 },
      }),
    ).toBe(10);
  });

  it("charges only usage above the free tiers, and grows with the number of syncs", () => {
    const small = monthly(10, sync, 5e9); // 300 syncs/month: inside every free tier, storage < 10 GB
    expect(small.edge.low).toBeCloseTo(PRICES.workersBaseMonth, 6);
    const rows = [1_000, 100_000, 1_000_000].map((n) => monthly(n, sync, 40e9));
    for (let i = 1; i < rows.length; i++) {
      expect(rows[i]!.edge.high).toBeGreaterThan(rows[i - 1]!.edge.high);
      expect(rows[i]!.fleet.low).toBeGreaterThan(rows[i - 1]!.fleet.low);
    }
    // Egress of a million full syncs a day: 30 M × 18 GB.
    expect(rows[2]!.egressTB).toBeCloseTo((30e6 * 18e9) / 1e12, 0);
    expect(rows[2]!.fleet.egress).toBeCloseTo(((30e6 * 18e9) / 1e9) * 0.05, 0);
  });
});
