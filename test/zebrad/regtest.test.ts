import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseBlock, toCompactBlock } from "../../origin/chain/index.ts";
import { type StartedAll, startAll } from "../../origin/main/start-all.ts";
import { createNodeClient } from "../../origin/node/index.ts";
import { GENESIS_HASHES } from "../../origin/node/network.ts";
import { clientFor } from "../../origin/serve/testing.ts";
import { CompactBlockSchema } from "../../proto/index.ts";
import { SHIELDED_POOLS } from "../../proto/pools.ts";
import { hasZebrad, startZebrad, type Zebrad } from "../support/zebrad.ts";

// Small ranges and a shallow seal depth so a few hundred blocks seal many ranges and keep a tail.
const RANGE_SIZE = 10;
const SEAL_DEPTH = 10;
const FIRST = 200; // blocks mined before the origin starts
const MORE = 100; // mined while it runs

interface TreeStateAnswer {
  height: number;
  hash: string;
  sapling?: { commitments?: { finalState?: string } };
  orchard?: { commitments?: { finalState?: string } };
}

const display = (wire: Uint8Array) => Buffer.from(wire).reverse().toString("hex");

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!hasZebrad)("lightedge over a real zebrad on Regtest", () => {
  let zebrad: Zebrad;
  let all: StartedAll;
  let data: string;
  /** The project's parser applied to zebrad's raw block at h: the CompactBlock bytes expected. */
  const expected = async (h: number, projection: "full" | typeof SHIELDED_POOLS) => {
    const raw = await zebrad.rpc<string>("getblock", [String(h), 0]);
    const verbose = await zebrad.rpc<{ trees?: Record<string, { size?: number }> }>("getblock", [
      String(h),
      1,
    ]);
    const treeSizes = {
      sapling: verbose.trees?.sapling?.size ?? 0,
      orchard: verbose.trees?.orchard?.size ?? 0,
      ironwood: verbose.trees?.ironwood?.size ?? 0,
    };
    const block = parseBlock(Uint8Array.from(Buffer.from(raw, "hex")));
    return Buffer.from(toBinary(CompactBlockSchema, toCompactBlock(block, { projection, treeSizes })));
  };

  beforeAll(async () => {
    zebrad = await startZebrad();
    await zebrad.generate(FIRST);
    data = mkdtempSync(join(tmpdir(), "lightedge-zebrad-"));
    all = await startAll({
      dataDir: data,
      node: { url: zebrad.url, network: "regtest" },
      edgePort: 0,
      originPort: 0,
      adminPort: 0,
      rangeSize: RANGE_SIZE,
      sealDepth: SEAL_DEPTH,
      originArgs: ["--log-level", "error", "--poll-ms", "100"],
      quiet: true,
      env: {},
    });
    await all.synced;
  }, 180_000);

  afterAll(async () => {
    await all?.close();
    await zebrad?.stop();
    if (data) rmSync(data, { recursive: true, force: true });
  }, 60_000);

  it('knows the chain is regtest from zebrad\'s genesis block, though zebrad calls it "test"', async () => {
    const node = createNodeClient({ url: zebrad.url, network: "regtest" });
    const info = await node.info();
    // zebrad 7.0.0 answers getblockhash past the tip with code −1; the client still says above-tip.
    const past = await node.blockHash(FIRST + 50).catch((err: { kind?: string }) => err.kind);
    node.close();
    expect(past).toBe("above-tip");
    expect(info.chain).toBe("test");
    expect(info.genesisHash).toBe(GENESIS_HASHES.regtest);
    expect(await zebrad.rpc("getblockhash", [0])).toBe(GENESIS_HASHES.regtest);
    expect([info.network, info.chainName]).toEqual(["regtest", "regtest"]);
    expect(info.upgrades.find((u) => u.name === "NU5")?.activationHeight).toBe(1);
    for (const url of [all.originUrl, all.edgeUrl]) {
      const lightd = await clientFor(url === all.originUrl ? "grpc" : "grpc-web", url).getLightdInfo({});
      expect(lightd.chainName).toBe("regtest");
    }
  });

  it("follows zebrad while it mines, seals, and stays healthy", async () => {
    const before = all.origin.indexer.view.sealedTip();
    await zebrad.generate(MORE);
    const tip = await zebrad.height();
    expect(tip).toBe(FIRST + MORE);
    await until(() => all.origin.indexer.lastBlock()?.height === tip, "the origin at zebrad's tip");
    await until(() => all.origin.indexer.view.sealedTip() >= tip - SEAL_DEPTH - RANGE_SIZE, "sealing");
    expect(all.origin.indexer.view.sealedTip()).toBeGreaterThan(before);
    const health = await fetch(`${all.adminUrl}/healthz`);
    expect(health.status).toBe(200);
    const edgeTip = await clientFor("grpc-web", all.edgeUrl).getLatestBlock({});
    expect(edgeTip.height).toBe(BigInt(tip));
    expect(display(edgeTip.hash)).toBe(await zebrad.rpc("getblockhash", [tip]));
  });

  it("serves every block, at the origin (gRPC) and the edge (gRPC-web), as the parser builds it from zebrad's raw block", async () => {
    const tip = all.origin.indexer.lastBlock()!.height;
    const origin = clientFor("grpc", all.originUrl);
    const edge = clientFor("grpc-web", all.edgeUrl);
    const range = { start: { height: 0n }, end: { height: BigInt(tip) } };
    const [fromOrigin, fromEdge] = [[] as Buffer[], [] as Buffer[]];
    for await (const b of origin.getBlockRange(range))
      fromOrigin.push(Buffer.from(toBinary(CompactBlockSchema, b)));
    for await (const b of edge.getBlockRange(range))
      fromEdge.push(Buffer.from(toBinary(CompactBlockSchema, b)));
    expect(fromOrigin).toHaveLength(tip + 1);
    expect(fromEdge).toHaveLength(tip + 1);
    for (let h = 0; h <= tip; h++) {
      const want = await expected(h, SHIELDED_POOLS);
      expect(fromOrigin[h]!.equals(want), `origin block ${h}`).toBe(true);
      expect(fromEdge[h]!.equals(want), `edge block ${h}`).toBe(true);
    }
    // GetBlock (every pool, transparent included) at a sealed height and a tail height.
    for (const h of [1, RANGE_SIZE + 3, tip]) {
      const want = await expected(h, "full");
      for (const client of [origin, edge]) {
        const got = Buffer.from(toBinary(CompactBlockSchema, await client.getBlock({ height: BigInt(h) })));
        expect(got.equals(want), `GetBlock ${h}`).toBe(true);
      }
    }
  });

  it('answers GetTreeState with network "regtest" and zebrad\'s own z_gettreestate trees', async () => {
    const tip = all.origin.indexer.lastBlock()!.height;
    await all.origin.treeStates.settled(tip);
    // Computed by the origin from genesis (not zebrad's answers passed through).
    expect(all.origin.treeStates.coveredFrom()).toBe(0);
    const origin = clientFor("grpc", all.originUrl);
    const edge = clientFor("grpc-web", all.edgeUrl);
    for (const h of [0, 1, 2, RANGE_SIZE, 57, tip - SEAL_DEPTH, tip - 1, tip]) {
      const z = await zebrad.rpc<TreeStateAnswer>("z_gettreestate", [String(h)]);
      for (const client of [origin, edge]) {
        const ours = await client.getTreeState({ height: BigInt(h) });
        expect(ours.network).toBe("regtest");
        expect(Number(ours.height)).toBe(h);
        expect(ours.hash).toBe(z.hash);
        expect(ours.saplingTree, `sapling at ${h}`).toBe(z.sapling?.commitments?.finalState ?? "");
        expect(ours.orchardTree, `orchard at ${h}`).toBe(z.orchard?.commitments?.finalState ?? "");
      }
    }
  });
});
