import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CompactBlockSchema, PoolType } from "../../proto/index.ts";
import { filterCompactBlock, nullifiersOnly, poolSetFromRequest } from "../../proto/pools.ts";
import { codeOf } from "../../test/support/connect-code.ts";
import { parseBlock, projectBlock } from "../chain/index.ts";
import { collect } from "../index/testing.ts";
import { clientFor, PROTOCOLS, type Stack, startStack } from "./testing.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ blocks: 60, seed: "blocks-test" });
});
afterAll(() => stack?.close());

const expected = (height: number) => {
  const dev = stack.dev.chain.block(height);
  return projectBlock(parseBlock(dev.raw, { strictV6: false }), dev.treeSizes);
};
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe.each(PROTOCOLS)("block RPCs over %s", (protocol) => {
  const client = () => clientFor(protocol, stack.server.url);

  it("answers GetLatestBlock with the served tip and its little-endian hash", async () => {
    const tip = stack.dev.chain.tip();
    const latest = await client().getLatestBlock({});
    expect(latest.height).toBe(BigInt(tip));
    expect(hex(latest.hash)).toBe(Buffer.from(stack.dev.chain.hashAt(tip), "hex").reverse().toString("hex"));
  });

  it("serves GetBlock byte-exact by height from sealed ranges and from the tail, and by hash in either byte order", async () => {
    const tip = stack.dev.chain.tip();
    for (const height of [1, 15, tip - 2, tip]) {
      const block = await client().getBlock({ height: BigInt(height) });
      expect(hex(toBinary(CompactBlockSchema, block))).toBe(hex(expected(height).full));
      const byHash = await client().getBlock({ hash: block.hash });
      expect(byHash.height).toBe(BigInt(height));
      // Display order too, as the edge answers it (edge/blocks/find-hash.ts).
      const byDisplayHash = await client().getBlock({ hash: Uint8Array.from(block.hash).reverse() });
      expect(byDisplayHash.height).toBe(BigInt(height));
    }
    // GetBlock's block with every tx kept, pruned to nullifiers (lightwalletd GetBlockNullifiers).
    const nullifiers = await client().getBlockNullifiers({ height: 20n });
    const pruned = nullifiersOnly(fromBinary(CompactBlockSchema, expected(20).full));
    expect(hex(toBinary(CompactBlockSchema, nullifiers))).toBe(hex(toBinary(CompactBlockSchema, pruned)));
  });

  it("streams GetBlockRange ascending and descending across the sealed/tail seam", async () => {
    const tip = stack.dev.chain.tip();
    const from = tip - 25;
    const up = await collect(
      client().getBlockRange({ start: { height: BigInt(from) }, end: { height: BigInt(tip) } }),
    );
    expect(up.map((b) => Number(b.height))).toEqual(Array.from({ length: 26 }, (_, i) => from + i));
    for (const [i, b] of up.entries())
      expect(hex(toBinary(CompactBlockSchema, b))).toBe(hex(expected(from + i).shielded));
    const down = await collect(
      client().getBlockRange({ start: { height: BigInt(tip) }, end: { height: BigInt(from) } }),
    );
    expect(down.map((b) => Number(b.height))).toEqual(up.map((b) => Number(b.height)).reverse());
    const nf = await collect(
      client().getBlockRangeNullifiers({ start: { height: 30n }, end: { height: 32n } }),
    );
    expect(nf.map((b) => hex(toBinary(CompactBlockSchema, b)))).toEqual(
      [30, 31, 32].map((h) => hex(expected(h).nullifiers)),
    );
  });

  it("filters GetBlockRange to the requested pools", async () => {
    const poolTypes = [PoolType.TRANSPARENT];
    const blocks = await collect(
      client().getBlockRange({ start: { height: 40n }, end: { height: 42n }, poolTypes }),
    );
    const want = [40, 41, 42].map((h) =>
      hex(toBinary(CompactBlockSchema, filterCompactBlock(fromFull(h), poolSetFromRequest(poolTypes)))),
    );
    expect(blocks.map((b) => hex(toBinary(CompactBlockSchema, b)))).toEqual(want);
    expect(blocks.some((b) => b.vtx.some((t) => t.vout.length > 0))).toBe(true);
    expect(blocks.every((b) => b.vtx.every((t) => t.outputs.length === 0 && t.actions.length === 0))).toBe(
      true,
    );
  });

  it("answers OutOfRange above the tip, InvalidArgument for bad requests, NotFound for unknown hashes", async () => {
    const above = BigInt(stack.dev.chain.tip() + 1);
    expect(await codeOf(client().getBlock({ height: above }))).toBe(Code.OutOfRange);
    expect(
      await codeOf(collect(client().getBlockRange({ start: { height: 1n }, end: { height: above } }))),
    ).toBe(Code.OutOfRange);
    expect(await codeOf(collect(client().getBlockRange({ start: { height: 1n } })))).toBe(
      Code.InvalidArgument,
    );
    const invalidPool = {
      start: { height: 1n },
      end: { height: 2n },
      poolTypes: [PoolType.POOL_TYPE_INVALID],
    };
    expect(await codeOf(collect(client().getBlockRange(invalidPool)))).toBe(Code.InvalidArgument);
    expect(await codeOf(client().getBlock({ hash: new Uint8Array(32).fill(7) }))).toBe(Code.NotFound);
    expect(await codeOf(client().getBlock({ hash: new Uint8Array(31) }))).toBe(Code.InvalidArgument);
  });
});

function fromFull(height: number) {
  return fromBinary(CompactBlockSchema, expected(height).full);
}
