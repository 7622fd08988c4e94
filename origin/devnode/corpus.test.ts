import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { displayHex } from "../../proto/bytes.ts";
import { legacyTreeSize, parseFinalState } from "../../proto/treestate/legacy-tree.ts";
import { chainDir, corpusIndex, hasChain, readChainFile } from "../../test/support/chain.ts";
import { parseBlock } from "../chain/index.ts";
import { createDevNode, type DevNode } from "./index.ts";

/** Each dev node hashes on a worker thread and builds the hash tables first: slow on a shared machine. */
const HEAVY = 120_000;

/** Corpus mode: the corpus's real zebrad values where it has them, and nothing contradicting them. */
const json = (path: string) => JSON.parse(readChainFile(path).toString("utf8"));
const zebrad = (name: string) => json(`rpc/zebrad-mainnet/${name}.json`).result;

async function rpc(node: DevNode, method: string, params: unknown[]) {
  const res = await fetch(node.url, {
    method: "POST",
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: JSON-RPC results are read field by field in assertions
  return (await res.json()) as { result?: any; error?: { code: number; message: string } };
}
const result = async (node: DevNode, method: string, params: unknown[]) => {
  const r = await rpc(node, method, params);
  if (r.error) throw new Error(`${method}: ${r.error.message}`);
  return r.result;
};
const control = (node: DevNode, path: string, body: unknown) =>
  fetch(`${node.url}control/${path}`, { method: "POST", body: JSON.stringify(body) });
const size = (finalState: string) => legacyTreeSize(parseFinalState(finalState));

describe.skipIf(!hasChain)("corpus dev chain tree states", () => {
  it("mainnet 1687106–108: zebrad's values below the run, zebra's roots inside it, the real subtree list", {
    timeout: HEAVY,
  }, async () => {
    const node = await createDevNode({
      corpus: { dir: chainDir, from: 1687106, to: 1687108 },
      network: "mainnet",
    });
    try {
      await node.ready;
      for (const h of [1687103, 1687104, 1687105])
        expect(await result(node, "z_gettreestate", [String(h)])).toEqual(zebrad(`z_gettreestate-${h}`));
      const byHash = await result(node, "z_gettreestate", [zebrad("z_gettreestate-1687105").hash]);
      expect(byHash.height).toBe(1687105);
      const index = new Map(
        corpusIndex()
          .blocks.filter((b) => b.network === "mainnet")
          .map((b) => [b.height, b]),
      );
      for (const h of [1687106, 1687107, 1687108]) {
        const t = await result(node, "z_gettreestate", [h]);
        const e = index.get(h) as unknown as { finalSaplingRoot: string; finalOrchardRoot: string };
        expect(t.sapling.commitments.finalRoot).toBe(e.finalSaplingRoot);
        expect(t.orchard.commitments.finalRoot).toBe(e.finalOrchardRoot);
        const block = await result(node, "getblock", [String(h), 1]);
        expect(size(t.sapling.commitments.finalState)).toBe(block.trees.sapling.size);
        expect(size(t.orchard.commitments.finalState)).toBe(block.trees.orchard?.size ?? 0);
      }
      // 17 Sapling subtrees are complete before the run; the corpus has 0–10 and 17 only, so it
      // lists none of them: a wallet given 0–10 then writes its own 17 and fails (SubtreeDiscontinuity).
      expect((await result(node, "z_getsubtreesbyindex", ["sapling", 0])).subtrees).toEqual([]);
      expect((await result(node, "z_getsubtreesbyindex", ["sapling", 0, 3])).subtrees).toEqual([]);
      expect((await result(node, "z_getsubtreesbyindex", ["sapling", 11])).subtrees).toEqual([]);
      expect((await result(node, "z_getsubtreesbyindex", ["orchard", 0])).subtrees).toEqual([]);
      expect((await rpc(node, "z_getsubtreesbyindex", ["sprout", 0])).error?.code).toBe(-32602);
      expect((await rpc(node, "z_gettreestate", ["1687102"])).error?.code).toBe(-8);
    } finally {
      await node.close();
    }
  });

  it("mainnet 419199–202: the computed trees equal zebrad's across Sapling activation", {
    timeout: HEAVY,
  }, async () => {
    const node = await createDevNode({
      corpus: { dir: chainDir, from: 419199, to: 419202 },
      network: "mainnet",
    });
    try {
      await node.ready;
      for (const h of [419199, 419200, 419201])
        expect(await result(node, "z_gettreestate", [h])).toEqual(zebrad(`z_gettreestate-${h}`));
      // Before Heartwood the header's third field is hashFinalSaplingRoot (display order).
      const header = parseBlock(
        Buffer.from((await result(node, "getblock", ["419202", 0])) as string, "hex"),
      ).header;
      const t = await result(node, "z_gettreestate", ["419202"]);
      expect(t.sapling.commitments.finalRoot).toBe(displayHex(header.blockCommitments));
    } finally {
      await node.close();
    }
  });

  it("testnet 1028400–600: a start frontier within the checkpoints' sizes", { timeout: HEAVY }, async () => {
    const node = await createDevNode({
      corpus: { dir: chainDir, from: 1028400, to: 1028600 },
      network: "testnet",
    });
    try {
      await node.ready;
      const start = await result(node, "z_gettreestate", ["1028399"]);
      const s = size(start.sapling.commitments.finalState);
      expect(s).toBeGreaterThanOrEqual(size(json("treestate/testnet/1000000.json").saplingTree));
      expect(s).toBeLessThanOrEqual(size(json("treestate/testnet/1200000.json").saplingTree));
      expect(start.orchard).toEqual({ commitments: {} });
      const end = await result(node, "z_gettreestate", ["1028600"]);
      const block = await result(node, "getblock", ["1028600", 1]);
      expect(size(end.sapling.commitments.finalState)).toBe(block.trees.sapling.size);
    } finally {
      await node.close();
    }
  });

  describe("mainnet 663150–250", () => {
    let node: DevNode;
    beforeAll(async () => {
      node = await createDevNode({ corpus: { dir: chainDir, from: 663150, to: 663250 }, network: "mainnet" });
      await node.ready;
    });
    afterAll(() => node.close());

    it("starts from a constructed frontier whose level-16 ommer is the real subtree 0", {
      timeout: HEAVY,
    }, async () => {
      const start = await result(node, "z_gettreestate", ["663149"]);
      expect(start.hash).toBe(
        corpusIndex().blocks.find((b) => b.network === "mainnet" && b.height === 663150)!.prevHash,
      );
      const tree = parseFinalState(start.sapling.commitments.finalState);
      const real = zebrad("z_getsubtreesbyindex_mainnet_sapling_0_11").subtrees;
      expect(Buffer.from(tree.parents[15]!).toString("hex")).toBe(real[0].root);
      const s = legacyTreeSize(tree);
      const first = await result(node, "getblock", ["663150", 1]);
      const last = await result(node, "getblock", ["663250", 1]);
      // Subtree 0 completed at 558822 and subtree 1 completes at 670209, after the run.
      expect(s).toBeGreaterThan(2 ** 16);
      expect(last.trees.sapling.size).toBeLessThan(2 ** 17);
      const outputs = (h: string) =>
        parseBlock(readHexBlock(h)).txs.reduce((n, t) => n + t.sapling.outputs.length, 0);
      expect(first.trees.sapling.size).toBe(s + outputs("663150"));
      for (const h of [663150, 663174, 663229, 663250]) {
        const t = await result(node, "z_gettreestate", [h]);
        const b = await result(node, "getblock", [String(h), 1]);
        expect(size(t.sapling.commitments.finalState)).toBe(b.trees.sapling.size);
        expect(t.orchard).toEqual({ commitments: {} });
        expect(t.ironwood).toBeUndefined();
      }
      expect(await result(node, "z_getsubtreesbyindex", ["sapling", 0])).toEqual(
        zebrad("z_getsubtreesbyindex_mainnet_sapling_0_1"),
      );
    });

    it("mines Blossom blocks on top (v4, transparent and Sapling only) and stages real v4 transactions", {
      timeout: HEAVY,
    }, async () => {
      const recv = join(chainDir, "tx/mainnet/devwallet-recv");
      const inRun = new Set(corpusIndex().blocks.flatMap((b) => b.txids));
      const staged = readdirSync(recv)
        .map((f) => f.replace(/\.hex$/, ""))
        .filter((t) => !inRun.has(t));
      expect(staged.length).toBe(9);
      const hex = staged.map((t) => readChainFile(`tx/mainnet/devwallet-recv/${t}.hex`).toString().trim());
      // One through sendrawtransaction, the rest through the control API.
      expect(await result(node, "sendrawtransaction", [hex[0]])).toBe(staged[0]);
      expect((await rpc(node, "sendrawtransaction", [hex[0]])).error?.code).toBe(-26);
      const added = (await (await control(node, "mempool", { hex: hex.slice(1) })).json()) as {
        added: string[];
      };
      expect(added.added).toEqual(staged.slice(1));
      expect(await result(node, "getrawmempool", [])).toEqual(staged);
      expect(await result(node, "getrawtransaction", [staged[3], 0])).toBe(hex[3]);
      // A v5 transaction (NU5, mainnet 2222000) is not valid in a Blossom block.
      const v5 = readChainFile("tx/mainnet/../../blocks/mainnet/2222000.hex").toString().trim();
      const v5tx = Buffer.from(parseBlock(Buffer.from(v5, "hex")).txs[1]!.raw).toString("hex");
      expect((await rpc(node, "sendrawtransaction", [v5tx])).error?.code).toBe(-26);
      expect((await control(node, "mempool", { hex: [v5tx] })).status).toBe(400);

      const mined = (await (await control(node, "mine", { blocks: 3 })).json()) as { tip: number };
      expect(mined.tip).toBe(663253);
      const info = await result(node, "getblockchaininfo", []);
      expect(info.consensus).toEqual({ chaintip: "2bb40e60", nextblock: "2bb40e60" });
      const prevSize = (await result(node, "getblock", ["663250", 1])).trees.sapling.size;
      let stagedOutputs = 0;
      let lastCmu = "";
      for (const h of [663251, 663252, 663253]) {
        const raw = Buffer.from((await result(node, "getblock", [String(h), 0])) as string, "hex");
        const block = parseBlock(raw); // checks the merkle root
        expect(block.height).toBe(h);
        for (const tx of block.txs) {
          expect(tx.version).toBe(4);
          expect(tx.orchard).toBeNull();
          expect(tx.ironwood).toBeNull();
        }
        if (h === 663251) {
          const ids = block.txs.map((t) => displayHex(t.wireTxid));
          expect(ids.slice(-9)).toEqual(staged);
          for (const tx of block.txs.slice(-9)) {
            stagedOutputs += tx.sapling.outputs.length;
            if (tx.sapling.outputs.length > 0)
              lastCmu = Buffer.from(tx.sapling.outputs[tx.sapling.outputs.length - 1]!.cmu).toString("hex");
          }
          const verbose = await result(node, "getblock", [String(h), 1]);
          const added = block.txs.reduce((n, t) => n + t.sapling.outputs.length, 0);
          expect(verbose.trees.sapling.size).toBe(prevSize + added);
          const t = await result(node, "z_gettreestate", [h]);
          expect(size(t.sapling.commitments.finalState)).toBe(prevSize + added);
          // The staged transactions come last, so the tree's newest leaf is their last output.
          const tree = parseFinalState(t.sapling.commitments.finalState);
          expect(Buffer.from((tree.right ?? tree.left)!).toString("hex")).toBe(lastCmu);
          expect(t.orchard).toEqual({ commitments: {} });
        }
      }
      expect(stagedOutputs).toBeGreaterThanOrEqual(9);
      expect(await result(node, "getrawmempool", [])).toEqual([]);
      expect((await result(node, "getrawtransaction", [staged[0], 1])).height).toBe(663251);

      // A reorg replacing real and mined blocks: the new branch is Blossom-era too, and the tree
      // states follow it.
      const before = await result(node, "z_gettreestate", ["663248"]);
      await control(node, "reorg", { depth: 5 });
      expect(await result(node, "z_gettreestate", ["663248"])).toEqual(before);
      for (const h of [663249, 663253]) {
        const block = parseBlock(
          Buffer.from((await result(node, "getblock", [String(h), 0])) as string, "hex"),
        );
        for (const tx of block.txs) expect(tx.version).toBe(4);
        const t = await result(node, "z_gettreestate", [h]);
        expect(t.hash).toBe(displayHex(block.wireHash));
        expect(size(t.sapling.commitments.finalState)).toBe(
          (await result(node, "getblock", [String(h), 1])).trees.sapling.size,
        );
      }
    });
  });
});

describe.skipIf(!hasChain)("real transactions on a synthetic chain", () => {
  it("takes real v4, v5 and v6 transactions into the mempool and mines them with their commitments", {
    timeout: HEAVY,
  }, async () => {
    const node = await createDevNode({ synthetic: { blocks: 5, seed: "real-txs" } });
    try {
      await node.ready;
      const v4 = readChainFile(
        "tx/mainnet/devwallet-recv/0821a89be7f2fc1311792c3fa1dd2171a8cdfb2effd98590cbd5ebcdcfcf491f.hex",
      );
      const v5 = Buffer.from(parseBlock(readHexBlock("2222000")).txs[1]!.raw);
      const v6 = readChainFile(
        "tx/v6/testnet-f0780a099f381d2a79fa4b6cab6d657293a5d307e30a7adde5ad95f7d4d575e5.hex",
      );
      const hexes = [v4.toString().trim(), v5.toString("hex"), v6.toString().trim()];
      const ids: string[] = [];
      for (const hex of hexes) ids.push(await result(node, "sendrawtransaction", [hex]));
      expect(await result(node, "getrawmempool", [])).toEqual(ids);
      for (const [i, id] of ids.entries())
        expect(await result(node, "getrawtransaction", [id, 0])).toBe(hexes[i]);
      expect((await rpc(node, "sendrawtransaction", ["00"])).error?.code).toBe(-22);
      await control(node, "mine", { blocks: 1 });
      const raw = Buffer.from((await result(node, "getblock", ["5", 0])) as string, "hex");
      const block = parseBlock(raw, { strictV6: false });
      expect(block.txs.slice(-3).map((t) => displayHex(t.wireTxid))).toEqual(ids);
      const before = (await result(node, "getblock", ["4", 1])).trees;
      const after = (await result(node, "getblock", ["5", 1])).trees;
      const count = (pool: "sapling" | "orchard" | "ironwood") =>
        block.txs.reduce(
          (n, t) => n + (pool === "sapling" ? t.sapling.outputs.length : (t[pool]?.actions.length ?? 0)),
          0,
        );
      for (const pool of ["sapling", "orchard", "ironwood"] as const) {
        expect(after[pool]?.size ?? 0).toBe((before[pool]?.size ?? 0) + count(pool));
        const t = await result(node, "z_gettreestate", [5]);
        expect(size(t[pool].commitments.finalState)).toBe(after[pool]?.size ?? 0);
      }
    } finally {
      await node.close();
    }
  });
});

function readHexBlock(height: string): Uint8Array {
  return Uint8Array.from(Buffer.from(readChainFile(`blocks/mainnet/${height}.hex`).toString().trim(), "hex"));
}
