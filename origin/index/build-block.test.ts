import { describe, expect, it } from "vitest";
import { LightedgeError } from "../../proto/errors.ts";
import { corpusIndex, hasChain, readChainHex } from "../../test/support/chain.ts";
import type { NodeBlock } from "../node/ports.ts";
import { buildIndexedBlock } from "./build-block.ts";

function nodeBlock(overrides: Partial<NodeBlock> = {}): NodeBlock {
  const b = corpusIndex().blocks.find((x) => x.network === "mainnet" && x.height === 2222000)!;
  return {
    raw: readChainHex(b.file),
    height: b.height,
    displayHash: b.hash,
    prevDisplayHash: b.prevHash,
    treeSizes: { sapling: 72_999_499, orchard: 48_658_043, ironwood: 0 },
    time: b.time,
    txids: b.txids,
    ...overrides,
  };
}

describe.skipIf(!hasChain)("building an indexed block from a node answer", () => {
  it("keeps the height, hash and prevHash the raw bytes carry", () => {
    const built = buildIndexedBlock(nodeBlock());
    expect(built.height).toBe(2222000);
    expect(Buffer.from(built.wireHash).reverse().toString("hex")).toBe(nodeBlock().displayHash);
    expect(Buffer.from(built.wirePrevHash).reverse().toString("hex")).toBe(nodeBlock().prevDisplayHash);
  });

  it("refuses bytes that do not hash to the hash they were fetched by", () => {
    const wrong = nodeBlock({ displayHash: "00".repeat(32) });
    expect(() => buildIndexedBlock(wrong)).toThrow(LightedgeError);
  });

  it("refuses a block whose coinbase height is not the height the node gave", () => {
    let err: unknown;
    try {
      buildIndexedBlock(nodeBlock({ height: 2222001 }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LightedgeError);
    expect((err as LightedgeError).kind).toBe("malformed");
    expect((err as LightedgeError).message).toContain("coinbase says height 2222000");
  });
});
