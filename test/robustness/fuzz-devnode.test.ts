import { afterEach, describe, expect, it } from "vitest";
import { startDevnodeProcess } from "./devnode-process.ts";
import { describeDevnodeFinding, runDevnodeFuzz } from "./fuzz-devnode.ts";

/** Bounded, seeded runs of the dev-node fuzzer against `lightedge devnode` in its own process. */
let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe("the dev node under fuzzed requests", () => {
  it("answers 2000 seeded JSON-RPC calls, batches and malformed bodies with JSON, never a crash or hang", async () => {
    const dev = await startDevnodeProcess(30, "fuzz-devnode");
    stop = dev.stop;
    const { findings } = await runDevnodeFuzz({
      url: dev.url,
      cases: 2000,
      seed: 1,
      tip: 29,
      control: false,
      timeoutMs: 5000,
    });
    expect(findings.map(describeDevnodeFinding)).toEqual([]);
  }, 60_000);

  it("answers its control API as well: bounded inputs, typed 400s, never a crash or a stalled loop", async () => {
    const dev = await startDevnodeProcess(30, "fuzz-devnode-control");
    stop = dev.stop;
    const { findings } = await runDevnodeFuzz({
      url: dev.url,
      cases: 1500,
      seed: 2,
      tip: 29,
      control: true,
      timeoutMs: 3000,
    });
    expect(findings.map(describeDevnodeFinding)).toEqual([]);
    // Seed 2 sets stall and delay faults that hold ~1 in 25 calls for up to 1 s each, by design:
    // ~55 s of the run is those waits whatever the load, so the budget is well above it.
  }, 180_000);
});
