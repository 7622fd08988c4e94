import { afterEach, describe, expect, it } from "vitest";
import { LightedgeError } from "../../proto/errors.ts";
import { chainDir, hasChain } from "../../test/support/chain.ts";
import { createDevNode, type DevNode } from "../devnode/index.ts";
import { createNodeClient } from "../node/index.ts";
import type { ChainSource, RawBlockRun } from "../node/ports.ts";
import { buildRawRun } from "./build-block.ts";
import { fetchBlocks } from "./fetch-pipeline.ts";

/**
 * The indexer fetches blocks raw by height with one verbose call per run (`ChainSource.rawBlocks`)
 * and derives the other blocks' tree sizes: they must be exactly what the node says of each block.
 */

const nodes: DevNode[] = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.close();
});

async function client(o: Parameters<typeof createDevNode>[0]): Promise<ChainSource> {
  const dev = await createDevNode(o);
  await dev.ready;
  nodes.push(dev);
  return createNodeClient({ url: dev.url, network: o.network });
}

async function expectSizesAsTheNodeSays(chain: ChainSource, from: number, to: number): Promise<void> {
  const built = buildRawRun(await chain.rawBlocks(from, to));
  const told = await chain.blocks(from, to);
  expect(built.blocks.map((b) => [b.height, b.treeSizes])).toEqual(told.map((b) => [b.height, b.treeSizes]));
  expect(built.blocks.map((b) => Buffer.from(b.wireHash).reverse().toString("hex"))).toEqual(
    told.map((b) => b.displayHash),
  );
}

function kindOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(LightedgeError);
    return (err as LightedgeError).kind;
  }
  return undefined;
}

describe("raw runs by height", () => {
  it.skipIf(!hasChain)(
    "derive every real mainnet block's tree sizes from the last one's (663150–663250)",
    async () => {
      const chain = await client({ corpus: { dir: chainDir, from: 663150, to: 663250 }, network: "mainnet" });
      await expectSizesAsTheNodeSays(chain, 663150, 663250);
    },
  );

  it("derive Sapling, Orchard and Ironwood sizes on a synthetic chain with every pool", async () => {
    const chain = await client({ synthetic: { blocks: 420, seed: "raw-run" }, network: "regtest" });
    await expectSizesAsTheNodeSays(chain, 0, 419);
    const last = (await chain.blocks(419, 419))[0]!;
    expect(last.treeSizes.sapling * last.treeSizes.orchard * last.treeSizes.ironwood).toBeGreaterThan(0);
  });

  it("call a run that is not one chain ending in the block the node described the chain moving (unavailable)", async () => {
    const chain = await client({ synthetic: { blocks: 120, seed: "raw-run" }, network: "regtest" });
    const other = await client({ synthetic: { blocks: 120, seed: "raw-run-fork" }, network: "regtest" });
    const run = await chain.rawBlocks(100, 119);
    expect(kindOf(() => buildRawRun(run))).toBeUndefined();
    const otherLast: RawBlockRun = { ...run, last: { ...run.last, displayHash: "00".repeat(32) } };
    expect(kindOf(() => buildRawRun(otherLast))).toBe("unavailable");
    // Block 110 of another chain: the right height, but block 111 does not extend it.
    const forked = run.raws.slice();
    forked[10] = (await other.rawBlocks(110, 110)).raws[0]!;
    expect(kindOf(() => buildRawRun({ ...run, raws: forked }))).toBe("unavailable");
    // Blocks out of order: their coinbase heights are not the heights asked for.
    const swapped = run.raws.slice();
    [swapped[4], swapped[5]] = [swapped[5]!, swapped[4]!];
    expect(kindOf(() => buildRawRun({ ...run, raws: swapped }))).toBe("malformed");
  });

  it("refuse tree sizes the blocks' commitments outnumber (malformed)", async () => {
    const chain = await client({ synthetic: { blocks: 420, seed: "raw-run" }, network: "regtest" });
    const run = await chain.rawBlocks(400, 419);
    const tooSmall: RawBlockRun = {
      ...run,
      last: { ...run.last, treeSizes: { sapling: 0, orchard: 0, ironwood: 0 } },
    };
    expect(kindOf(() => buildRawRun(tooSmall))).toBe("malformed");
  });

  it("must join the node's sizes at every chunk boundary: a count that disagrees is malformed, never stored", async () => {
    const chain = await client({ synthetic: { blocks: 420, seed: "raw-run" }, network: "regtest" });
    // The node's word on block 359 is one Sapling leaf more than the blocks before it add up to.
    const skewed: ChainSource = {
      ...chain,
      rawBlocks: async (from, to) => {
        const run = await chain.rawBlocks(from, to);
        if (to !== 359) return run;
        const s = run.last.treeSizes;
        return { ...run, last: { ...run.last, treeSizes: { ...s, sapling: s.sapling + 1 } } };
      },
    };
    const heights: number[] = [];
    const consume = async () => {
      for await (const chunk of fetchBlocks(skewed, 300, 419, { concurrency: 4, chunkSize: 20 }))
        heights.push(...chunk.map((b) => b.height));
    };
    await expect(consume()).rejects.toMatchObject({ kind: "malformed", message: /do not join/ });
    // The chunk before the skewed one went out; the skewed one never did.
    expect(heights.at(-1)).toBeLessThan(340);
    const good: number[] = [];
    for await (const chunk of fetchBlocks(chain, 300, 419, { concurrency: 4, chunkSize: 20 }))
      good.push(...chunk.map((b) => b.height));
    expect(good).toEqual(Array.from({ length: 120 }, (_, i) => 300 + i));
  });

  it("cut chunks to the byte budget: fewer blocks per call and fewer calls in flight, the same blocks in order", async () => {
    const chain = await client({ synthetic: { blocks: 420, seed: "raw-run" }, network: "regtest" });
    const calls: { blocks: number; bytes: number }[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const counted: ChainSource = {
      ...chain,
      rawBlocks: async (from, to) => {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        const run = await chain.rawBlocks(from, to).finally(() => inFlight--);
        calls.push({ blocks: to - from + 1, bytes: run.raws.reduce((n, r) => n + r.length, 0) });
        return run;
      },
    };
    const heights = async (source: ChainSource, budgetBytes?: number) => {
      const out: string[] = [];
      for await (const chunk of fetchBlocks(source, 0, 419, { concurrency: 8, chunkSize: 50, budgetBytes }))
        out.push(...chunk.map((b) => `${b.height}:${Buffer.from(b.wireHash).toString("hex")}`));
      return out;
    };
    const unbudgeted = await heights(chain);
    expect(unbudgeted.length).toBe(420);
    // A budget of about ten of these blocks: chunks of two or three blocks after the first.
    const perBlock = (await chain.rawBlocks(0, 419)).raws.reduce((n, r) => n + r.length, 0) / 420;
    const budget = Math.round(10 * perBlock);
    expect(await heights(counted, budget)).toEqual(unbudgeted);
    expect(calls[0]!.blocks).toBe(50); // nothing known yet: the first goes out alone, whole
    expect(Math.max(...calls.slice(1).map((c) => c.blocks))).toBeLessThan(50);
    expect(maxInFlight).toBeLessThan(8);
  });
});
