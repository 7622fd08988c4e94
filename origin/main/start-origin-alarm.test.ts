import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadOriginConfig } from "../config.ts";
import { createDevNode, type DevNode } from "../devnode/index.ts";
import { clientFor } from "../serve/testing.ts";
import { type RunningOrigin, startOrigin } from "./start-origin.ts";

// Range 10, seal depth 10: 130 blocks seal through 119 and keep 120–129 in the tail.
const BLOCKS = 130;

let dev: DevNode;
let dir: string;
let origin: RunningOrigin;

async function control(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${dev.url}control/${path}`, { method: "POST", body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`control/${path}: HTTP ${res.status}`);
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 15_000) {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function code(p: Promise<unknown>): Promise<Code | undefined> {
  return p.then(
    () => undefined,
    (err: unknown) => ConnectError.from(err).code,
  );
}

beforeAll(async () => {
  dev = await createDevNode({ synthetic: { blocks: BLOCKS, seed: "origin-alarm" } });
  await dev.ready;
  dir = mkdtempSync(join(tmpdir(), "lightedge-origin-alarm-"));
  const config = loadOriginConfig([
    ...["--node", dev.url, "--network", "regtest", "--store", `dir:${join(dir, "store")}`],
    ...["--data-dir", join(dir, "data"), "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"],
    ...["--range-size", "10", "--seal-depth", "10", "--poll-ms", "30", "--log-level", "silent"],
  ]);
  origin = await startOrigin(config, { treeStates: false });
  await origin.indexer.synced();
});

afterAll(async () => {
  await origin?.close();
  await dev?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a reorg that reaches sealed ranges, seen by wallets and monitoring", () => {
  it("stops advertising the stale tip (tail RPCs Unavailable), serves sealed history, and fails /healthz", async () => {
    const grpc = clientFor("grpc", origin.url);
    expect((await grpc.getLatestBlock({})).height).toBe(BigInt(BLOCKS - 1));
    expect((await fetch(`${origin.adminUrl}/healthz`)).status).toBe(200);
    await control("reorg", { depth: 100 }); // fork at 29: far below the sealed tip 119
    await control("mine", { blocks: 20 });
    await until("the alarm", () => origin.indexer.status().phase === "alarm");

    expect(await code(grpc.getLatestBlock({}))).toBe(Code.Unavailable);
    expect(await code(grpc.getBlock({ height: 125n }))).toBe(Code.Unavailable);
    expect(await code(grpc.getLightdInfo({}))).toBe(Code.Unavailable);
    const tailRange = grpc.getBlockRange({ start: { height: 115n }, end: { height: 125n } });
    expect(
      await code(
        (async () => {
          for await (const _ of tailRange);
        })(),
      ),
    ).toBe(Code.Unavailable);
    // Sealed history is still served.
    expect((await grpc.getBlock({ height: 100n })).height).toBe(100n);
    let n = 0;
    for await (const _ of grpc.getBlockRange({ start: { height: 0n }, end: { height: 119n } })) n++;
    expect(n).toBe(120);

    const health = await fetch(`${origin.adminUrl}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.text()).toMatch(/reaches sealed ranges/);
    const metrics = await (await fetch(`${origin.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/lightedge_index_alarm\{reason="deep-reorg"\} 1/);
  });
});
