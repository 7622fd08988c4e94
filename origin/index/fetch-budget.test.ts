import { describe, expect, it } from "vitest";
import { FetchBudget, MIN_CHUNKS } from "./fetch-budget.ts";

const MiB = 1024 * 1024;
const none = { chunks: 0, blocks: 0 };

/** Launches chunks as the pipeline does until the budget says stop; returns their sizes. */
function launchAll(budget: FetchBudget, already = none): number[] {
  const sizes: number[] = [];
  let inFlight = { ...already };
  for (let n = budget.next(inFlight); n > 0; n = budget.next(inFlight)) {
    sizes.push(n);
    inFlight = { chunks: inFlight.chunks + 1, blocks: inFlight.blocks + n };
  }
  return sizes;
}

describe("the sync pipeline's fetch budget", () => {
  const options = { budgetBytes: 32 * MiB, concurrency: 16, chunkSize: 50 };

  it("sends the first chunk alone: nothing is known of block sizes yet", () => {
    expect(launchAll(new FetchBudget(options))).toEqual([50]);
  });

  it("keeps whole chunks on dev-sized blocks, as many as fit the budget", () => {
    const budget = new FetchBudget(options);
    budget.observe(50, 50 * 72_000);
    const sizes = launchAll(budget);
    expect(sizes.every((n) => n === 50)).toBe(true);
    // 32 MiB of 72 KB blocks is 466 blocks: nine chunks of 50, not the sixteen the count allows.
    expect(sizes.length).toBe(9);
  });

  it("asks for fewer blocks per chunk when blocks are big, so several chunks still fit", () => {
    const budget = new FetchBudget(options);
    budget.observe(50, 50 * 600_000); // mainnet 2022 spam blocks
    const sizes = launchAll(budget);
    expect(sizes[0]).toBe(Math.floor((32 * MiB) / (MIN_CHUNKS * 600_000)));
    expect(sizes.length).toBeGreaterThanOrEqual(MIN_CHUNKS);
    expect(sizes.reduce((a, b) => a + b, 0) * 600_000).toBeLessThanOrEqual(32 * MiB);
  });

  it("still asks for one block at a time when one block is over the budget", () => {
    const budget = new FetchBudget({ ...options, budgetBytes: 1 * MiB });
    budget.observe(1, 2_000_000);
    expect(launchAll(budget)).toEqual([1]);
    expect(budget.next({ chunks: 1, blocks: 1 })).toBe(0);
  });

  it("never has more chunks out than the concurrency, however small the blocks", () => {
    const budget = new FetchBudget(options);
    budget.observe(50, 50 * 300);
    expect(launchAll(budget)).toEqual(Array(16).fill(50));
  });

  it("follows the size of the last chunk that arrived", () => {
    const budget = new FetchBudget(options);
    budget.observe(50, 50 * 600_000);
    const big = budget.next(none);
    budget.observe(10, 10 * 72_000);
    expect(budget.next(none)).toBeGreaterThan(big);
  });
});
