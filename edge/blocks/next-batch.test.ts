import { create } from "@bufbuild/protobuf";
import { beforeAll, describe, expect, it } from "vitest";
import { BlockRangeSchema } from "../../proto/index.ts";
import {
  decodeTreeStateRange,
  encodeTreeStateRange,
  type TreeStateBlock,
  treeStateAt,
  treeStateKey,
} from "../../proto/treestate/index.ts";
import { servicesFor } from "../services.ts";
import { cacheUrlOf } from "../store/cached-reader.ts";
import { clientsFor, collect } from "../testing/clients.ts";
import { type EdgeFixture, fixture, seedBucket, testEnv } from "../testing/fixture.ts";
import { nextBatchEndRange, TREE_STATE_PROBES } from "./next-batch.ts";

describe("nextBatchEndRange", () => {
  const extent = { rangeSize: 1000, firstHeight: 0, tipHeight: 3_500_999 };

  it("names the range a sequential download's next batch ends inside", () => {
    // seed 000's download from Sapling activation in 10,000-block batches
    expect(nextBatchEndRange(419_200, 429_199, extent)).toBe(439);
    // the mobile SDKs' 100-block batches, the next one crossing into a new range
    expect(nextBatchEndRange(419_900, 419_999, extent)).toBe(420);
    expect(nextBatchEndRange(419_850, 419_949, extent)).toBe(420);
  });

  it("names nothing when the next batch needs no metadata this request did not read", () => {
    expect(nextBatchEndRange(419_200, 419_299, extent)).toBeUndefined(); // ends in this request's last range
    expect(nextBatchEndRange(420_000, 429_999, extent)).toBeUndefined(); // ends on a range boundary: read whole
    expect(nextBatchEndRange(500_000, 500_000, extent)).toBeUndefined(); // one block: not a batch
    expect(nextBatchEndRange(429_199, 419_200, extent)).toBeUndefined(); // descending
    expect(nextBatchEndRange(3_490_000, 3_499_999, extent)).toBeUndefined(); // past the sealed tip
  });
});

const f = fixture as EdgeFixture;

describe.skipIf(fixture === null)("a batch of a sequential download", () => {
  beforeAll(seedBucket);
  const batch = (start: number, end: number) =>
    create(BlockRangeSchema, { start: { height: BigInt(start) }, end: { height: BigInt(end) } });
  // testnet: ranges of 10 blocks sealed from 1,028,400 (test/support/seed-ranges.ts)
  const cachedIndexes = async (env: ReturnType<typeof testEnv>) =>
    (await servicesFor(env).ranges("testnet", 10).cached()).map((m) => m.index);

  it("reads the next batch's end-range metadata while a batch that continues the last one streams", async () => {
    expect(f.seed.tips.testnet).toBeGreaterThan(1_028_430);
    const env = testEnv("none");
    const [, client] = clientsFor(env, "https://edge.test/testnet")[0]!;
    const settle = async (index: number) => {
      for (let i = 0; i < 50 && !(await cachedIndexes(env)).includes(index); i++)
        await new Promise((r) => setTimeout(r, 20));
      return cachedIndexes(env);
    };
    // A first batch (continues nothing): its next would end in range 102,841, not read ahead.
    const first = await collect(client.getBlockRange(batch(1_028_400, 1_028_406)));
    expect(first.error).toBeUndefined();
    expect(await settle(102_841)).not.toContain(102_841);
    // The next batch, 1,028,407 … 1,028,413 (its own reads: ranges 102,840 and 102,841): the one
    // after it, 1,028,414 … 1,028,420, ends inside range 102,842.
    const second = await collect(client.getBlockRange(batch(1_028_407, 1_028_413)));
    expect(second.error).toBeUndefined();
    expect(second.items.map((b) => Number(b.height))).toEqual([
      1_028_407, 1_028_408, 1_028_409, 1_028_410, 1_028_411, 1_028_412, 1_028_413,
    ]);
    const indexes = await settle(102_842);
    expect(indexes).toContain(102_842);
    expect(indexes).not.toContain(102_843);
  });

  it("warms the tree state the wallet asks after a batch: its GetTreeState reads no storage", async () => {
    // testnet range 102,840's tree-state object (the seed has none: a real encoder's output here).
    const blocks: TreeStateBlock[] = Array.from({ length: 10 }, (_, i) => ({
      height: 1_028_400 + i,
      wireHash: Uint8Array.from({ length: 32 }, (_, k) => (i * 31 + k) & 0xff),
      time: 1_700_000_000 + i,
      sapling: { left: new Uint8Array(32).fill(i + 1), parents: [new Uint8Array(32).fill(7)] },
    }));
    const bytes = encodeTreeStateRange({ network: "test", blocks });
    const key = treeStateKey("testnet", 10, 102_840);
    const env = testEnv("none");
    await env.BLOCKS!.put(key, bytes);
    const s = servicesFor(env);
    const [, client] = clientsFor(env, "https://edge.test/testnet")[0]!;
    for (const [a, b] of [
      [1_028_400, 1_028_406],
      [1_028_407, 1_028_413], // continues the first: the wallet's next call is GetTreeState(1,028,406)
    ] as const)
      expect((await collect(client.getBlockRange(batch(a, b)))).error).toBeUndefined();
    const cache = (caches as unknown as { default: Cache }).default;
    for (let i = 0; i < 50 && (await cache.match(cacheUrlOf(key, s.cacheScope))) === undefined; i++)
      await new Promise((r) => setTimeout(r, 20));
    const misses = s.cacheCounters!.misses.trees;
    expect(misses).toBe(1); // the warm read it, whole, once
    const got = await client.getTreeState({ height: 1_028_406n });
    expect(got.saplingTree).toBe(treeStateAt(decodeTreeStateRange(bytes), 1_028_406).saplingTree);
    expect(s.cacheCounters!.misses.trees).toBe(misses); // table in the isolate, record from the cache
    expect(s.cacheCounters!.hits.trees).toBeGreaterThan(0);
  });

  it("warms tree states only for a sequence of batches that asks for them: a bulk download stops after the probes", async () => {
    // Tree-state objects for testnet ranges 102,845 … 102,857 (a real encoder's output).
    const put = async (env: ReturnType<typeof testEnv>, index: number) => {
      const blocks: TreeStateBlock[] = Array.from({ length: 10 }, (_, i) => ({
        height: index * 10 + i,
        wireHash: Uint8Array.from({ length: 32 }, (_, k) => (index + i * 31 + k) & 0xff),
        time: 1_700_000_000 + i,
        sapling: { left: new Uint8Array(32).fill(i + 1), parents: [new Uint8Array(32).fill(7)] },
      }));
      await env.BLOCKS!.put(
        treeStateKey("testnet", 10, index),
        encodeTreeStateRange({ network: "test", blocks }),
      );
    };
    const env = testEnv("none");
    for (let index = 102_845; index <= 102_857; index++) await put(env, index);
    const s = servicesFor(env);
    const [, client] = clientsFor(env, "https://edge.test/testnet")[0]!;
    const cache = (caches as unknown as { default: Cache }).default;
    const cached = (index: number) =>
      cache.match(cacheUrlOf(treeStateKey("testnet", 10, index), s.cacheScope));
    const settle = async () => {
      for (let last = -1, i = 0; i < 20; i++) {
        await new Promise((r) => setTimeout(r, 25));
        if (s.cacheCounters!.misses.trees === last) return;
        last = s.cacheCounters!.misses.trees;
      }
    };
    const misses = () => s.cacheCounters!.misses.trees;

    // A download that never asks: batches of one range each from 1,028,450 (ranges 102,845 …
    // 102,851). The 2nd and 3rd batches warm 102,845's and 102,846's tree states; no more.
    for (let k = 0; k < 7; k++) {
      const start = 1_028_450 + 10 * k;
      expect((await collect(client.getBlockRange(batch(start, start + 9)))).error).toBeUndefined();
      await settle();
    }
    expect(misses()).toBe(TREE_STATE_PROBES);
    for (const index of [102_845, 102_846]) expect(await cached(index)).toBeDefined();
    for (const index of [102_847, 102_848, 102_849, 102_850]) expect(await cached(index)).toBeUndefined();

    // A wallet: each batch then GetTreeState(start − 1), from 1,028,530 (ranges 102,853 …
    // 102,857; not the download's sequence). The first call reads its range's object itself; every
    // batch after it warms the next one, past the probes, and the calls read nothing.
    const before = misses();
    for (let k = 0; k < 5; k++) {
      const start = 1_028_530 + 10 * k;
      expect((await collect(client.getBlockRange(batch(start, start + 9)))).error).toBeUndefined();
      await settle();
      const warmed = misses();
      const got = await client.getTreeState({ height: BigInt(start - 1) });
      expect(Number(got.height)).toBe(start - 1);
      expect(misses(), `batch ${k}`).toBe(k === 0 ? warmed + 1 : warmed);
    }
    expect(misses() - before).toBe(5);

    // The download's sequence again (1,028,480 continues its batch ending 1,028,479), now asking:
    // that batch warms nothing, its call reads; the next batch warms and its call reads nothing.
    const resumed = misses();
    expect((await collect(client.getBlockRange(batch(1_028_480, 1_028_489)))).error).toBeUndefined();
    await settle();
    expect(misses()).toBe(resumed);
    await client.getTreeState({ height: 1_028_479n });
    expect(misses()).toBe(resumed + 1);
    expect((await collect(client.getBlockRange(batch(1_028_490, 1_028_499)))).error).toBeUndefined();
    await settle();
    expect(misses()).toBe(resumed + 2);
    await client.getTreeState({ height: 1_028_489n });
    expect(misses()).toBe(resumed + 2);
  });

  it("reads nothing ahead for a descending range", async () => {
    const env = testEnv("none");
    const [, client] = clientsFor(env, "https://edge.test/testnet")[0]!;
    for (const [a, b] of [
      [1_028_406, 1_028_400],
      [1_028_413, 1_028_407],
    ] as const)
      expect((await collect(client.getBlockRange(batch(a, b)))).error).toBeUndefined();
    await new Promise((r) => setTimeout(r, 200));
    expect(await cachedIndexes(env)).not.toContain(102_842);
  });
});
