import { describe, expect, it } from "vitest";
import { LightedgeError } from "../errors.ts";
import { LoadCache } from "../lru.ts";
import {
  blockHashEntries,
  decodeHashShard,
  decodeRangeMeta,
  encodeHashLevel,
  encodeSealedRange,
  HashIndexBuilder,
  type HashShard,
  type HeadObject,
  hashIndexCandidates,
  hashIndexLevel,
  hashKey32,
  hashShardKey,
  headHashLevels,
  lookupSealedHash,
  metaHashEntries,
  type RangeMeta,
  sortedEntries,
} from "./index.ts";
import { syntheticRange } from "./testing.ts";

const RANGE = 100;
const EPOCH = 16;
const tiny = () => ({ shielded: 1, full: 1, nullifiers: 1 });

/** A store as the sealer leaves it after `ranges` ranges: range metadata and every index object put. */
function sealChain(ranges: number, firstIndex = 3) {
  const metas = new Map<number, RangeMeta>();
  const objects = new Map<string, Uint8Array>();
  const puts: string[] = [];
  const builder = new HashIndexBuilder({
    network: "testnet",
    rangeSize: RANGE,
    firstIndex,
    epochRanges: EPOCH,
  });
  for (let index = firstIndex; index < firstIndex + ranges; index++) {
    const range = syntheticRange({ rangeSize: RANGE, index, sizes: tiny });
    const meta = decodeRangeMeta(encodeSealedRange(range).meta);
    metas.set(index, meta);
    builder.add(index, metaHashEntries(meta));
    for (const o of builder.objects()) {
      // Immutability: a key, once written, is never written again with other bytes.
      const before = objects.get(o.key);
      if (before) expect(Buffer.from(before).equals(o.bytes)).toBe(true);
      objects.set(o.key, o.bytes);
      puts.push(o.key);
    }
    builder.baseStored();
  }
  const head = {
    network: "testnet",
    rangeSize: RANGE,
    firstHeight: firstIndex * RANGE,
    rangeCount: ranges,
    hashIndex: builder.headField,
  } as HeadObject;
  const reads: string[] = [];
  const source = {
    read: async (key: string) => {
      reads.push(key);
      return objects.get(key) ?? null;
    },
    meta: async (index: number) => metas.get(index)!,
  };
  return { metas, objects, puts, builder, head, reads, source };
}

const hashAt = (metas: Map<number, RangeMeta>, height: number) => {
  const meta = metas.get(Math.floor(height / RANGE))!;
  const at = (height - meta.firstHeight) * meta.entryBytes;
  return meta.table.slice(at, at + 32);
};

describe("the hash index", () => {
  it("finds every sealed block's height from its hash, in either byte order, with at most two reads", async () => {
    const c = sealChain(2 * EPOCH + 5);
    const levels = headHashLevels(c.head)!;
    expect(levels.map((l) => [l.firstIndex, l.lastIndex])).toEqual([
      [3, 3 + 2 * EPOCH - 1],
      [3 + 2 * EPOCH, 3 + 2 * EPOCH + 4],
    ]);
    expect(levels[0]!.bits).toBe(0);
    const first = c.head.firstHeight;
    const last = first + c.head.rangeCount * RANGE - 1;
    const shards = new LoadCache<string, HashShard>({ maxEntries: 64, sharing: "in-flight" });
    for (let height = first; height <= last; height++) {
      c.reads.length = 0;
      const hash = hashAt(c.metas, height);
      // Every 16th lookup cold (no shard cache): the read count is the format's promise.
      const source = height % 16 === 0 ? c.source : { ...c.source, shards };
      const result = await lookupSealedHash(source, c.head, height % 2 ? hash : hash.slice().reverse());
      expect(result).toMatchObject({ indexed: true, found: { height } });
      expect(c.reads.length).toBeLessThanOrEqual(2);
    }
  });

  it("finds no block for hashes that are not sealed", async () => {
    const c = sealChain(EPOCH + 3);
    for (let i = 0; i < 500; i++) {
      const random = crypto.getRandomValues(new Uint8Array(32));
      expect(await lookupSealedHash(c.source, c.head, random)).toEqual({ indexed: true, found: undefined });
    }
    // The next, unsealed block's hash too.
    const next = syntheticRange({ rangeSize: RANGE, index: 3 + EPOCH + 3 }).blocks[0]!.wireHash;
    expect(await lookupSealedHash(c.source, c.head, next)).toEqual({ indexed: true, found: undefined });
  });

  it("writes each base level once per epoch under a new key and a recent level per range", () => {
    const c = sealChain(2 * EPOCH + 2);
    const baseKeys = c.puts.filter((k) => /hash\/00000003-/.test(k));
    expect(new Set(baseKeys).size).toBe(baseKeys.length);
    expect(new Set(baseKeys.map((k) => k.split("/")[4])).size).toBe(2 + (EPOCH - 1)); // 2 bases + recents of epoch 1
    expect(c.puts.length).toBe(new Set(c.puts).size);
  });

  it("shards a level of more than 4,096 entries by the top bits of the key", async () => {
    const entries: bigint[] = [];
    const range = 5000;
    const blocks = Array.from({ length: range }, (_, k) => ({
      height: k,
      wireHash: crypto.getRandomValues(new Uint8Array(32)),
    }));
    entries.push(...blockHashEntries(blocks));
    const level = hashIndexLevel("mainnet", range, 0, 0);
    expect(level.bits).toBe(1);
    const objects = encodeHashLevel(level, sortedEntries([BigUint64Array.from(entries)]));
    expect(objects.map((o) => o.key)).toEqual([hashShardKey(level, 0), hashShardKey(level, 1)]);
    const shards = objects.map((o, s) => decodeHashShard(o.bytes, level, s));
    expect(shards[0]!.count + shards[1]!.count).toBe(range);
    const heightsIn = shards.map(
      (s) => new Set(Array.from({ length: s.count }, (_, i) => s.entries.getUint32(i * 8 + 4))),
    );
    for (const b of blocks) expect(heightsIn[hashKey32(b.wireHash) >>> 31]!.has(b.height)).toBe(true);
  });

  it("returns every block sharing a key as a candidate and confirms the right one", async () => {
    const range = syntheticRange({ rangeSize: RANGE, index: 0, sizes: tiny });
    // Block 7 gets a hash with block 3's key (same first and last four bytes, other middle).
    const twin = range.blocks[3]!.wireHash.slice();
    twin[10] ^= 0xff;
    range.blocks[7]!.wireHash = twin;
    range.blocks[8]!.wirePrevHash = twin;
    const meta = decodeRangeMeta(encodeSealedRange(range).meta);
    const builder = new HashIndexBuilder({ network: "testnet", rangeSize: RANGE, firstIndex: 0 });
    builder.add(0, metaHashEntries(meta));
    const objects = new Map(builder.objects().map((o) => [o.key, o.bytes]));
    const head = {
      network: "testnet",
      rangeSize: RANGE,
      firstHeight: 0,
      rangeCount: 1,
      hashIndex: builder.headField,
    } as HeadObject;
    const source = { read: async (k: string) => objects.get(k) ?? null, meta: async () => meta };
    expect(await hashIndexCandidates(source, head, twin)).toEqual([3, 7]);
    expect(await lookupSealedHash(source, head, twin)).toMatchObject({ found: { height: 7 } });
    expect(await lookupSealedHash(source, head, range.blocks[3]!.wireHash)).toMatchObject({
      found: { height: 3 },
    });
  });

  it("caches decoded shards: a second lookup reads nothing", async () => {
    const c = sealChain(EPOCH + 1);
    const shards = new LoadCache<string, HashShard>({ maxEntries: 16, sharing: "settled" });
    const hash = hashAt(c.metas, c.head.firstHeight + 5);
    await hashIndexCandidates({ ...c.source, shards }, c.head, hash);
    const before = c.reads.length;
    expect(await hashIndexCandidates({ ...c.source, shards }, c.head, hash)).toEqual([
      c.head.firstHeight + 5,
    ]);
    expect(c.reads.length).toBe(before);
  });

  it("says a head without an index has none", async () => {
    const c = sealChain(2);
    const { hashIndex: _, ...bare } = c.head;
    expect(await lookupSealedHash(c.source, bare as HeadObject, hashAt(c.metas, 300))).toEqual({
      indexed: false,
    });
    expect(headHashLevels({ ...c.head, hashIndex: { version: 2, epochRanges: 4 } })).toBeUndefined();
  });

  describe("refuses damaged shards (corrupt, never a wrong answer)", () => {
    const c = sealChain(3);
    const level = headHashLevels(c.head)![0]!;
    const key = hashShardKey(level, 0);
    const good = c.objects.get(key)!;
    const expectCorrupt = (bytes: Uint8Array, l = level, shard = 0) => {
      try {
        decodeHashShard(bytes, l, shard);
      } catch (err) {
        expect(err).toBeInstanceOf(LightedgeError);
        expect((err as LightedgeError).kind).toBe("corrupt");
        return (err as Error).message;
      }
      throw new Error("decoded a damaged shard");
    };

    it("a flipped byte, a truncation, another magic", () => {
      const flipped = good.slice();
      flipped[60] ^= 1;
      expect(expectCorrupt(flipped)).toMatch(/SHA-256/);
      expect(expectCorrupt(good.subarray(0, good.length - 8))).toMatch(/size|truncated/);
      const magic = good.slice();
      magic[0] = 0;
      expect(expectCorrupt(magic)).toMatch(/magic/);
    });

    it("a shard read under another level's key", () => {
      const other = hashIndexLevel("testnet", RANGE, level.firstIndex, level.lastIndex + 1);
      expect(expectCorrupt(good, other)).toMatch(/describes/);
    });

    it("entries out of order or outside the level, even with a valid trailer", () => {
      const entries = sortedEntries([
        metaHashEntries(c.metas.get(3)!),
        metaHashEntries(c.metas.get(4)!),
        metaHashEntries(c.metas.get(5)!),
      ]);
      const swapped = entries.slice();
      [swapped[0], swapped[1]] = [swapped[1]!, swapped[0]!];
      const [bad] = encodeHashLevel(level, swapped);
      expect(expectCorrupt(bad!.bytes)).toMatch(/out of order/);
      const outside = entries.slice();
      outside[outside.length - 1] = (outside[outside.length - 1]! & ~0xffffffffn) | 99n;
      const [wrongHeight] = encodeHashLevel(level, outside.sort());
      expect(expectCorrupt(wrongHeight!.bytes)).toMatch(/outside/);
    });

    it("a shard the head names that is absent", async () => {
      const missing = { ...c.source, read: async () => null };
      await expect(lookupSealedHash(missing, c.head, hashAt(c.metas, 400))).rejects.toMatchObject({
        kind: "corrupt",
        message: expect.stringMatching(/missing/),
      });
    });
  });
});
