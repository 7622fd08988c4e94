import { describe, expect, it } from "vitest";
import type { Measured } from "./measure.ts";
import { RELAY_TIER, relayFigures } from "./targets.ts";

const run = (blocksPerSec: number, cpuSecPerGB: number) => ({ blocksPerSec, cpuSecPerGB }) as Measured;

describe("relayFigures", () => {
  it("gives Miniflare's edge as ratios to the relay of the same run", () => {
    const results = { [RELAY_TIER]: run(200, 0.5), edgeMiniflare: run(150, 1.5) };
    expect(relayFigures("edgeMiniflare", "edgeMiniflare.range1k", results.edgeMiniflare, results)).toEqual({
      "edgeMiniflare.range1k.vsRelay": 0.75,
      "edgeMiniflare.range1k.cpuPerByteVsRelay": 3,
    });
  });

  it("gives nothing for other tiers, or in a run without the relay", () => {
    const withRelay = { [RELAY_TIER]: run(200, 0.5), origin: run(100, 1) };
    expect(relayFigures("origin", "origin.range1k", withRelay.origin, withRelay)).toEqual({});
    expect(relayFigures("edge", "edge.range1k", run(100, 1), withRelay)).toEqual({});
    const without = { edgeMiniflare: run(150, 1.5) };
    expect(relayFigures("edgeMiniflare", "edgeMiniflare.range1k", without.edgeMiniflare, without)).toEqual(
      {},
    );
  });
});
