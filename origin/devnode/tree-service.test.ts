import { describe, expect, it } from "vitest";
import type { Pool } from "./commitments.ts";
import type { StartPlan } from "./start-frontier.ts";
import { createTreeService } from "./tree-service.ts";

const empty = (pool: Pool): StartPlan => ({ pool, kind: "empty", size: 0 });

describe("tree service background walk", () => {
  it("walks nothing until a tree state is asked for, then towards the tip", { timeout: 120_000 }, () => {
    const service = createTreeService({
      network: "regtest",
      synthetic: true,
      seed: "tree-service-test",
      base: 0,
      fixedTo: -1,
      fixed: [],
      starts: { sapling: empty("sapling"), orchard: empty("orchard"), ironwood: empty("ironwood") },
      tip: 400,
      events: [],
    });
    // A node nobody asks about trees (`lightedge index` against it) spends no CPU on them.
    expect(service.work(1)).toBe(true);
    expect(service.stateAt(2).sapling.size).toBeGreaterThan(0);
    // Asked once: the walk goes on past it (400 blocks of ~40 leaves each take far more than 1 ms).
    expect(service.work(1)).toBe(false);
  });
});
