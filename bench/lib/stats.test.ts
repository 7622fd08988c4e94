import { describe, expect, it } from "vitest";
import { rssGrowth } from "./stats.ts";

describe("rssGrowth", () => {
  it("measures from after warm-up to the end, each a median of three samples", () => {
    const flat = [100, 300, 310, 305, 300, 308, 302, 306, 301, 304];
    expect(rssGrowth(flat).growthMiB).toBeLessThan(10);
    const leaking = [100, 300, 320, 340, 360, 380, 400, 420, 440, 460];
    expect(rssGrowth(leaking)).toEqual({ afterWarmupMiB: 340, endMiB: 440, growthMiB: 100 });
    // One GC spike at the end does not decide it.
    expect(rssGrowth([100, 300, 300, 300, 300, 300, 300, 300, 900, 300]).growthMiB).toBe(0);
  });
});
