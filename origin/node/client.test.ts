import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { displayHex } from "../../proto/bytes.ts";
import { parseBlock } from "../chain/index.ts";
import { createDevNode, type DevNode, knownScripts, scriptAddress } from "../devnode/index.ts";
import { NodeRpcError } from "./errors.ts";
import { createNodeClient } from "./index.ts";

async function control(node: DevNode, path: string, body: unknown = {}): Promise<unknown> {
  const res = await fetch(`${node.url}control/${path}`, { method: "POST", body: JSON.stringify(body) });
  return res.json();
}

async function failure(p: Promise<unknown>): Promise<NodeRpcError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NodeRpcError);
  return err as NodeRpcError;
}

describe("node client against the dev node", () => {
  let node: DevNode;
  let url: string;
  beforeAll(async () => {
    node = await createDevNode({ synthetic: { blocks: 120, seed: "client-test" } });
    await node.ready;
    url = node.url;
  });
  afterAll(() => node.close());

  it("reads info, tip, hashes and blocks that parse and chain", async () => {
    const c = createNodeClient({ url, network: "regtest" });
    const info = await c.info();
    expect(info.network).toBe("regtest");
    expect(info.blocks).toBe(119);
    expect(info.subversion).toContain("/Zebra:");
    expect(info.initialSync).toBe(false);
    const tip = await c.bestBlock();
    expect(tip).toEqual({ height: 119, displayHash: await c.blockHash(119) });
    const blocks = await c.blocks(0, 119);
    expect(blocks.map((b) => b.height)).toEqual(Array.from({ length: 120 }, (_, i) => i));
    for (let i = 1; i < blocks.length; i++)
      expect(blocks[i]!.prevDisplayHash).toBe(blocks[i - 1]!.displayHash);
    // Raw by height: the same bytes, and the node's word on the last block.
    const raw = await c.rawBlocks(0, 119);
    expect(raw.raws.map((r) => Buffer.from(r).toString("hex"))).toEqual(
      blocks.map((b) => Buffer.from(b.raw).toString("hex")),
    );
    expect(raw.last).toEqual({ displayHash: blocks[119]!.displayHash, treeSizes: blocks[119]!.treeSizes });
    const one = await c.block(blocks[50]!.displayHash);
    const parsed = parseBlock(one.raw);
    expect(displayHex(parsed.wireHash)).toBe(one.displayHash);
    expect(parsed.txs.map((t) => displayHex(t.wireTxid))).toEqual(one.txids);
    expect(one.treeSizes.sapling).toBeGreaterThan(0);
    c.close();
  });

  it("maps a height past the tip to above-tip and an unknown hash to not-found", async () => {
    const c = createNodeClient({ url });
    expect((await failure(c.blockHash(120))).kind).toBe("above-tip");
    expect((await failure(c.rawBlocks(118, 120))).kind).toBe("above-tip");
    expect((await failure(c.block("ab".repeat(32)))).kind).toBe("not-found");
    expect((await failure(c.rawTransaction("cd".repeat(32)))).kind).toBe("not-found");
    c.close();
  });

  it("answers transaction, mempool, address and tree-state calls", async () => {
    const c = createNodeClient({ url });
    const b = await c.block(await c.blockHash(10));
    const tx = await c.rawTransaction(b.txids[0]!);
    expect(tx.height).toBe(10);
    const address = scriptAddress(knownScripts()[10 % 3]!, "regtest")!;
    expect(await c.addressTxids({ addresses: [address], start: 10, end: 10 })).toEqual([b.txids[0]]);
    const utxos = await c.addressUtxos({ addresses: [address], startHeight: 100, maxEntries: 3 });
    expect(utxos.map((u) => u.height)).toEqual([100, 103, 106]);
    const balance = await c.addressBalance([address]);
    expect(balance.balance).toBe(
      (await c.addressUtxos({ addresses: [address] })).reduce((s, u) => s + u.satoshis, 0),
    );
    const state = await c.treeState(10);
    expect(state.height).toBe(10);
    expect(state.sapling.commitments.finalState).toMatch(/^[0-9a-f]+$/);
    expect((await c.subtrees("sapling", 0)).subtrees).toEqual([]);

    const sent = await c.sendRawTransaction(tx.raw.slice());
    expect(sent).toEqual({ rejected: { code: -27, message: expect.stringContaining("already") } });
    expect(await c.sendRawTransaction(Uint8Array.of(1, 2, 3))).toMatchObject({ rejected: { code: -22 } });
    const added = (await control(node, "mempool", { count: 1 })) as { added: string[] };
    const pooled = await c.rawTransaction(added.added[0]!);
    expect(pooled.height).toBeUndefined();
    expect(await c.rawMempool()).toEqual(added.added);
    c.close();
  });

  it("reports auth failure, wrong network and a syncing node as typed errors", async () => {
    const dir = mkdtempSync(join(tmpdir(), "devnode-"));
    const cookieFile = join(dir, ".cookie");
    const locked = await createDevNode({ synthetic: { blocks: 5, seed: "auth" }, cookieFile });
    await locked.ready;
    try {
      const noAuth = createNodeClient({ url: locked.url, retries: 0 });
      const err = await failure(noAuth.bestBlock());
      expect([err.kind, err.failure, err.code]).toEqual(["unavailable", "auth", 401]);
      const withCookie = createNodeClient({ url: locked.url, auth: { cookieFile } });
      expect((await withCookie.bestBlock()).height).toBe(4);
      writeFileSync(join(dir, "bad"), "__cookie__:nope");
      const badCookie = createNodeClient({ url: locked.url, auth: { cookieFile: join(dir, "bad") } });
      expect((await failure(badCookie.bestBlock())).failure).toBe("auth");
      for (const c of [noAuth, withCookie, badCookie]) c.close();
    } finally {
      await locked.close();
    }
    const mainnet = createNodeClient({ url, network: "mainnet" });
    expect((await failure(mainnet.info())).failure).toBe("wrong-network");
    await control(node, "syncing", { behind: 5000 });
    const c = createNodeClient({ url });
    expect((await failure(c.checkReady())).failure).toBe("syncing");
    expect((await c.checkReady({ allowSyncing: true })).initialSync).toBe(true);
    await control(node, "clear");
    for (const x of [mainnet, c]) x.close();
  });

  it("times out a stalled node, and retries transient failures but not node errors", async () => {
    await control(node, "stall", { ms: 400, requests: 1 });
    const impatient = createNodeClient({ url, timeoutMs: 100, retries: 0 });
    expect((await failure(impatient.bestBlock())).failure).toBe("timeout");
    await control(node, "fail", { status: 429, requests: 2 });
    const patient = createNodeClient({ url, retries: 3, backoffMs: 5 });
    expect((await patient.bestBlock()).height).toBe(119);
    await control(node, "fail", { status: 429, requests: 1 });
    const err = await failure(impatient.bestBlock());
    expect([err.kind, err.failure, err.code]).toEqual(["unavailable", "http-status", 429]);
    expect(err.message).not.toMatch(/Too Many/);
    await control(node, "fail", { close: true, requests: 2 });
    expect((await patient.bestBlock()).height).toBe(119);
    await control(node, "fail", { code: -28, message: "Loading block index", requests: 1 });
    expect((await patient.bestBlock()).height).toBe(119);
    await control(node, "fail", { code: -1, message: "boom", requests: 1 });
    expect((await failure(patient.bestBlock())).failure).toBe("node-error");
    expect((await patient.bestBlock()).height).toBe(119);
    await control(node, "clear");
    for (const x of [impatient, patient]) x.close();
  });

  it("refuses an answer that never ends, chunked or under a huge length, and goes on answering", async () => {
    // A short deadline, so that without the bound the call ends in a timeout, not in a test run
    // out of memory.
    const c = createNodeClient({ url, timeoutMs: 3000, retries: 0 });
    for (const flood of ["chunked", "declared"]) {
      await control(node, "fail", { flood, requests: 1 });
      const err = await failure(c.bestBlock());
      expect([err.kind, err.failure, err.transient]).toEqual(["too-large", "too-large", false]);
      expect(err.message).toMatch(/^node getblockchaininfo: answer over \d+ bytes, refused$/);
      // A batch of blocks is bounded by the sum of its calls' bounds, and refused the same way.
      await control(node, "fail", { flood, requests: 1 });
      expect((await failure(c.blocks(10, 14))).failure).toBe("too-large");
      expect((await c.bestBlock()).height).toBe(119);
    }
    await control(node, "clear");
    c.close();
  });

  it("falls back to single calls when batching is off, with the same blocks", async () => {
    const batched = createNodeClient({ url, batchSize: 7 });
    const single = createNodeClient({ url, batch: false, maxInFlight: 2 });
    const a = await batched.blocks(30, 45);
    const b = await single.blocks(30, 45);
    expect(b.map((x) => x.displayHash)).toEqual(a.map((x) => x.displayHash));
    expect(Buffer.from(b[3]!.raw).equals(Buffer.from(a[3]!.raw))).toBe(true);
    for (const x of [batched, single]) x.close();
  });

  it("says unavailable when nothing listens", async () => {
    const c = createNodeClient({ url: "http://127.0.0.1:1/", retries: 1, backoffMs: 1 });
    const err = await failure(c.bestBlock());
    expect([err.kind, err.failure]).toEqual(["unavailable", "refused"]);
    c.close();
  });
});
