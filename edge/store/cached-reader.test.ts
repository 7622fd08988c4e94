import { env } from "cloudflare:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeFrame } from "../../proto/frame.ts";
import { BlockRangeSchema } from "../../proto/index.ts";
import type { Env } from "../env.ts";
import { inRequestScope } from "../request-scope.ts";
import { fetchWith, fixture, seedBucket, testEnv } from "../testing/fixture.ts";
import { cachedKind, createCachedReader } from "./cached-reader.ts";
import { storeCacheScope } from "./create-object-reader.ts";
import type { ObjectReader } from "./object-reader.ts";
import { createR2Reader } from "./r2-reader.ts";

const bucket = (env as unknown as { BLOCKS: R2Bucket }).BLOCKS;
const cache = (caches as unknown as { default: Cache }).default;

/** The real R2 reader, each get recorded with its range. */
function countedReader(): { reader: ObjectReader; gets: string[] } {
  const inner = createR2Reader(bucket);
  const gets: string[] = [];
  return {
    gets,
    reader: {
      head: (key) => inner.head(key),
      get(key, range) {
        gets.push(range === undefined ? key : `${key}@${range.offset}+${range.length}`);
        return inner.get(key, range);
      },
    },
  };
}

const bytesOf = async (o: { body: ReadableStream<Uint8Array> } | null) =>
  new Uint8Array(await new Response(o!.body).arrayBuffer());

describe("the Cache API layer over the store (workerd's real cache)", () => {
  it("names what it may cache: never the mutable head", () => {
    expect(cachedKind("v1/mainnet/head.json")).toBeUndefined();
    expect(cachedKind("v1/mainnet/r1000/00000663.meta.bin")).toBe("meta");
    expect(cachedKind("v1/mainnet/r1000/00000663.shielded.bin")).toBe("data");
    expect(cachedKind("v1/mainnet/r1000/00000663.trees.bin")).toBe("trees");
    expect(cachedKind("v1/mainnet/subtrees/sapling/000000-004.bin")).toBe("subtrees");
    expect(cachedKind("v1/mainnet/r1000/hash/00000000-00000063/0001.bin")).toBe("hash");
    expect(cachedKind("v1/mainnet/r1000/00000663.raw.bin")).toBe("data");
    expect(cachedKind("v1/mainnet/r1000/00000663.txs.bin")).toBe("history");
    expect(cachedKind("v1/mainnet/r1000/txid/00000000-00000063/0001.bin")).toBe("history");
    expect(cachedKind("v1/mainnet/r1000/taddr/00000000-00000063/0001.dir.bin")).toBe("history");
    // Address records are read one address's span at a time, never whole.
    expect(cachedKind("v1/mainnet/r1000/taddr/00000000-00000063/0001.rec.bin")).toBeUndefined();
  });

  it("fills a missed object whole with one storage read, then answers whole and ranged reads from the cache", async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const key = `v1/cachet${run.slice(0, 2)}/r10/00000001.meta.bin`;
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => i % 251);
    await bucket.put(key, bytes);
    const { reader, gets } = countedReader();
    const cached = createCachedReader(reader, cache, { hotFrom: () => undefined });
    const first = await cached.get(key, { offset: 10, length: 20 });
    expect(first?.size).toBe(300);
    expect(first?.range).toEqual({ offset: 10, length: 20 });
    expect(await bytesOf(first)).toEqual(bytes.subarray(10, 30));
    expect(gets).toEqual([key]);
    expect(await bytesOf(await cached.get(key))).toEqual(bytes);
    expect(await bytesOf(await cached.get(key, { offset: 299, length: 1 }))).toEqual(bytes.subarray(299));
    expect(gets).toHaveLength(1);
    expect(cached.counters.misses.meta).toBe(1);
    expect(cached.counters.hits.meta).toBe(2);
  });

  it("answers a small object's miss from the bytes it read and leaves the put to the request's waitUntil", async () => {
    const key = `v1/cachew${crypto.randomUUID().slice(0, 2)}/r10/00000002.meta.bin`;
    const bytes = Uint8Array.from({ length: 500 }, (_, i) => (i * 7) % 256);
    await bucket.put(key, bytes);
    const { reader, gets } = countedReader();
    const cached = createCachedReader(reader, cache, { hotFrom: () => undefined });
    const deferred: Promise<unknown>[] = [];
    const first = await inRequestScope({ waitUntil: (p) => deferred.push(p) }, () =>
      cached.get(key, { offset: 490, length: 100 }),
    );
    expect(first?.range).toEqual({ offset: 490, length: 10 });
    expect(await bytesOf(first)).toEqual(bytes.subarray(490));
    expect(deferred).toHaveLength(1);
    // Before the put lands (a cold GetTreeState's record read after its table): from the bytes read.
    const before = await cached.get(key, { offset: 100, length: 50 });
    expect(await bytesOf(before)).toEqual(bytes.subarray(100, 150));
    expect(gets).toEqual([key]);
    await Promise.all(deferred);
    expect(await bytesOf(await cached.get(key))).toEqual(bytes);
    expect(gets).toEqual([key]);
    expect(cached.counters.hits.meta).toBe(2);
  });

  it("keeps each store's objects apart: the same key in another deployment's store is never answered from this one's", async () => {
    // Two stores on one zone (two buckets, or two prefixes of one): the key names different bytes.
    const key = `v1/scope${crypto.randomUUID().slice(0, 4)}/r10/00000003.meta.bin`;
    const stores = ["a", "b"].map((name, i) => {
      const bytes = new Uint8Array(40).fill(i + 1);
      const inner = createR2Reader(bucket, `store-${name}`);
      const gets: string[] = [];
      const reader: ObjectReader = {
        head: (k) => inner.head(k),
        get(k, range) {
          gets.push(k);
          return inner.get(k, range);
        },
      };
      return {
        bytes,
        gets,
        reader,
        scope: storeCacheScope({ BLOCKS: bucket, STORE_PREFIX: `store-${name}` } as Env),
      };
    });
    await Promise.all(stores.map((s, i) => bucket.put(`store-${["a", "b"][i]}/${key}`, s.bytes)));
    expect(stores[0]!.scope).not.toBe(stores[1]!.scope);
    for (const s of stores) {
      const cached = createCachedReader(s.reader, cache, { hotFrom: () => undefined, scope: s.scope });
      const deferred: Promise<unknown>[] = [];
      expect(
        await inRequestScope({ waitUntil: (p) => deferred.push(p) }, async () =>
          bytesOf(await cached.get(key)),
        ),
      ).toEqual(s.bytes);
      await Promise.all(deferred); // its put done: the next store must not find it
      expect(s.gets).toEqual([key]);
      expect(await bytesOf(await cached.get(key))).toEqual(s.bytes); // this store's own entry
      expect(s.gets).toHaveLength(1);
    }
  });

  it("names a store by CACHE_NAMESPACE, else by where it reads", () => {
    const scope = (e: Partial<Env>) => storeCacheScope(e as Env);
    const r2 = { BLOCKS: bucket };
    expect(scope({ ...r2, STORE_PREFIX: "prod" })).not.toBe(scope({ ...r2, STORE_PREFIX: "staging" }));
    expect(scope({ ...r2, STORE_PREFIX: "/prod/" })).toBe(scope({ ...r2, STORE_PREFIX: "prod" }));
    // An R2 binding does not say which bucket: CACHE_NAMESPACE (Terraform: the bucket's name) does.
    expect(scope({ ...r2, CACHE_NAMESPACE: "blocks-a" })).not.toBe(
      scope({ ...r2, CACHE_NAMESPACE: "blocks-b" }),
    );
    const s3 = { S3_ENDPOINT: "https://s3.example", S3_ACCESS_KEY_ID: "k", S3_SECRET_ACCESS_KEY: "s" };
    expect(scope({ ...s3, S3_BUCKET: "a" })).not.toBe(scope({ ...s3, S3_BUCKET: "b" }));
    expect(scope({ STORE_PUBLIC_URL: "https://cdn-a.example" })).not.toBe(
      scope({ STORE_PUBLIC_URL: "https://cdn-b.example" }),
    );
  });

  it("caches range data objects only from the policy's hot range on; the head never", async () => {
    const net = `hot${crypto.randomUUID().slice(0, 6)}`;
    const cold = `v1/${net}/r10/00000001.full.bin`;
    const hot = `v1/${net}/r10/00000005.full.bin`;
    const head = `v1/${net}/head.json`;
    for (const k of [cold, hot, head]) await bucket.put(k, new Uint8Array(64).fill(7));
    const { reader, gets } = countedReader();
    const cached = createCachedReader(reader, cache, {
      hotFrom: (n, size) => (n === net && size === 10 ? 5 : undefined),
    });
    for (let i = 0; i < 2; i++) {
      await bytesOf(await cached.get(cold, { offset: 0, length: 8 }));
      await bytesOf(await cached.get(hot, { offset: 0, length: 8 }));
      await bytesOf(await cached.get(head));
    }
    expect(gets).toEqual([`${cold}@0+8`, hot, head, `${cold}@0+8`, head]);
    expect(cached.counters.hits.data).toBe(1);
  });
});

describe.skipIf(fixture === null)("the Cache API layer behind the RPCs", () => {
  beforeAll(seedBucket);

  it("serves a repeated block range's metadata and hot data from the cache, counted on /stats", async () => {
    const e = testEnv("none", { CACHE_HOT_RANGES: "1000000" });
    const f = fetchWith(e);
    const body = encodeFrame(
      toBinary(
        BlockRangeSchema,
        create(BlockRangeSchema, { start: { height: 663150n }, end: { height: 663160n } }),
      ),
    );
    const call = () =>
      f("https://edge.test/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetBlockRange", {
        method: "POST",
        headers: { "content-type": "application/grpc-web+proto" },
        body: body as Uint8Array<ArrayBuffer>,
      }).then((r) => r.arrayBuffer());
    const first = await call();
    const stats = async () =>
      (await (await f("https://edge.test/stats")).json()) as {
        cacheApi: { hits: Record<string, number>; misses: Record<string, number> };
      };
    const before = await stats();
    expect(await call()).toEqual(first);
    const after = await stats();
    // The metadata is in the isolate after the first call; the data object is read again, now from the cache.
    expect(after.cacheApi.hits.data).toBeGreaterThan(before.cacheApi.hits.data);
    expect(after.cacheApi.misses.data).toBe(before.cacheApi.misses.data);
  });
});
