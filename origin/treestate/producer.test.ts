import { describe, expect, it } from "vitest";
import { toHex } from "../../proto/bytes.ts";
import { decodeTreeStateRange, serializeFinalState, treeStateAt } from "../../proto/treestate/index.ts";
import { chainDir, corpusIndex, hasChain, readChainFile, readChainHex } from "../../test/support/chain.ts";
import { createDevChain } from "../devnode/chain.ts";
import { buildIndexedBlock } from "../index/build-block.ts";
import type { IndexedBlock } from "../index/tail.ts";
import { createFrontierTracker } from "../trees/index.ts";
import { commitmentsOfCompact } from "./leaves.ts";
import { createTreeStateProducer } from "./producer.ts";
import { createSubtreeLedger } from "./subtree-ledger.ts";
import { naiveAppend } from "./testing.ts";

const producerFor = (rangeSize: number, activations = { sapling: 0, orchard: 0 }) =>
  createTreeStateProducer({
    network: "mainnet",
    chainName: "main",
    rangeSize,
    activations,
    ledger: createSubtreeLedger(),
  });

describe("the tip-following tree-state producer", () => {
  const chain = createDevChain({ network: "regtest", seed: "producer", blocks: 12 });
  while (!chain.advance(50));
  const blocks = Array.from({ length: 12 }, (_, h) => buildIndexedBlock(chain.block(h)));

  it("stores, per sealed range, the frontiers a naive tree has after each block, and survives a rollback", async () => {
    const p = producerFor(6);
    p.start({ height: -1, sapling: "000000", orchard: "000000" });
    p.onAppend(blocks.slice(0, 9));
    p.onRollback(7); // a reorg drops block 8, which comes back
    p.onAppend(blocks.slice(8, 12));
    const objects = [
      ...(await p.rangeObjects(0, blocks.slice(0, 6))),
      ...(await p.rangeObjects(1, blocks.slice(6))),
    ];
    expect(objects.map((o) => o.key)).toEqual([
      "v1/mainnet/r6/00000000.trees.bin",
      "v1/mainnet/r6/00000001.trees.bin",
    ]);
    let sapling = { parents: [] } as ReturnType<typeof naiveAppend>;
    let orchard = { parents: [] } as ReturnType<typeof naiveAppend>;
    for (const b of blocks) {
      const c = commitmentsOfCompact(b.messages.full);
      for (const cm of c.saplingCmus) sapling = naiveAppend("sapling", sapling, cm);
      for (const cm of c.orchardCmxs) orchard = naiveAppend("orchard", orchard, cm);
      const view = treeStateAt(decodeTreeStateRange(objects[Math.floor(b.height / 6)]!.bytes), b.height);
      expect(view.saplingTree).toBe(serializeFinalState(sapling));
      expect(view.orchardTree).toBe(serializeFinalState(orchard));
      expect(view.hash).toBe(chain.block(b.height).displayHash);
    }
  }, 30_000);

  it("writes nothing for a range it did not follow from its start", async () => {
    const p = producerFor(6);
    p.start({ height: 7, sapling: "000000", orchard: "000000" });
    p.onAppend(blocks.slice(8, 12));
    expect(await p.rangeObjects(1, blocks.slice(6))).toEqual([]);
  });
});

const json = (path: string) => JSON.parse(readChainFile(path).toString("utf8"));

function corpusBlock(height: number): IndexedBlock {
  const meta = corpusIndex().blocks.find((b) => b.network === "mainnet" && b.height === height)!;
  return buildIndexedBlock({
    raw: readChainHex(`blocks/mainnet/${height}.hex`),
    height,
    displayHash: meta.hash,
    prevDisplayHash: meta.prevHash,
    time: meta.time,
    txids: meta.txids,
    treeSizes: { sapling: 0, orchard: 0, ironwood: 0 },
  });
}

describe.skipIf(!hasChain)(`the producer on mainnet blocks (${chainDir})`, () => {
  it("matches zebrad's tree states at 419199–419202 from before Sapling activation", async () => {
    const p = producerFor(1000, { sapling: 419200, orchard: 1687104 });
    p.start({ height: 419198, sapling: "", orchard: "" });
    const blocks = [419199, 419200, 419201, 419202].map(corpusBlock);
    p.onAppend(blocks);
    const states = blocks.map((b) => p.tailState(b.height)!);
    for (const [i, h] of [419199, 419200, 419201].entries()) {
      const rpc = json(`rpc/zebrad-mainnet/z_gettreestate-${h}.json`).result;
      expect(states[i]!.saplingTree).toBe(rpc.sapling.commitments.finalState ?? "");
      expect(states[i]!.hash).toBe(rpc.hash);
    }
    expect(states[3]!.saplingTree).not.toBe(states[2]!.saplingTree);
  });

  it("extends zebrad's 1687105 frontier through 1687106–108 to zebra's final roots", async () => {
    const start = json("rpc/zebrad-mainnet/z_gettreestate-1687105.json").result;
    const roots = json("treestate/zebra-final-roots.json").mainnet;
    const p = producerFor(1000, { sapling: 419200, orchard: 1687104 });
    p.start({
      height: 1687105,
      sapling: start.sapling.commitments.finalState,
      orchard: start.orchard.commitments.finalState,
    });
    p.onAppend([1687106, 1687107, 1687108].map(corpusBlock));
    for (const h of [1687106, 1687107, 1687108]) {
      const view = p.tailState(h)!;
      const t = createFrontierTracker({ sapling: view.saplingTree, orchard: view.orchardTree });
      expect(toHex(t.roots().sapling!.slice().reverse())).toBe(roots.sapling[String(h)]);
      expect(toHex(t.roots().orchard!)).toBe(roots.orchard[String(h)]);
    }
  }, 30_000);
});
