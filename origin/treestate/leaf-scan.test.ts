import { describe, expect, it } from "vitest";
import { createDevChain } from "../devnode/chain.ts";
import { buildIndexedBlock } from "../index/build-block.ts";
import { scanLeaves, unpackLeaves } from "./leaf-scan.ts";
import { commitmentsOfCompact } from "./leaves.ts";

describe("scanning a block's note commitments out of its full CompactBlock", () => {
  const chain = createDevChain({ network: "regtest", seed: "leaf-scan", blocks: 6 });
  while (!chain.advance(50));
  const blocks = Array.from({ length: 6 }, (_, h) => buildIndexedBlock(chain.block(h)));

  it("finds the same cmu and cmx (Orchard and Ironwood), in the same order, as a full protobuf decode", () => {
    let leaves = 0;
    let ironwood = 0;
    for (const b of blocks) {
      const got = unpackLeaves(scanLeaves(b.messages.full));
      const want = commitmentsOfCompact(b.messages.full);
      expect(got.saplingCmus.map((c) => Buffer.from(c).toString("hex"))).toEqual(
        want.saplingCmus.map((c) => Buffer.from(c).toString("hex")),
      );
      expect(got.orchardCmxs.map((c) => Buffer.from(c).toString("hex"))).toEqual(
        want.orchardCmxs.map((c) => Buffer.from(c).toString("hex")),
      );
      expect(got.ironwoodCmxs.map((c) => Buffer.from(c).toString("hex"))).toEqual(
        (want.ironwoodCmxs ?? []).map((c) => Buffer.from(c).toString("hex")),
      );
      leaves += want.saplingCmus.length + want.orchardCmxs.length;
      ironwood += want.ironwoodCmxs?.length ?? 0;
    }
    expect(leaves).toBeGreaterThan(0);
    expect(ironwood).toBeGreaterThan(0);
  });

  it("rejects truncated bytes as malformed instead of skipping leaves", () => {
    const full = blocks.find((b) => commitmentsOfCompact(b.messages.full).saplingCmus.length > 0)!.messages
      .full;
    expect(() => scanLeaves(full.subarray(0, full.length - 7))).toThrow(/overruns|truncated/);
  });
});
