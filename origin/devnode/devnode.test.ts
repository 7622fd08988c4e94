import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { displayHex } from "../../proto/bytes.ts";
import { chainDir, corpusIndex, hasChain, readChainFile, readChainHex } from "../../test/support/chain.ts";
import { parseBlock, parseTransaction } from "../chain/index.ts";
import { createNodeClient } from "../node/index.ts";
import { createDevNode, type DevNode } from "./index.ts";
import { blockRandom } from "./prng.ts";
import { buildTx } from "./tx-builder.ts";

async function control(node: DevNode, path: string, body: unknown = {}): Promise<Record<string, unknown>> {
  const res = await fetch(`${node.url}control/${path}`, {
    method: path === "state" ? "GET" : "POST",
    body: path === "state" ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
}

describe("synthetic dev chain", () => {
  let node: DevNode;
  beforeAll(async () => {
    node = await createDevNode({ synthetic: { blocks: 150, seed: "devnode-test" } });
    await node.ready;
  });
  afterAll(() => node.close());

  it("serves blocks that parse, chain by prevHash and carry every tx version and pool", async () => {
    const c = createNodeClient({ url: node.url });
    const blocks = await c.blocks(0, 149);
    const versions = new Set<number>();
    const pools = { sapling: 0, orchard: 0, ironwood: 0, transparent: 0 };
    let prev = { sapling: 0, orchard: 0, ironwood: 0 };
    for (const b of blocks) {
      const p = parseBlock(b.raw); // checks the merkle root against the txids
      expect(p.height).toBe(b.height);
      expect(displayHex(p.wireHash)).toBe(b.displayHash);
      expect(displayHex(p.header.wirePrevHash)).toBe(
        b.height === 0 ? "0".repeat(64) : blocks[b.height - 1]!.displayHash,
      );
      expect(p.header.raw.length).toBe(1487);
      const added = { sapling: 0, orchard: 0, ironwood: 0 };
      for (const tx of p.txs) {
        versions.add(tx.version);
        added.sapling += tx.sapling.outputs.length;
        added.orchard += tx.orchard?.actions.length ?? 0;
        added.ironwood += tx.ironwood?.actions.length ?? 0;
        pools.transparent += tx.vout.length;
        for (const a of [...(tx.orchard?.actions ?? []), ...(tx.ironwood?.actions ?? [])])
          expect(a.cmx[31]! & 0xc0).toBe(0);
      }
      expect(b.treeSizes).toEqual({
        sapling: prev.sapling + added.sapling,
        orchard: prev.orchard + added.orchard,
        ironwood: prev.ironwood + added.ironwood,
      });
      prev = b.treeSizes;
    }
    expect([...versions].sort()).toEqual([4, 5, 6]);
    expect(Math.min(prev.sapling, prev.orchard, prev.ironwood, pools.transparent)).toBeGreaterThan(0);
    c.close();
  });

  // Two more nodes, each building its tree worker's hash tables before `ready`: over 30 s on a
  // loaded 2-core machine (it timed out there before any change to the chain).
  it("is deterministic per seed and differs across seeds", { timeout: 120_000 }, async () => {
    const again = await createDevNode({ synthetic: { blocks: 20, seed: "devnode-test" } });
    const other = await createDevNode({ synthetic: { blocks: 20, seed: "other" } });
    await Promise.all([again.ready, other.ready]);
    expect(again.chain.hashAt(19)).toBe(node.chain.hashAt(19));
    expect(other.chain.hashAt(19)).not.toBe(node.chain.hashAt(19));
    await Promise.all([again.close(), other.close()]);
  });

  it("mines, reorgs onto a new branch and mines mempool transactions via the control API", async () => {
    const c = createNodeClient({ url: node.url });
    const before = await c.bestBlock();
    const forkHash = await c.blockHash(before.height - 2);
    const oldTail = await c.blockHash(before.height - 1);
    const { added } = (await control(node, "mempool", { count: 2 })) as unknown as { added: string[] };
    expect(await c.rawMempool()).toEqual(added);
    await control(node, "mine", { blocks: 2 });
    const mined = await c.block(await c.blockHash(before.height + 1));
    expect(mined.txids.slice(-2)).toEqual(added);
    expect((await c.rawTransaction(added[0]!)).height).toBe(before.height + 1);
    expect(await c.rawMempool()).toEqual([]);
    const state = await control(node, "reorg", { depth: 4 });
    expect(state.tip).toBe(before.height + 2);
    // depth 4 from tip before+2 replaces before-1..before+2; before-2 is the fork point.
    expect(await c.blockHash(before.height - 2)).toBe(forkHash);
    expect(await c.blockHash(before.height - 1)).not.toBe(oldTail);
    const tail = await c.blocks(before.height - 2, before.height + 2);
    for (let i = 1; i < tail.length; i++) expect(tail[i]!.prevDisplayHash).toBe(tail[i - 1]!.displayHash);
    for (const b of tail) parseBlock(b.raw);
    await expect(c.block(oldTail)).rejects.toMatchObject({ kind: "not-found" });
    c.close();
  });

  it("answers zebrad's error codes for bad calls", async () => {
    const call = async (method: string, params: unknown[]) =>
      (await (
        await fetch(node.url, {
          method: "POST",
          body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
        })
      ).json()) as { id: number; error?: { code: number } };
    expect((await call("getblock", ["9999999", 0])).error?.code).toBe(-8);
    expect((await call("getblockhash", [9_999_999])).error?.code).toBe(-32602);
    expect((await call("getrawtransaction", ["00", 1])).error?.code).toBe(-5);
    expect((await call("nosuchmethod", [])).error?.code).toBe(-32601);
    expect((await call("getblockcount", [])).id).toBe(7);
    // A transaction whose note commitment is not a canonical field element never enters the mempool.
    const shape = { vin: [], vout: [], saplingSpends: 0, saplingOutputs: 1, orchardActions: 0 };
    const raw = buildTx(
      { ...shape, version: 5, ironwoodActions: 0, lockTime: 9, expiryHeight: 999 },
      blockRandom("bad", 1, 0),
    );
    parseTransaction(raw).sapling.outputs[0]!.cmu[31] = 0xff; // a view into `raw`
    expect((await call("sendrawtransaction", [Buffer.from(raw).toString("hex")])).error?.code).toBe(-26);
    expect((await call("sendrawtransaction", ["zz"])).error?.code).toBe(-22);
  });

  it("answers getinfo and getblock 2 in zebrad 7.0.0's shapes (test/zebrad/README.md)", async () => {
    // biome-ignore lint/suspicious/noExplicitAny: JSON-RPC results, checked field by field below
    type Json = any;
    const call = async (method: string, params: unknown[]): Promise<Json> => {
      const res = await fetch(node.url, { method: "POST", body: JSON.stringify({ method, params }) });
      return ((await res.json()) as { result: Json }).result;
    };
    const info = await call("getinfo", []);
    expect(Number.isSafeInteger(info.errorstimestamp)).toBe(true);
    // The zebra-rpc snapshot of getblock verbosity 2: these fields, in this order, are zebrad's.
    const snapshot = JSON.parse(
      readChainFile(
        "rpc/zebra-rpc-snapshots/get_block_verbose_height_verbosity_2@mainnet_10.json",
      ).toString(),
    );
    const zebradTxFields = Object.keys(snapshot.tx[0]);
    const v1 = await call("getblock", ["120", 1]);
    const v2 = await call("getblock", ["120", 2]);
    const raw = parseBlock(Buffer.from(await call("getblock", ["120", 0]), "hex"));
    expect({ ...v2, tx: undefined }).toEqual({ ...v1, tx: undefined });
    expect(v2.tx.map((t: { txid: string }) => t.txid)).toEqual(v1.tx);
    expect(v2.tx.length).toBeGreaterThan(1);
    for (const [i, t] of v2.tx.entries()) {
      const fields = Object.keys(t);
      expect(fields).toEqual(zebradTxFields.filter((f) => fields.includes(f)));
      expect(t).toMatchObject({
        in_active_chain: true,
        hex: Buffer.from(raw.txs[i]!.raw).toString("hex"),
        height: 120,
        confirmations: v1.confirmations,
        version: raw.txs[i]!.version,
        blockhash: v1.hash,
      });
    }
  });
});

describe.skipIf(!hasChain)("corpus dev chain", () => {
  it("serves the real bytes, hashes and txids of a corpus run", async () => {
    const node = await createDevNode({
      corpus: { dir: chainDir, from: 663150, to: 663250 },
      network: "mainnet",
    });
    await node.ready;
    const c = createNodeClient({ url: node.url, network: "mainnet" });
    try {
      const info = await c.info();
      expect(info.saplingActivationHeight).toBe(419200);
      expect(info.consensus.chaintip).toBe("2bb40e60"); // Blossom at 663250
      const blocks = await c.blocks(663150, 663250);
      const index = new Map(
        corpusIndex()
          .blocks.filter((b) => b.network === "mainnet")
          .map((b) => [b.height, b]),
      );
      for (const b of blocks) {
        const e = index.get(b.height)!;
        expect(b.displayHash).toBe(e.hash);
        expect(b.txids).toEqual(e.txids);
        expect(Buffer.from(b.raw).equals(Buffer.from(readChainHex(e.file)))).toBe(true);
      }
      const outputs = (h: number) =>
        parseBlock(blocks[h - 663150]!.raw).txs.reduce((s, t) => s + t.sapling.outputs.length, 0);
      expect(blocks[100]!.treeSizes.sapling - blocks[99]!.treeSizes.sapling).toBe(outputs(663250));
      await expect(c.blockHash(663149)).rejects.toMatchObject({ kind: "above-tip" });
    } finally {
      c.close();
      await node.close();
    }
  });
});
