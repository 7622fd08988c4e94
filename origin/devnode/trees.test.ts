import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bigintToLeBytes, leBytesToBigint, toHex } from "../../proto/bytes.ts";
import { serializeFinalState } from "../../proto/treestate/legacy-tree.ts";
import { parseBlock } from "../chain/index.ts";
import { createNodeClient } from "../node/index.ts";
import { hashPair, type MerkleHasher, TREE_DEPTH } from "../trees/index.ts";
import { createOrchardBigintHasher } from "../trees/orchard-hasher-bigint.ts";
import { createSaplingBigintHasher } from "../trees/sapling-hasher-bigint.ts";
import { addTxCommitments, type Commitments, noCommitments, POOLS, type Pool } from "./commitments.ts";
import { createDevNode, type DevNode } from "./index.ts";

/**
 * The dev node's tree states against a naive computation with the reference (all-bigint) hashers:
 * every level of the whole tree hashed from the chain's commitments, the legacy frontier read off
 * it, the root padded with empty subtrees. Ironwood uses the Orchard hash, as zcash_client_backend
 * 0.25 does (MerkleHashOrchard).
 */
const reference: Record<Pool, MerkleHasher> = (() => {
  const orchard = createOrchardBigintHasher();
  return { sapling: createSaplingBigintHasher(), orchard, ironwood: orchard };
})();

function naive(pool: Pool, cms: Uint8Array[]): { size: number; finalState: string; root: string } {
  const h = reference[pool];
  const levels: bigint[][] = [cms.map(leBytesToBigint)];
  for (let l = 0; l < TREE_DEPTH; l++) {
    const row = levels[l]!.slice();
    if (row.length % 2 === 1) row.push(h.emptyRoot(l));
    const next: bigint[] = [];
    for (let i = 0; i < row.length; i += 2) next.push(hashPair(h, l, row[i]!, row[i + 1]!));
    levels.push(next);
  }
  const size = cms.length;
  const root = levels[TREE_DEPTH]![0] ?? h.emptyRoot(TREE_DEPTH);
  if (size === 0) return { size, finalState: "000000", root: toHex(bigintToLeBytes(root)) };
  const last = size - 1;
  const node = (l: number, i: number) => bigintToLeBytes(levels[l]![i]!);
  const odd = last % 2 === 1;
  const finalState = serializeFinalState({
    left: node(0, odd ? last - 1 : last),
    right: odd ? node(0, last) : undefined,
    parents: Array.from({ length: 31 }, (_, k) =>
      Math.floor(last / 2 ** (k + 1)) % 2 === 1
        ? node(k + 1, Math.floor(last / 2 ** (k + 1)) - 1)
        : undefined,
    ),
  });
  return { size, finalState, root: toHex(bigintToLeBytes(root)) };
}

const display = (pool: Pool, le: string) =>
  pool === "sapling" ? Buffer.from(le, "hex").reverse().toString("hex") : le;

async function rpc(node: DevNode, method: string, params: unknown[]) {
  const res = await fetch(node.url, {
    method: "POST",
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: Record<string, unknown>; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result!;
}

describe("dev node tree states", () => {
  let node: DevNode;
  beforeAll(async () => {
    node = await createDevNode({ synthetic: { blocks: 40, seed: "trees-test" } });
    await node.ready;
  });
  afterAll(() => node.close());

  async function check(heights: number[]) {
    const c = createNodeClient({ url: node.url });
    const blocks = await c.blocks(0, Math.max(...heights));
    c.close();
    const perBlock = blocks.map((b) => {
      const cms = noCommitments();
      for (const tx of parseBlock(b.raw, { strictV6: false }).txs) addTxCommitments(cms, tx);
      return cms;
    });
    for (const height of heights) {
      const upTo: Commitments = noCommitments();
      for (const cms of perBlock.slice(0, height + 1)) for (const p of POOLS) upTo[p].push(...cms[p]);
      const got = (await rpc(node, "z_gettreestate", [String(height)])) as Record<string, unknown>;
      const verbose = await rpc(node, "getblock", [String(height), 1]);
      expect(got.hash).toBe(blocks[height]!.displayHash);
      if (height === 0) {
        // Pools activate at 1 on a synthetic chain (zebrad regtest); genesis is coinbase only, and
        // zebrad has no `ironwood` member before NU6.3.
        expect(got).toMatchObject({ sapling: { commitments: {} }, orchard: { commitments: {} } });
        expect(got.ironwood).toBeUndefined();
        expect(POOLS.map((p) => upTo[p].length)).toEqual([0, 0, 0]);
        continue;
      }
      for (const pool of POOLS) {
        const want = naive(pool, upTo[pool]);
        const commitments = (got[pool] as { commitments: { finalRoot?: string; finalState?: string } })
          .commitments;
        expect(commitments).toEqual({ finalRoot: display(pool, want.root), finalState: want.finalState });
        const size = (verbose.trees as Record<string, { size: number }>)[pool]?.size ?? 0;
        expect(size).toBe(want.size);
      }
    }
  }

  // The reference hashers are slow (all bigint), and the machine may be shared: a generous timeout.
  it("equal a naive computation at several heights, across mined blocks and a reorg", {
    timeout: 180_000,
  }, async () => {
    await check([0, 1, 39]);
    const mempool = await fetch(`${node.url}control/mempool`, { method: "POST", body: '{"count":2}' });
    expect(mempool.ok).toBe(true);
    await fetch(`${node.url}control/mine`, { method: "POST", body: '{"blocks":3}' });
    await check([42]);
    await fetch(`${node.url}control/reorg`, { method: "POST", body: '{"depth":5}' });
    await check([37, 38, 42]);
  });
});
