import { describe, expect, it } from "vitest";
import { bigintToLeBytes, leBytesToBigint, toHex } from "../../proto/bytes.ts";
import {
  decodeSubtreeRoots,
  decodeTreeStateRange,
  type LegacyTree,
  SUBTREE_LEAF_COUNT,
  serializeFinalState,
  treeStateAt,
} from "../../proto/treestate/index.ts";
import { createDevChain } from "../devnode/chain.ts";
import { buildIndexedBlock } from "../index/build-block.ts";
import { createFrontierTracker, hashPair, type MerkleHasher, TREE_DEPTH } from "../trees/index.ts";
import { createOrchardBigintHasher } from "../trees/orchard-hasher-bigint.ts";
import { commitmentsOfCompact } from "./leaves.ts";
import { createTreeStateProducer, type ProducerBlock } from "./producer.ts";
import { createSubtreeLedger } from "./subtree-ledger.ts";
import { fakeLegacy, fakeNode, naiveAppend } from "./testing.ts";

/**
 * Ironwood's tree is the Orchard tree over Ironwood cmx (zcash_client_backend 0.25.0 keeps its
 * Ironwood commitments as `orchard::tree::MerkleHashOrchard`): checked against an independent
 * all-bigint Orchard hasher, one leaf at a time.
 */
const oracle: MerkleHasher = createOrchardBigintHasher();

/** Root of a naive legacy tree: fold its leaves and parents with the empty roots, 32 levels. */
function naiveRoot(t: LegacyTree): bigint {
  const leaf = (b?: Uint8Array) => (b ? leBytesToBigint(b) : oracle.emptyRoot(0));
  let node = hashPair(oracle, 0, leaf(t.left), leaf(t.right));
  for (let l = 1; l < TREE_DEPTH; l++) {
    const p = t.parents[l - 1];
    node = p ? hashPair(oracle, l, leBytesToBigint(p), node) : hashPair(oracle, l, node, oracle.emptyRoot(l));
  }
  return node;
}

/** Root of the subtree a naive tree of exactly k × 2¹⁶ leaves has just completed. */
function naiveSubtreeRoot(t: LegacyTree): string {
  let node = hashPair(oracle, 0, leBytesToBigint(t.left!), leBytesToBigint(t.right!));
  for (let l = 1; l < 16; l++) node = hashPair(oracle, l, leBytesToBigint(t.parents[l - 1]!), node);
  return toHex(bigintToLeBytes(node));
}

describe("the Ironwood tree, hashed as Orchard's", () => {
  const chain = createDevChain({ network: "regtest", seed: "ironwood-tree", blocks: 12 });
  while (!chain.advance(50));
  const blocks = Array.from({ length: 12 }, (_, h) => buildIndexedBlock(chain.block(h)));
  const leaves = blocks.map((b) => commitmentsOfCompact(b.messages.full).ironwoodCmxs ?? []);

  it("has the naive bigint Orchard tree's frontier and root after every block of a synthetic chain", () => {
    expect(leaves.flat().length).toBeGreaterThan(10);
    const t = createFrontierTracker({ ironwood: "000000" });
    const asOrchard = createFrontierTracker({ orchard: "000000" });
    let naive: LegacyTree = { parents: [] };
    for (const cms of leaves) {
      t.appendBlock({ saplingCmus: [], orchardCmxs: [], ironwoodCmxs: cms });
      asOrchard.appendBlock({ saplingCmus: [], orchardCmxs: cms });
      for (const cm of cms) naive = naiveAppend("ironwood", naive, cm, oracle);
      const snap = t.snapshot();
      expect(snap.ironwoodTree).toBe(serializeFinalState(naive));
      expect(snap.ironwoodTree).toBe(asOrchard.snapshot().orchardTree);
      expect(toHex(t.roots().ironwood!)).toBe(toHex(bigintToLeBytes(naiveRoot(naive))));
    }
  }, 60_000);

  it("completes subtree 0 across the 2^16 boundary with the naive tree's root, stored in the Ironwood chunk", async () => {
    // A frontier a few leaves short of 2^16 (its nodes arbitrary valid elements), then real leaves.
    const before = SUBTREE_LEAF_COUNT - 5;
    const start = fakeLegacy(before, 900);
    const extra = [fakeNode(1), fakeNode(2), fakeNode(3)];
    const chainBlocks: ProducerBlock[] = [0, 1, 2, 3].map((i) => ({
      height: 100 + i,
      wireHash: fakeNode(500 + i),
      time: 1_700_000_000 + i,
      leaves: {
        saplingCmus: [],
        orchardCmxs: [],
        ironwoodCmxs: i < 3 ? [...leaves[9]!.slice(0, 2), extra[i]!] : [],
      },
    }));
    const ledger = createSubtreeLedger();
    const p = createTreeStateProducer({
      network: "regtest",
      chainName: "regtest",
      rangeSize: 4,
      activations: { sapling: 1, orchard: 1, ironwood: 1 },
      ledger,
    });
    p.start({ height: 99, sapling: "", orchard: "", ironwood: serializeFinalState(start) });
    p.onAppend(chainBlocks);
    let naive = start;
    let size = before;
    let completed: { root: string; height: number } | undefined;
    const states: string[] = [];
    for (const b of chainBlocks) {
      for (const cm of b.leaves!.ironwoodCmxs!) {
        naive = naiveAppend("ironwood", naive, cm, oracle);
        if (++size === SUBTREE_LEAF_COUNT) completed = { root: naiveSubtreeRoot(naive), height: b.height };
      }
      states.push(serializeFinalState(naive));
      expect(p.tailState(b.height)!.ironwoodTree).toBe(states[states.length - 1]);
    }
    expect(completed?.height).toBe(101); // 2^16 − 5 + 3 + 3 crosses inside block 101
    expect(p.completedAt(101).map((c) => [c.pool, c.index, toHex(c.root)])).toEqual([
      ["ironwood", 0, completed!.root],
    ]);
    const objects = await p.rangeObjects(25, chainBlocks);
    const range = decodeTreeStateRange(objects.find((o) => o.key.endsWith(".trees.bin"))!.bytes);
    chainBlocks.forEach((b, i) => {
      expect(treeStateAt(range, b.height).ironwoodTree).toBe(states[i]);
    });
    const chunk = objects.find((o) => o.key.includes("/subtrees/ironwood/"));
    expect(chunk?.key).toBe("v1/regtest/subtrees/ironwood/000000-001.bin");
    const roots = decodeSubtreeRoots(chunk!.bytes);
    expect(roots.pool).toBe("ironwood");
    expect(roots.roots.map((r) => [toHex(r.root), r.completingHeight])).toEqual([[completed!.root, 101]]);
    expect(toHex(roots.roots[0]!.completingWireHash)).toBe(toHex(fakeNode(501)));
  }, 60_000);
});
