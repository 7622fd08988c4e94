import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bigintToLeBytes, leBytesToBigint } from "../../proto/bytes.ts";
import { ShieldedProtocol } from "../../proto/index.ts";
import {
  type LegacyTree,
  readSubtreeRoots,
  SUBTREE_LEAF_COUNT,
  serializeFinalState,
} from "../../proto/treestate/index.ts";
import { loadOriginConfig } from "../config.ts";
import { createDevNode, type DevNode } from "../devnode/index.ts";
import { buildIndexedBlock } from "../index/build-block.ts";
import { clientFor } from "../serve/testing.ts";
import { createDirectoryStore } from "../store/index.ts";
import { hasherFor, hashPair, type TreePool } from "../trees/index.ts";
import { commitmentsOfCompact } from "../treestate/leaves.ts";
import { fakeLegacy, naiveAppend } from "../treestate/testing.ts";
import { type RunningOrigin, startOrigin } from "./start-origin.ts";

const BLOCKS = 30;
const RANGE = 5;
const POOLS = ["sapling", "orchard", "ironwood"] as const;
/** Leaves before the test chain's first: a few blocks in, subtree 0 of each pool completes. */
const BEFORE = {
  sapling: SUBTREE_LEAF_COUNT - 10,
  orchard: SUBTREE_LEAF_COUNT - 6,
  ironwood: SUBTREE_LEAF_COUNT - 5,
};
const PROTOCOL = {
  sapling: ShieldedProtocol.sapling,
  orchard: ShieldedProtocol.orchard,
  ironwood: ShieldedProtocol.ironwood,
};

/** Root of the 2^16-leaf subtree a naive legacy tree of exactly 2^16 leaves holds (left, right, parents 0..14). */
function naiveSubtreeRoot(pool: TreePool, t: LegacyTree): Uint8Array {
  const h = hasherFor(pool);
  let node = hashPair(h, 0, leBytesToBigint(t.left!), leBytesToBigint(t.right!));
  for (let i = 0; i < 15; i++) node = hashPair(h, i + 1, leBytesToBigint(t.parents[i]!), node);
  return bigintToLeBytes(node);
}

let dev: DevNode;
let dir: string;
let origin: RunningOrigin;

beforeAll(async () => {
  dev = await createDevNode({ synthetic: { blocks: BLOCKS, seed: "start-origin-subtrees" } });
  await dev.ready;
  dir = mkdtempSync(join(tmpdir(), "lightedge-start-origin-subtrees-"));
});

afterAll(async () => {
  await origin?.close();
  await dev?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("startOrigin with a frontier just short of a subtree boundary (test hook)", () => {
  it("stores each completed subtree's root, completing height and hash as a naive tree computes them", async () => {
    const start = {
      sapling: fakeLegacy(BEFORE.sapling, 7),
      orchard: fakeLegacy(BEFORE.orchard, 70),
      ironwood: fakeLegacy(BEFORE.ironwood, 700),
    };
    const config = loadOriginConfig([
      ...["--node", dev.url, "--network", "regtest", "--store", `dir:${join(dir, "store")}`],
      ...["--data-dir", join(dir, "data"), "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"],
      ...["--range-size", String(RANGE), "--seal-depth", "3", "--poll-ms", "30", "--log-level", "warn"],
    ]);
    origin = await startOrigin(config, {
      treeStart: {
        height: -1,
        sapling: serializeFinalState(start.sapling),
        orchard: serializeFinalState(start.orchard),
        ironwood: serializeFinalState(start.ironwood),
      },
    });
    const end = Date.now() + 15_000;
    while (origin.indexer.status().sealedTip < BLOCKS - RANGE - 1 && Date.now() < end)
      await new Promise((r) => setTimeout(r, 25));
    expect(origin.indexer.status().sealedTip).toBe(BLOCKS - RANGE - 1);
    await origin.treeStates.settled(BLOCKS - 1);

    // The independent tree, from the same start, over the served blocks' leaves.
    const trees = { ...start };
    const sizes = { ...BEFORE };
    const expected: Partial<Record<TreePool, { root: Uint8Array; height: number; hash: Uint8Array }>> = {};
    const states: Record<TreePool, string>[] = [];
    const client = clientFor("connect", origin.url);
    const range = { start: { height: 0n }, end: { height: BigInt(BLOCKS - 1) }, poolTypes: [] };
    for await (const block of client.getBlockRange(range)) {
      const leaves = {
        sapling: block.vtx.flatMap((tx) => tx.outputs.map((o) => o.cmu)),
        orchard: block.vtx.flatMap((tx) => tx.actions.map((a) => a.cmx)),
        ironwood: block.vtx.flatMap((tx) => tx.ironwoodActions.map((a) => a.cmx)),
      };
      for (const pool of POOLS)
        for (const cm of leaves[pool]) {
          trees[pool] = naiveAppend(pool, trees[pool], cm);
          if (++sizes[pool] === SUBTREE_LEAF_COUNT)
            expected[pool] = {
              root: naiveSubtreeRoot(pool, trees[pool]),
              height: Number(block.height),
              hash: block.hash,
            };
        }
      states.push({
        sapling: serializeFinalState(trees.sapling),
        orchard: serializeFinalState(trees.orchard),
        ironwood: serializeFinalState(trees.ironwood),
      });
    }
    const store = createDirectoryStore(join(dir, "store"));
    for (const pool of POOLS) {
      const want = expected[pool]!;
      expect(want.height).toBeLessThan(BLOCKS - RANGE); // sealed, so its chunk is written
      const read = (k: string, r?: { offset: number; length: number }) => store.get(k, r);
      const roots = await readSubtreeRoots(read, "regtest", {
        pool,
        startIndex: 0,
        maxEntries: 0,
        treeSize: SUBTREE_LEAF_COUNT,
      });
      expect(roots).toHaveLength(1);
      expect(Buffer.from(roots![0]!.root).toString("hex")).toBe(Buffer.from(want.root).toString("hex"));
      expect(roots![0]!.completingHeight).toBe(want.height);
      expect(Buffer.from(roots![0]!.completingWireHash)).toEqual(Buffer.from(want.hash));
    }
    // GetTreeState across the boundary, sealed and tail heights alike.
    const grpc = clientFor("grpc", origin.url);
    const boundaries = POOLS.map((p) => expected[p]!.height);
    for (const h of [0, ...boundaries, BLOCKS - 2, BLOCKS - 1]) {
      const state = await grpc.getTreeState({ height: BigInt(h) });
      expect([h, state.saplingTree, state.orchardTree, state.ironwoodTree]).toEqual([
        h,
        states[h]!.sapling,
        states[h]!.orchard,
        states[h]!.ironwood,
      ]);
    }
    // GetSubtreeRoots serves the roots the origin computed for every pool (not the dev node's,
    // whose tree is far below 2^16), completingBlockHash in display order as lightwalletd.
    for (const pool of POOLS) {
      const want = expected[pool]!;
      const rpcRoots = [];
      for await (const r of grpc.getSubtreeRoots({ shieldedProtocol: PROTOCOL[pool] })) rpcRoots.push(r);
      expect(
        rpcRoots.map((r) => [pool, Buffer.from(r.rootHash).toString("hex"), r.completingBlockHeight]),
      ).toEqual([[pool, Buffer.from(want.root).toString("hex"), BigInt(want.height)]]);
      expect(Buffer.from(rpcRoots[0]!.completingBlockHash)).toEqual(Buffer.from(want.hash).reverse());
    }
    // The node's tree states differ from ours (our start frontier is made up): the alarm counts
    // them per pool; ours are still the ones served (above).
    const mismatches = async () => {
      const text = await (await fetch(`${origin.adminUrl}/metrics`)).text();
      return POOLS.map((p) => {
        const m = new RegExp(`lightedge_treestate_node_mismatch_total\\{pool="${p}"\\} (\\d+)`).exec(text);
        return Number(m?.[1] ?? 0);
      });
    };
    const end2 = Date.now() + 15_000;
    while ((await mismatches()).some((n) => n === 0) && Date.now() < end2)
      await new Promise((r) => setTimeout(r, 50));
    expect((await mismatches()).every((n) => n > 0)).toBe(true);
  }, 60_000);
});

/**
 * A real JSON-RPC server in front of the dev node that answers z_gettreestate with the tree states
 * an independent one-leaf-at-a-time tree computes from the dev chain's own blocks (and forwards
 * everything else): a node whose values agree with ours, so the alarm must stay at zero.
 */
async function agreeingNode(target: DevNode): Promise<{ url: string; close(): Promise<void> }> {
  const trees: Record<TreePool, LegacyTree> = {
    sapling: { parents: [] },
    orchard: { parents: [] },
    ironwood: { parents: [] },
  };
  const states: Record<TreePool, string>[] = [];
  const stateAt = (h: number) => {
    for (let at = states.length; at <= h; at++) {
      const c = commitmentsOfCompact(buildIndexedBlock(target.chain.block(at)).messages.full);
      const leaves = { sapling: c.saplingCmus, orchard: c.orchardCmxs, ironwood: c.ironwoodCmxs ?? [] };
      for (const pool of POOLS)
        for (const cm of leaves[pool]) trees[pool] = naiveAppend(pool, trees[pool], cm);
      states.push({
        sapling: serializeFinalState(trees.sapling),
        orchard: serializeFinalState(trees.orchard),
        ironwood: serializeFinalState(trees.ironwood),
      });
    }
    return states[h]!;
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      const call = JSON.parse(body.toString()) as { id?: unknown; method?: string; params?: unknown[] };
      res.setHeader("content-type", "application/json");
      if (
        !Array.isArray(call) &&
        call.method === "z_gettreestate" &&
        /^\d+$/.test(String(call.params?.[0]))
      ) {
        const h = Number(call.params![0]);
        const s = stateAt(h);
        const pool = (p: TreePool) => ({ commitments: { finalState: s[p] } });
        const result = {
          hash: target.chain.hashAt(h),
          height: h,
          time: target.chain.block(h).time,
          sapling: pool("sapling"),
          orchard: pool("orchard"),
          ironwood: pool("ironwood"),
        };
        res.end(JSON.stringify({ jsonrpc: "2.0", id: call.id, result, error: null }));
        return;
      }
      const forwarded = await fetch(target.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      res.statusCode = forwarded.status;
      res.end(Buffer.from(await forwarded.arrayBuffer()));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe("startOrigin against a node whose tree states agree with ours", () => {
  it("compares them and raises no alarm", async () => {
    const proxy = await agreeingNode(dev);
    const config = loadOriginConfig([
      ...["--node", proxy.url, "--network", "regtest", "--store", `dir:${join(dir, "agree", "store")}`],
      ...["--data-dir", join(dir, "agree", "data"), "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"],
      ...["--range-size", String(RANGE), "--seal-depth", "3", "--poll-ms", "30", "--log-level", "warn"],
    ]);
    const agreeing = await startOrigin(config);
    try {
      const metric = async (re: RegExp) => {
        const text = await (await fetch(`${agreeing.adminUrl}/metrics`)).text();
        return [...text.matchAll(re)].reduce((n, m) => n + Number(m[1]), 0);
      };
      const equal = /lightedge_treestate_node_checks_total\{kind="state",result="equal"\} (\d+)/g;
      // Every sealed range's last height, each pool: 5 ranges × 3 pools compared equal.
      const end = Date.now() + 30_000;
      while ((await metric(equal)) < 15 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      expect(await metric(equal)).toBeGreaterThanOrEqual(15);
      expect(await metric(/lightedge_treestate_node_mismatch_total\{pool="\w+"\} (\d+)/g)).toBe(0);
      expect(
        await metric(/lightedge_treestate_node_checks_total\{kind="state",result="mismatch"\} (\d+)/g),
      ).toBe(0);
    } finally {
      await agreeing.close();
      await proxy.close();
    }
  }, 60_000);
});
