import { env } from "cloudflare:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import { BlockRangeSchema, CompactBlockSchema } from "../../proto/index.ts";
import { bundleKey, decodeHead, headKey, rangeKeys } from "../../proto/range/index.ts";
import { clientsFor, collect } from "../testing/clients.ts";
import { b64, type EdgeFixture, fixture, seedBucket, testEnv } from "../testing/fixture.ts";

const f = fixture as EdgeFixture;
const bucket = (env as unknown as { BLOCKS: R2Bucket }).BLOCKS;
const range = (start: number, end: number) =>
  create(BlockRangeSchema, { start: { height: BigInt(start) }, end: { height: BigInt(end) } });
const expected = (from: number, to: number, projection: "shielded" | "nullifiers") =>
  f.seed.blocks
    .testnet!.filter((b) => b.height >= Math.min(from, to) && b.height <= Math.max(from, to))
    .sort((a, b) => (from <= to ? a.height - b.height : b.height - a.height))
    .map((b) => b64(b[projection]));

/**
 * The real binding with the keys of every `get` recorded; `swap` answers a key with another key's
 * object (damage a reader must notice).
 */
function watchedBucket(gets: string[], swap: Record<string, string> = {}): R2Bucket {
  return new Proxy(bucket, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== "get") return typeof value === "function" ? value.bind(target) : value;
      return (key: string, options?: R2GetOptions) => {
        gets.push(key);
        return target.get(swap[key] ?? key, options);
      };
    },
  });
}

describe.skipIf(fixture === null)("GetBlockRange over range bundles", () => {
  beforeAll(seedBucket);

  /** The testnet seed's head: 18 ranges of 10 blocks from 102840, bundles of 4 up to 102856. */
  async function testnetHead() {
    const head = decodeHead(new Uint8Array(await (await bucket.get(headKey("testnet")))!.arrayBuffer()));
    expect(head.bundles).toMatchObject({ ranges: 4, to: 102856 });
    expect(head.firstHeight).toBe(1028400);
    return head;
  }

  const shieldedKeys = (gets: string[]) => gets.filter((k) => k.endsWith(".shielded.bin"));
  const bundle = (b: number, p: "shielded" | "nullifiers" = "shielded") => bundleKey("testnet", 10, 4, b, p);
  const single = (index: number) => rangeKeys("testnet", 10, index).data.shielded;

  /** The edge over the watched bucket, its Cache API layer off (what it holds is not read from storage). */
  const envWith = (b: R2Bucket) => testEnv("none", { BLOCKS: b, CACHE_HOT_RANGES: "off" });

  it.each(["gRPC-web", "Connect (proto)"])(
    "reads each whole bundle with one storage read, over %s, byte-exact",
    async (name) => {
      await testnetHead();
      const gets: string[] = [];
      const e = envWith(watchedBucket(gets));
      const [, client] = clientsFor(e, "https://edge.test/testnet").find(([n]) => n === name)!;
      const { items, error } = await collect(client.getBlockRange(range(1028400, 1028579)));
      expect(error).toBeUndefined();
      expect(items.map((b) => toBinary(CompactBlockSchema, b))).toEqual(
        expected(1028400, 1028579, "shielded"),
      );
      expect(shieldedKeys(gets).sort()).toEqual(
        [bundle(25710), bundle(25711), bundle(25712), bundle(25713), single(102856), single(102857)].sort(),
      );
      // The ends come from the head's range-ends objects: no range's metadata is read.
      expect(gets.filter((k) => k.endsWith(".meta.bin"))).toEqual([]);
    },
  );

  it("reads a run of ranges inside one bundle with one ranged read, and descending streams range by range", async () => {
    await testnetHead();
    const gets: string[] = [];
    const [, client] = clientsFor(envWith(watchedBucket(gets)), "https://edge.test/testnet")[0]!;
    // 102840 (from its 6th block) … 102843, bundle 25711 whole, 102848 … 102851 (to its 6th block).
    const up = await collect(client.getBlockRange(range(1028405, 1028515)));
    expect(up.error).toBeUndefined();
    expect(up.items.map((b) => toBinary(CompactBlockSchema, b))).toEqual(
      expected(1028405, 1028515, "shielded"),
    );
    expect(shieldedKeys(gets).sort()).toEqual([bundle(25710), bundle(25711), bundle(25712)]);
    // The ranges where the run starts and ends inside: their frame offsets and hashes.
    expect(gets.filter((k) => k.endsWith(".meta.bin")).sort()).toEqual([
      rangeKeys("testnet", 10, 102840).meta,
      rangeKeys("testnet", 10, 102851).meta,
    ]);
    // Two ranges of two bundles: each read apart. Three of one: one read.
    for (const [from, to, keys] of [
      [1028435, 1028444, [single(102843), single(102844)]],
      [1028445, 1028464, [bundle(25711)]],
    ] as const) {
      gets.length = 0;
      const r = await collect(client.getBlockRange(range(from, to)));
      expect(r.items.map((b) => toBinary(CompactBlockSchema, b))).toEqual(expected(from, to, "shielded"));
      expect(shieldedKeys(gets).sort()).toEqual([...keys].sort());
    }
    gets.length = 0;
    const down = await collect(client.getBlockRange(range(1028479, 1028400)));
    expect(down.items.map((b) => toBinary(CompactBlockSchema, b))).toEqual(
      expected(1028479, 1028400, "shielded"),
    );
    expect(shieldedKeys(gets).some((k) => k.includes("/b4/"))).toBe(false);
  });

  it("leaves the newest ranges, which the Cache API holds one by one, out of bundles", async () => {
    await testnetHead();
    const gets: string[] = [];
    // 8 hot ranges: 102850 … 102857; bundle 25712 (102848 … 102851) holds two of them.
    const e = testEnv("none", { BLOCKS: watchedBucket(gets), CACHE_HOT_RANGES: "8" });
    const [, client] = clientsFor(e, "https://edge.test/testnet")[0]!;
    const { items, error } = await collect(client.getBlockRange(range(1028400, 1028579)));
    expect(error).toBeUndefined();
    expect(items.map((b) => toBinary(CompactBlockSchema, b))).toEqual(expected(1028400, 1028579, "shielded"));
    expect(shieldedKeys(gets).filter((k) => k.includes("/b4/"))).toEqual([bundle(25710), bundle(25711)]);
  });

  it("reads the nullifier projection's bundles for GetBlockRangeNullifiers", async () => {
    await testnetHead();
    const gets: string[] = [];
    const [, client] = clientsFor(envWith(watchedBucket(gets)), "https://edge.test/testnet")[0]!;
    const { items, error } = await collect(client.getBlockRangeNullifiers(range(1028440, 1028519)));
    expect(error).toBeUndefined();
    expect(items.map((b) => toBinary(CompactBlockSchema, b))).toEqual(
      expected(1028440, 1028519, "nullifiers"),
    );
    expect(gets.filter((k) => k.endsWith(".nullifiers.bin"))).toEqual([
      bundle(25711, "nullifiers"),
      bundle(25712, "nullifiers"),
    ]);
  });

  it("ends with DataLoss at a bundle whose size is not its ranges' total, after the blocks before it", async () => {
    await testnetHead();
    const gets: string[] = [];
    // Bundle 25711 answered with its first range's object: frames, but not the size its ranges say.
    const swapped = watchedBucket(gets, { [bundle(25711)]: single(102844) });
    const [, client] = clientsFor(envWith(swapped), "https://edge.test/testnet")[0]!;
    const { items, error } = await collect(client.getBlockRange(range(1028400, 1028559)));
    expect(ConnectError.from(error).code).toBe(Code.DataLoss);
    expect(ConnectError.from(error).rawMessage).toMatch(/^GetBlockRange: /);
    expect(items.map((b) => Number(b.height))).toEqual(
      expected(1028400, 1028439, "shielded").map((_, k) => 1028400 + k),
    );
  });
});
