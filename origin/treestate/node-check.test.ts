import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bigintToLeBytes, leBytesToBigint, toHex } from "../../proto/bytes.ts";
import { type LegacyTree, serializeFinalState, type TreeStateView } from "../../proto/treestate/index.ts";
import { createNodeClient } from "../node/client.ts";
import type { NodeClient } from "../node/ports.ts";
import { createFrontierTracker, hashPair } from "../trees/index.ts";
import { createOrchardBigintHasher } from "../trees/orchard-hasher-bigint.ts";
import { createTreeStateMetrics } from "./metrics.ts";
import { createNodeCheck } from "./node-check.ts";
import { fakeNode, naiveAppend } from "./testing.ts";

/**
 * The comparison with the node against a real JSON-RPC server on 127.0.0.1 (answers set per test):
 * our values from the tracker, the node's "right" answers from an independent bigint Orchard tree.
 */
const oracle = createOrchardBigintHasher();
const HASH = `${"00".repeat(31)}2a`;

type Answer = { result?: unknown; error?: { code: number; message: string } };
let answers: Record<string, (params: unknown[]) => Answer> = {};
let server: Server;
let node: NodeClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      const call = JSON.parse(body) as { id: unknown; method: string; params: unknown[] };
      const a = answers[call.method]?.(call.params) ?? {
        error: { code: -32601, message: "Method not found" },
      };
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({ jsonrpc: "2.0", id: call.id, result: a.result ?? null, error: a.error ?? null }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  node = createNodeClient({ url: `http://127.0.0.1:${port}/`, retries: 0 });
});

afterAll(async () => {
  node?.close();
  await new Promise((r) => server?.close(r));
});

/** Ours: the tracker's Ironwood and Orchard trees over the same leaves; Sapling empty. */
function ours(n: number): TreeStateView {
  const cms = Array.from({ length: n }, (_, i) => fakeNode(40 + i));
  const t = createFrontierTracker({ sapling: "000000", orchard: "000000", ironwood: "000000" });
  t.appendBlock({ saplingCmus: [], orchardCmxs: cms, ironwoodCmxs: cms });
  const s = t.snapshot();
  return {
    network: "regtest",
    height: 7,
    hash: HASH,
    time: 1,
    saplingTree: s.saplingTree,
    orchardTree: s.orchardTree,
    ironwoodTree: s.ironwoodTree,
  };
}

/** The node's finalState for n leaves, from the naive bigint tree (zcashd's minimal style too). */
function theirs(n: number, style: "zebrad" | "zcashd" = "zebrad"): string {
  let tree: LegacyTree = { parents: [] };
  for (let i = 0; i < n; i++) tree = naiveAppend("ironwood", tree, fakeNode(40 + i), oracle);
  return serializeFinalState(tree, style);
}

const treeState = (pools: { orchard?: string; ironwood?: string }, hash = HASH) => ({
  result: {
    hash,
    height: 7,
    time: 1,
    sapling: { commitments: { finalState: "000000" } },
    orchard: { commitments: pools.orchard ? { finalState: pools.orchard } : {} },
    ironwood: { commitments: pools.ironwood ? { finalState: pools.ironwood } : {} },
  },
});

async function run(checks: Parameters<ReturnType<typeof createNodeCheck>["add"]>[0][]) {
  const registry = new Registry();
  const logged: unknown[] = [];
  const log = { warn: () => {}, error: (o: unknown) => void logged.push(o) };
  const check = createNodeCheck({ node, log: log as never, metrics: createTreeStateMetrics(registry) });
  for (const c of checks) check.add(c);
  await check.idle();
  const mismatches = (await registry.getSingleMetric("lightedge_treestate_node_mismatch_total")!.get())
    .values;
  const byPool = Object.fromEntries(mismatches.map((v) => [v.labels.pool, v.value]));
  return { byPool, logged };
}

describe("comparing the origin's tree states with the node's", () => {
  it("raises nothing when the node's finalState is the same tree (either node style)", async () => {
    answers = { z_gettreestate: () => treeState({ orchard: theirs(5, "zcashd"), ironwood: theirs(5) }) };
    const { byPool, logged } = await run([{ kind: "state", view: ours(5) }]);
    expect(ours(5).ironwoodTree).not.toBe("000000");
    expect(byPool).toEqual({});
    expect(logged).toEqual([]);
  });

  it("counts and logs a different Ironwood finalState, with height, pool and both values", async () => {
    answers = { z_gettreestate: () => treeState({ orchard: theirs(5), ironwood: theirs(6) }) };
    const { byPool, logged } = await run([{ kind: "state", view: ours(5) }]);
    expect(byPool).toEqual({ ironwood: 1 });
    expect(logged).toEqual([{ pool: "ironwood", height: 7, ours: ours(5).ironwoodTree, theirs: theirs(6) }]);
  });

  it("is no mismatch when the node lacks the value, fails, or has another block at that height", async () => {
    answers = { z_gettreestate: () => treeState({}) };
    expect((await run([{ kind: "state", view: ours(5) }])).byPool).toEqual({});
    answers = { z_gettreestate: () => ({ error: { code: -8, message: "block not found" } }) };
    expect((await run([{ kind: "state", view: ours(5) }])).byPool).toEqual({});
    answers = { z_gettreestate: () => treeState({ ironwood: theirs(9) }, "11".repeat(32)) };
    expect((await run([{ kind: "state", view: ours(5) }])).byPool).toEqual({});
  });

  it("compares each completed subtree's root with z_getsubtreesbyindex", async () => {
    const root = bigintToLeBytes(
      hashPair(oracle, 0, leBytesToBigint(fakeNode(1)), leBytesToBigint(fakeNode(2))),
    );
    const other = fakeNode(3);
    const subtree = { kind: "subtree" as const, pool: "ironwood" as const, index: 4, root, height: 90 };
    answers = {
      z_getsubtreesbyindex: (p) => ({
        result: { pool: p[0], start_index: p[1], subtrees: [{ root: toHex(root), end_height: 90 }] },
      }),
    };
    expect((await run([subtree])).byPool).toEqual({});
    const wrong = await run([{ ...subtree, root: other, index: 5 }, subtree]);
    expect(wrong.byPool).toEqual({ ironwood: 1 });
    expect(wrong.logged).toMatchObject([{ pool: "ironwood", index: 5, height: 90, ours: toHex(other) }]);
    answers = { z_getsubtreesbyindex: (p) => ({ result: { pool: p[0], start_index: p[1], subtrees: [] } }) };
    expect((await run([subtree])).byPool).toEqual({});
  });
});
