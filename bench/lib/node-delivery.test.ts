import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevNode, type DevNode } from "../../origin/devnode/index.ts";
import {
  answerCount,
  deliverBlocks,
  deliverBlocksApart,
  indexerCalls,
  rawGetblock,
} from "./node-delivery.ts";

const hex = (n: number) => "ab".repeat(n);

describe("answerCount", () => {
  it("counts answers with results, skipping long hex unread, and refuses errors and non-arrays", () => {
    const answers = [
      { jsonrpc: "2.0", id: 0, result: hex(70_000) },
      { jsonrpc: "2.0", id: 1, result: { hash: "cd".repeat(32), tx: ["ef".repeat(32)] } },
      { jsonrpc: "2.0", id: 2, result: "short" },
      // A long string with an escaped quote: its first `"` is not its end, so it is parsed whole.
      { jsonrpc: "2.0", id: 3, result: `${hex(3000)}\\"result":"x${hex(3000)}` },
      { jsonrpc: "2.0", id: 4, result: null },
    ];
    expect(answerCount(Buffer.from(JSON.stringify(answers)))).toBe(5);
    const failed = [...answers, { jsonrpc: "2.0", id: 5, error: { code: -8, message: "Block not found" } }];
    expect(answerCount(Buffer.from(JSON.stringify(failed)))).toBe(-1);
    expect(answerCount(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 0, result: hex(5000) })))).toBe(-1);
    expect(answerCount(Buffer.from(`[{"id":0,"result":"${hex(5000)}"`))).toBe(-1); // cut short
    expect(answerCount(Buffer.from("<html>busy</html>"))).toBe(-1);
  });
});

describe("deliverBlocks", () => {
  let node: DevNode;
  beforeAll(async () => {
    node = await createDevNode({ synthetic: { blocks: 120, seed: "node-delivery-test" } });
    await node.ready;
  });
  afterAll(() => node.close());

  it("fetches every block as the indexer does and counts the node's bytes", async () => {
    const at = { url: node.url, pid: process.pid, tip: 119, concurrency: 4, chunk: 50 };
    const raw = await deliverBlocks({ ...at, calls: rawGetblock });
    const calls = await deliverBlocks({ ...at, calls: indexerCalls });
    let hexChars = 0;
    for (let h = 0; h < 120; h++) hexChars += 2 * node.chain.block(h).raw.length;
    expect(raw.bytes).toBeGreaterThan(hexChars);
    expect(calls.bytes).toBeGreaterThan(raw.bytes);
    expect(raw.seconds).toBeGreaterThan(0);
    expect(raw.clientCpuSec).toBeGreaterThan(0);
  });

  it("runs apart in a process of its own, with the same answers", async () => {
    const at = { url: node.url, pid: process.pid, tip: 119, concurrency: 4, chunk: 50 };
    const inProcess = await deliverBlocks({ ...at, calls: rawGetblock });
    const apart = await deliverBlocksApart({ ...at, calls: "raw" });
    expect(apart.bytes).toBe(inProcess.bytes);
    expect(apart.clientCpuSec).toBeGreaterThan(0);
  });

  it("fails when the node answers an error, in process and apart", async () => {
    const at = { url: node.url, pid: process.pid, tip: 120, concurrency: 2, chunk: 50 }; // 120: above the tip
    await expect(deliverBlocks({ ...at, calls: rawGetblock })).rejects.toThrow(/node batch 100\.\.120/);
    await expect(deliverBlocksApart({ ...at, calls: "index" })).rejects.toThrow(/node batch 100\.\.120/);
  });
});
