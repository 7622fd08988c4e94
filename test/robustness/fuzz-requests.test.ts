import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientFor, type Stack, startStack } from "../../origin/serve/testing.ts";
import { describeFinding, runRequestFuzz } from "./fuzz-requests.ts";

/** A bounded, seeded run of the request fuzzer (bench/fuzz-requests.ts runs millions). */
const CASES = 3000;
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ blocks: 40, seed: "fuzz" });
  await stack.control("mempool", { count: 3 });
});
afterAll(() => stack?.close());

describe("the origin under fuzzed requests", () => {
  it(`answers ${CASES} seeded malformed and valid requests with well-formed statuses: no crash, hang, reset or Internal`, async () => {
    const tip = stack.indexer.view.tip()!.height;
    const result = await runRequestFuzz({
      url: stack.server.url,
      cases: CASES,
      seed: 20261201,
      tip,
      concurrency: 4,
    });
    expect(result.findings.map(describeFinding).slice(0, 20)).toEqual([]);
    expect(result.answered).toBe(CASES);
    // Still serving afterwards.
    expect((await clientFor("grpc", stack.server.url).getLatestBlock({})).height).toBe(BigInt(tip));
  }, 120_000);
});
