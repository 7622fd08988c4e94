import { describe, expect, it } from "vitest";
import { decodeTreeStateRange, treeStateAt } from "../../proto/treestate/index.ts";
import { createDevChain } from "../devnode/chain.ts";
import { buildIndexedBlock } from "../index/build-block.ts";
import { createTreeStateProducer } from "./producer.ts";
import { createTreeStateThread } from "./producer-thread.ts";
import { createSubtreeLedger, type StoredObjectWrite } from "./subtree-ledger.ts";

const config = {
  network: "regtest",
  chainName: "regtest",
  rangeSize: 6,
  activations: { sapling: 0, orchard: 0 },
};

describe("the tree-state worker thread", () => {
  const chain = createDevChain({ network: "regtest", seed: "producer-thread", blocks: 18 });
  while (!chain.advance(50));
  const blocks = Array.from({ length: 18 }, (_, h) => buildIndexedBlock(chain.block(h)));

  it("stores for each sealed range (sealed out of order, after a rollback) what the inline producer builds", async () => {
    const written = new Map<string, Uint8Array>();
    const thread = createTreeStateThread({
      config,
      write: async (objects: StoredObjectWrite[]) => {
        for (const o of objects) written.set(o.key, o.bytes);
      },
    });
    try {
      thread.start({ height: -1, sapling: "000000", orchard: "000000" }, []);
      thread.append(blocks.slice(0, 10));
      thread.rollback(7); // blocks 8 and 9 come back
      thread.append(blocks.slice(8));
      thread.seal(1, blocks.slice(6, 12));
      thread.seal(0, blocks.slice(0, 6));
      await thread.settled(17);
      expect(thread.processed()).toBe(17);
      expect(thread.storedThrough()).toBe(11);
      // Range 2 is not sealed: its heights are answered from the worker's snapshots.
      const tail = await thread.tailView(15);
      const inline = createTreeStateProducer({
        ...config,
        ledger: createSubtreeLedger(),
      });
      inline.start({ height: -1, sapling: "000000", orchard: "000000" });
      inline.onAppend(blocks);
      expect(tail).toEqual(inline.tailState(15));
      expect(tail?.ironwoodTree).toBe(inline.tailState(15)?.ironwoodTree);
      const expected = [
        ...(await inline.rangeObjects(0, blocks.slice(0, 6))),
        ...(await inline.rangeObjects(1, blocks.slice(6, 12))),
      ];
      expect([...written.keys()].sort()).toEqual(expected.map((o) => o.key).sort());
      for (const o of expected) {
        expect(Buffer.from(written.get(o.key)!).equals(Buffer.from(o.bytes))).toBe(true);
      }
      expect(treeStateAt(decodeTreeStateRange(written.get(expected[1]!.key)!), 8).height).toBe(8);
      // Stored heights have left the worker.
      expect(await thread.tailView(3)).toBeUndefined();
    } finally {
      await thread.close();
    }
  }, 30_000);
});
