import { describe, expect, it } from "vitest";
import { toHex } from "../../proto/bytes.ts";
import { parseFinalState, serializeFinalState } from "../../proto/treestate/legacy-tree.ts";
import { chainDir, hasChain, readChainFile, readChainHex } from "../../test/support/chain.ts";
import { parseBlock } from "../chain/index.ts";
import { createFrontierTracker } from "./tracker.ts";

const json = (path: string) => JSON.parse(readChainFile(path).toString("utf8"));
const reversed = (b: Uint8Array) => toHex(b.slice().reverse());

function commitments(height: number) {
  const block = parseBlock(readChainHex(`blocks/mainnet/${height}.hex`));
  return {
    saplingCmus: block.txs.flatMap((tx) => tx.sapling.outputs.map((o) => o.cmu)),
    orchardCmxs: block.txs.flatMap((tx) => tx.orchard?.actions.map((a) => a.cmx) ?? []),
  };
}

describe.skipIf(!hasChain)(`tree states against mainnet data (${chainDir})`, () => {
  it("reproduces zebrad's Sapling finalState after 419201 from the empty tree", () => {
    const tracker = createFrontierTracker({ sapling: "000000" });
    tracker.appendBlock(commitments(419201));
    const expected = readChainFile("treestate/mainnet/zebra-sapling-finalState-419201.txt").toString().trim();
    expect(tracker.snapshot().saplingTree).toBe(expected);
    expect(reversed(tracker.roots().sapling!)).toBe(
      json("rpc/zebrad-mainnet/z_gettreestate-419201.json").result.sapling.commitments.finalRoot,
    );
  });

  it("extends the 1687105 frontier through blocks 1687106–108 to zebra's final roots", () => {
    const start = json("rpc/zebrad-mainnet/z_gettreestate-1687105.json").result;
    const roots = json("treestate/zebra-final-roots.json").mainnet;
    const tracker = createFrontierTracker({
      sapling: start.sapling.commitments.finalState,
      orchard: start.orchard.commitments.finalState,
    });
    expect(reversed(tracker.roots().sapling!)).toBe(start.sapling.commitments.finalRoot);
    expect(toHex(tracker.roots().orchard!)).toBe(start.orchard.commitments.finalRoot);
    for (const height of [1687106, 1687107, 1687108]) {
      tracker.appendBlock(commitments(height));
      // Display order trap: Sapling roots are shown byte-reversed, Orchard roots as stored (LE).
      expect(reversed(tracker.roots().sapling!)).toBe(roots.sapling[String(height)]);
      expect(toHex(tracker.roots().orchard!)).toBe(roots.orchard[String(height)]);
    }
  });

  it("parses every zebrad finalState, re-emits it byte for byte, and reproduces its roots", () => {
    for (const height of [419201, 903000, 1687105, 2000000, 3400000]) {
      const rpc = json(`rpc/zebrad-mainnet/z_gettreestate-${height}.json`).result;
      const tracker = createFrontierTracker({
        sapling: rpc.sapling.commitments.finalState,
        orchard: rpc.orchard.commitments.finalState,
      });
      expect(tracker.snapshot().saplingTree).toBe(rpc.sapling.commitments.finalState);
      expect(reversed(tracker.roots().sapling!)).toBe(rpc.sapling.commitments.finalRoot);
      if (rpc.orchard.commitments.finalState) {
        expect(tracker.snapshot().orchardTree).toBe(rpc.orchard.commitments.finalState);
        expect(toHex(tracker.roots().orchard!)).toBe(rpc.orchard.commitments.finalRoot);
      }
    }
  });

  it("reads the zcashd-style checkpoints as the same trees zebrad reports at 1687104 and 2000000", () => {
    for (const height of [1687104, 2000000, 3400000]) {
      const checkpoint = json(`treestate/mainnet/${height}.json`);
      const rpc = json(`rpc/zebrad-mainnet/z_gettreestate-${height}.json`).result;
      const tracker = createFrontierTracker({
        sapling: checkpoint.saplingTree,
        orchard: checkpoint.orchardTree,
      });
      expect(reversed(tracker.roots().sapling!)).toBe(rpc.sapling.commitments.finalRoot);
      expect(toHex(tracker.roots().orchard!)).toBe(rpc.orchard.commitments.finalRoot);
      expect(serializeFinalState(parseFinalState(checkpoint.saplingTree))).toBe(
        rpc.sapling.commitments.finalState,
      );
    }
  });
});
