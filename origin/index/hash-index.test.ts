import { create, fromBinary } from "@bufbuild/protobuf";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { wireHashOf } from "../../proto/bytes.ts";
import { BlockIDSchema, CompactBlockSchema } from "../../proto/index.ts";
import {
  decodeHead,
  encodeHead,
  HASH_INDEX_VERSION,
  headKey,
  lookupSealedHash,
  type Span,
} from "../../proto/range/index.ts";
import { type MotoServer, startMoto } from "../../test/support/moto.ts";
import { testIndexer } from "../../test/support/test-indexer.ts";
import { createDevNode, type DevNode } from "../devnode/index.ts";
import { blockFrame } from "../serve/blocks.ts";
import { frameMessage } from "../serve/stored-message.ts";
import { type BlobStore, createDirectoryStore, createS3Store } from "../store/index.ts";
import { auditMetadata, auditStore } from "./store-audit.ts";
import { tempDir } from "./testing.ts";

const RANGE = 10;
const EPOCH = 4;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function devNode(blocks: number): Promise<DevNode> {
  const dev = await createDevNode({ synthetic: { blocks, seed: "hash-index" }, network: "regtest" });
  await dev.ready;
  cleanups.push(() => dev.close());
  return dev;
}

/** Appends blocks at the dev node and hashes them, so its served tip moves at once (control.ts). */
function mine(dev: DevNode, blocks: number): void {
  dev.chain.mine(blocks);
  dev.chain.hashAt(dev.chain.tip());
}

function dir(prefix: string): string {
  const d = tempDir(prefix);
  cleanups.push(() => d.remove());
  return d.path;
}

/** Syncs `blocks` blocks into `store` and returns the sealed tip. */
async function seal(dev: DevNode, store: BlobStore): Promise<number> {
  const t = testIndexer(dev.url, { store, dataDir: dir("data"), hashIndexEpochRanges: EPOCH });
  await t.indexer.start();
  await t.indexer.synced();
  const tip = t.indexer.view.sealedTip();
  await t.stop();
  return tip;
}

/** Every sealed block's hash gives its height through the store's index alone; random hashes give none. */
async function expectIndexAnswers(dev: DevNode, store: BlobStore, sealedTip: number): Promise<void> {
  const head = decodeHead((await store.get(headKey("regtest")))!);
  expect(head.hashIndex).toEqual({ version: HASH_INDEX_VERSION, epochRanges: EPOCH, rangeEnds: 1 });
  const reads: string[] = [];
  const source = {
    read: (key: string, span?: Span) => {
      reads.push(key);
      return store.get(key, span);
    },
  };
  for (let height = 0; height <= sealedTip; height++) {
    reads.length = 0;
    const hash = wireHashOf(dev.chain.hashAt(height));
    expect(await lookupSealedHash(source, head, hash)).toMatchObject({ indexed: true, found: { height } });
    // A shard per level (at most two), then the block's frame.
    expect(reads.filter((k) => k.includes("/hash/")).length).toBeLessThanOrEqual(2);
    expect(reads.filter((k) => k.endsWith(".full.bin"))).toHaveLength(1);
  }
  for (let i = 0; i < 200; i++) {
    const random = crypto.getRandomValues(new Uint8Array(32));
    expect(await lookupSealedHash(source, head, random)).toEqual({ indexed: true, found: undefined });
  }
  // The tail's blocks are not sealed, so not in the index.
  const above = wireHashOf(dev.chain.hashAt(sealedTip + 1));
  expect(await lookupSealedHash(source, head, above)).toEqual({ indexed: true, found: undefined });
}

describe("the block-hash index, maintained by sealing", () => {
  it("is written with every head to a directory store and answers every sealed hash", async () => {
    const dev = await devNode(257);
    const store = createDirectoryStore(dir("store"));
    const tip = await seal(dev, store);
    expect(tip).toBe(239); // 24 ranges: a base level of 6 epochs, no recent level
    const audit = await auditStore(store, "regtest", RANGE);
    expect(audit.hashIndex).toEqual({ levels: 1, shards: 1, entries: 240, rangeEnds: 1 });
    await expectIndexAnswers(dev, store, tip);
  });

  it("serves the origin's GetBlock-by-hash path (heightOfHash) for sealed blocks with the node gone", async () => {
    const dev = await devNode(95);
    const inner = createDirectoryStore(dir("store"));
    const frameReads: string[] = [];
    const store: BlobStore = {
      ...inner,
      get(key, range) {
        if (key.endsWith(".full.bin")) frameReads.push(key);
        return inner.get(key, range);
      },
    };
    const t = testIndexer(dev.url, { store, dataDir: dir("data"), hashIndexEpochRanges: EPOCH });
    cleanups.push(() => t.stop());
    await t.indexer.start();
    await t.indexer.synced();
    const sealedTip = t.indexer.view.sealedTip();
    expect(sealedTip).toBe(79); // 8 ranges = 2 epochs
    const hashes = Array.from({ length: sealedTip + 1 }, (_, h) => wireHashOf(dev.chain.hashAt(h)));
    await dev.close(); // the node's getblock can not answer: only the index can
    for (const [height, hash] of hashes.entries())
      expect(await t.indexer.view.heightOfHash(hash)).toBe(height);
    expect(await t.indexer.view.heightOfHash(crypto.getRandomValues(new Uint8Array(32)))).toBeUndefined();
    // GetBlock by hash: the index's shards, the candidate confirmed from its range's metadata, and
    // one read of the block's frame — the one it sends.
    for (const height of [0, 37, sealedTip]) {
      frameReads.length = 0;
      const id = create(BlockIDSchema, { hash: hashes[height]! });
      const frame = await blockFrame({ chain: t.indexer.view }, "GetBlock", id);
      const block = fromBinary(CompactBlockSchema, frameMessage(frame));
      expect(block.height).toBe(BigInt(height));
      expect(block.hash).toEqual(hashes[height]);
      expect(frameReads).toHaveLength(1);
    }
  });

  it("grows without rewriting: a later run adds ranges and a recent level, the base stays", async () => {
    const dev = await devNode(60);
    const storeDir = dir("store");
    const store = createDirectoryStore(storeDir);
    expect(await seal(dev, store)).toBe(49);
    const before = await auditStore(store, "regtest", RANGE);
    expect(before.hashIndex).toEqual({ levels: 2, shards: 2, entries: 50, rangeEnds: 2 });
    const base = "v1/regtest/r10/hash/00000000-00000003/0000.v2.bin";
    const baseBytes = await store.get(base);
    mine(dev, 20);
    expect(await seal(dev, store)).toBe(69);
    expect(await store.get(base)).toEqual(baseBytes);
    expect((await auditMetadata(store, "regtest", RANGE)).hashIndex).toEqual({
      levels: 2,
      shards: 2,
      entries: 70,
      rangeEnds: 2,
    });
    await expectIndexAnswers(dev, store, 69);
  });

  it("is added by bootstrap to a store sealed before the index existed", async () => {
    const dev = await devNode(85);
    const store = createDirectoryStore(dir("store"));
    expect(await seal(dev, store)).toBe(69);
    // What an older writer left: the same ranges, a head without `hashIndex`, no index objects.
    const head = decodeHead((await store.get(headKey("regtest")))!);
    const { hashIndex: _, ...older } = head;
    const bare = createDirectoryStore(dir("bare"));
    for (const key of await store.list("v1/regtest/r10/"))
      if (!key.includes("/hash/")) await bare.put(key, (await store.get(key))!);
    await bare.put(headKey("regtest"), encodeHead(older));
    expect((await auditMetadata(bare, "regtest", RANGE)).hashIndex).toBeNull();
    // Nothing new to seal: only bootstrap writes here.
    expect(await seal(dev, bare)).toBe(69);
    expect((await auditMetadata(bare, "regtest", RANGE)).hashIndex).toEqual({
      levels: 2,
      shards: 2,
      entries: 70,
      rangeEnds: 2,
    });
    mine(dev, 10);
    expect(await seal(dev, bare)).toBe(79);
    expect((await auditMetadata(bare, "regtest", RANGE)).hashIndex?.entries).toBe(80);
    await expectIndexAnswers(dev, bare, 79);
  });

  it("gets its range-ends objects from bootstrap when a head names shards only", async () => {
    const dev = await devNode(75);
    const store = createDirectoryStore(dir("store"));
    expect(await seal(dev, store)).toBe(59);
    // What the writer before range-ends objects left: shards, a head whose hashIndex has no rangeEnds.
    const head = decodeHead((await store.get(headKey("regtest")))!);
    const older = { ...head, hashIndex: { version: HASH_INDEX_VERSION, epochRanges: EPOCH } };
    const shardsOnly = createDirectoryStore(dir("shards-only"));
    for (const key of await store.list("v1/regtest/r10/"))
      if (!key.endsWith("/ends.bin")) await shardsOnly.put(key, (await store.get(key))!);
    await shardsOnly.put(headKey("regtest"), encodeHead(older));
    expect((await auditMetadata(shardsOnly, "regtest", RANGE)).hashIndex?.rangeEnds).toBe(0);
    expect(await seal(dev, shardsOnly)).toBe(59);
    expect((await auditMetadata(shardsOnly, "regtest", RANGE)).hashIndex).toEqual({
      levels: 2,
      shards: 2,
      entries: 60,
      rangeEnds: 2,
    });
    const ends = (await shardsOnly.list("v1/regtest/r10/hash/")).filter((k) => k.endsWith("/ends.bin"));
    for (const key of ends) expect(await shardsOnly.get(key)).toEqual(await store.get(key));
    expect(ends).toHaveLength(2);
  });

  it("is rebuilt at the current version by bootstrap when the head names a v1 index", async () => {
    const dev = await devNode(75);
    const store = createDirectoryStore(dir("store"));
    expect(await seal(dev, store)).toBe(59);
    // A store indexed at v1: none of the current shards, a head naming version 1.
    const head = decodeHead((await store.get(headKey("regtest")))!);
    const v1 = createDirectoryStore(dir("v1"));
    for (const key of await store.list("v1/regtest/r10/"))
      if (!key.endsWith(".v2.bin")) await v1.put(key, (await store.get(key))!);
    await v1.put(headKey("regtest"), encodeHead({ ...head, hashIndex: { version: 1, epochRanges: EPOCH } }));
    expect((await auditMetadata(v1, "regtest", RANGE)).hashIndex).toBeNull();
    expect(await seal(dev, v1)).toBe(59);
    expect(decodeHead((await v1.get(headKey("regtest")))!).hashIndex?.version).toBe(HASH_INDEX_VERSION);
    expect((await auditMetadata(v1, "regtest", RANGE)).hashIndex).toEqual({
      levels: 2,
      shards: 2,
      entries: 60,
      rangeEnds: 2,
    });
  });

  describe("with an S3 store (moto_server)", () => {
    let moto: MotoServer;
    beforeAll(async () => {
      moto = await startMoto();
    });
    afterAll(async () => moto?.stop());

    it("is written with every head and answers every sealed hash", async () => {
      await moto.createBucket("hash-index");
      const store = createS3Store({
        bucket: "hash-index",
        prefix: "p/",
        endpoint: moto.endpoint,
        region: moto.region,
        forcePathStyle: true,
        credentials: { accessKeyId: moto.accessKeyId, secretAccessKey: moto.secretAccessKey },
      });
      const dev = await devNode(75);
      const tip = await seal(dev, store);
      expect(tip).toBe(59); // 6 ranges: one epoch + a recent level of 2
      expect((await auditStore(store, "regtest", RANGE)).hashIndex).toEqual({
        levels: 2,
        shards: 2,
        entries: 60,
        rangeEnds: 2,
      });
      await expectIndexAnswers(dev, store, tip);
    }, 60_000);
  });
});
