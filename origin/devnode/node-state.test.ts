import { describe, expect, it } from "vitest";
import { RecentTxids } from "./node-state.ts";

const txid = (n: number) => n.toString(16).padStart(64, "0");

describe("recent txids", () => {
  it("keeps the newest `limit` txids; serving a block again makes its txids the newest", () => {
    const r = new RecentTxids(4);
    r.remember(1, [txid(1), txid(2)]);
    r.remember(2, [txid(3)]);
    r.remember(1, [txid(1), txid(2)]); // block 1 served again: now newer than block 2's txid
    r.remember(3, [txid(4), txid(5)]);
    expect(r.keys()).toEqual([txid(1), txid(2), txid(4), txid(5)]);
    expect(r.has(txid(3))).toBe(false);
    expect(r.get(txid(2))).toBe(1);
    r.remember(4, [txid(6), txid(7), txid(8), txid(9), txid(10)]); // more than the limit at once
    expect(r.keys()).toEqual([txid(7), txid(8), txid(9), txid(10)]);
    r.remember(3, [txid(5)]);
    expect(r.keys()).toEqual([txid(8), txid(9), txid(10), txid(5)]);
    expect(r.size).toBe(4);
  });

  it("evicts from a full 200,000-txid index at about the cost of an insert", { timeout: 120_000 }, () => {
    // The dev node's limit, filled with 5-txid blocks (a synthetic chain's average), then as many
    // again: each block evicts 5. A fresh `keys().next()` per eviction walked over every slot
    // deleted since V8 last compacted the Map: ~45× the filling time here, now ~2×. A ratio, as
    // the machine may be shared.
    const r = new RecentTxids(200_000);
    const ids = Array.from({ length: 400_000 }, (_, i) => txid(i));
    const blocks = (from: number, to: number) => {
      const started = performance.now();
      for (let b = from; b < to; b++) r.remember(b, ids.slice(5 * b, 5 * b + 5));
      return performance.now() - started;
    };
    const filling = blocks(0, 40_000);
    expect(r.size).toBe(200_000);
    const evicting = blocks(40_000, 80_000);
    expect(r.size).toBe(200_000);
    expect(r.keys()[0]).toBe(ids[200_000]);
    expect(evicting / filling).toBeLessThan(5);
  });
});
