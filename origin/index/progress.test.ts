import { describe, expect, it } from "vitest";
import { formatDuration, progressLine } from "./progress.ts";

const status = {
  phase: "syncing" as const,
  tip: 1_499,
  sealedTip: 999,
  nodeTip: 3_999,
  floor: 0,
  blocksPerSecond: 250,
};

describe("the progress line", () => {
  it("shows height, node tip, percentage, sealed tip, blocks/s and the ETA from the current rate", () => {
    const line = progressLine(status);
    expect(line).toMatch(/^height 1499\/3999 /);
    expect(line).toContain("37.5%");
    expect(line).toContain("sealed 999");
    expect(line).toContain("250 blocks/s");
    expect(line).toContain("ETA 10s");
  });

  it("says synced at the tip and shows an alarm when sealing stopped", () => {
    expect(progressLine({ ...status, tip: 3_999 })).toContain("ETA synced");
    expect(progressLine({ ...status, alarm: "reorg too deep" })).toContain("ALARM: reorg too deep");
  });

  it("formats durations in s, m and h", () => {
    expect(formatDuration(42)).toBe("42s");
    expect(formatDuration(125)).toBe("2m05s");
    expect(formatDuration(7_500)).toBe("2h05m");
  });
});
