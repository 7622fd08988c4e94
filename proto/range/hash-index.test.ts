import { create, toBinary } from "@bufbuild/protobuf";
import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { LightedgeError } from "../errors.ts";
import { CompactBlockSchema } from "../index.ts";
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
  rangeKeys,
  type SealedRangeInput,
  type Span,
  shardCandidates,
  sortedEntries,
} from "./index.ts";
import { syntheticRange } from "./testing.ts";

const RANGE = 100;
const EPOCH = 16;
const tiny = () => ({ shielded: 1, full: 1, nullifiers: 1 });

/** A synthetic range whose `full` messages are CompactBlocks naming their height and hash, as stored ones do. */
function identifiedRange(index: number, edit?: (range: SealedRangeInput) => void): SealedRangeInput {
  const range = syntheticRange({ rangeSize: RANGE, index, sizes: tiny });
  edit?.(range);
  for (const b of range.blocks)
    b.messages.full = toBinary(
      CompactBlockSchema,
      create(CompactBlockSchema, { height: BigInt(b.height), hash: b.wireHash, time: b.time }),
    );
  return range;
}

/** Reads from a map of objects, whole or a span, the way a store answers. */
function objectSource(objects: Map<string, Uint8Array>, reads: string[] = []) {
  return {
    read: async (key: string, span?: Span) => {
      reads.push(key);
      const bytes = objects.get(key);
      if (bytes === undefined) return null;
      return span ? bytes.slice(span.offset, span.offset + span.length) : bytes;
    },
  };
}

function putRange(objects: Map<string, Uint8Array>, range: SealedRangeInput): RangeMeta {
  const encoded = encodeSealedRange(range);
  objects.set(rangeKeys(range.network, range.rangeSize, range.index).data.full, encoded.data.full);
  return decodeRangeMeta(encoded.meta);
}

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
    const meta = putRange(objects, identifiedRange(index));
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
  const source = objectSource(objects, reads);
  return { metas, objects, puts, builder, head, reads, source };
}

const hashAt = (metas: Map<number, RangeMeta>, height: number) => {
  const meta = metas.get(Math.floor(height / RANGE))!;
  const at = (height - meta.firstHeight) * meta.entryBytes;
  return meta.table.slice(at, at + 32);
};

describe("the hash index", () => {
  it("finds every sealed block and its frame from its hash, in either byte order: a shard read per level, then the frame", async () => {
    const c = sealChain(2 * EPOCH + 5);
    const levels = headHashLevels(c.head)!;
    expect(levels.map((l) => [l.firstIndex, l.lastIndex])).toEqual([
      [3, 3 + 2 * EPOCH - 1],
      [3 + 2 * EPOCH, 3 + 2 * EPOCH + 4],
    ]);
    expect(levels[0]!.bits).toBe(1); // 3,200 entries: two shards of ≤ 2,048 on average
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
      const index = Math.floor(height / RANGE);
      const full = c.objects.get(rangeKeys("testnet", RANGE, index).data.full)!;
      const found = (result as { found: { frame: Uint8Array } }).found.frame;
      expect(Buffer.from(full).includes(Buffer.from(found))).toBe(true);
      const shardReads = c.reads.filter((k) => k.includes("/hash/"));
      expect(shardReads.length).toBeLessThanOrEqual(2);
      expect(c.reads.length - shardReads.length).toBe(1);
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

  it("shards a level of more than 2,048 entries by the top bits of the key, each entry naming its frame", async () => {
    const range = 3000;
    const blocks = Array.from({ length: range }, (_, k) => ({
      height: k,
      wireHash: crypto.getRandomValues(new Uint8Array(32)),
      messages: { full: new Uint8Array(k % 11) },
    }));
    const input = blockHashEntries(blocks);
    const level = hashIndexLevel("mainnet", range, 0, 0);
    expect(level.bits).toBe(1);
    const objects = encodeHashLevel(level, sortedEntries([input.keys]), [input.fullLengths]);
    expect(objects.map((o) => o.key)).toEqual([hashShardKey(level, 0), hashShardKey(level, 1)]);
    const shards = objects.map((o, s) => decodeHashShard(o.bytes, level, s));
    expect(shards[0]!.count + shards[1]!.count).toBe(range);
    // Frame k starts after frames 0 … k − 1 (5 header bytes each).
    const offsetOf = (k: number) =>
      blocks.slice(0, k).reduce((sum, b) => sum + 5 + b.messages.full.length, 0);
    for (const b of blocks) {
      const found = shardCandidates(shards[hashKey32(b.wireHash) >>> 31]!, hashKey32(b.wireHash));
      expect(found).toContainEqual({ height: b.height, offset: offsetOf(b.height), length: b.height % 11 });
    }
  });

  it("returns every block sharing a key as a candidate and confirms the right one", async () => {
    let twin = new Uint8Array(32);
    const range = identifiedRange(0, (r) => {
      // Block 7 gets a hash with block 3's key (same first and last four bytes, other middle).
      twin = r.blocks[3]!.wireHash.slice();
      twin[10] ^= 0xff;
      r.blocks[7]!.wireHash = twin;
      r.blocks[8]!.wirePrevHash = twin;
    });
    const objects = new Map<string, Uint8Array>();
    const meta = putRange(objects, range);
    const builder = new HashIndexBuilder({ network: "testnet", rangeSize: RANGE, firstIndex: 0 });
    builder.add(0, metaHashEntries(meta));
    for (const o of builder.objects()) objects.set(o.key, o.bytes);
    const head = {
      network: "testnet",
      rangeSize: RANGE,
      firstHeight: 0,
      rangeCount: 1,
      hashIndex: builder.headField,
    } as HeadObject;
    const source = objectSource(objects);
    expect((await hashIndexCandidates(source, head, twin))!.map((c) => c.height)).toEqual([3, 7]);
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
    expect((await hashIndexCandidates({ ...c.source, shards }, c.head, hash))!.map((x) => x.height)).toEqual([
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
    // An index of another version (v1's shards had no frame spans) is not read either.
    expect(headHashLevels({ ...c.head, hashIndex: { version: 1, epochRanges: 4 } })).toBeUndefined();
    expect(headHashLevels({ ...c.head, hashIndex: { version: 3, epochRanges: 4 } })).toBeUndefined();
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
      const ranges = [3, 4, 5].map((i) => metaHashEntries(c.metas.get(i)!));
      const lengths = ranges.map((r) => r.fullLengths);
      const entries = sortedEntries(ranges.map((r) => r.keys));
      const swapped = entries.slice();
      [swapped[0], swapped[1]] = [swapped[1]!, swapped[0]!];
      const [bad] = encodeHashLevel(level, swapped, lengths);
      expect(expectCorrupt(bad!.bytes)).toMatch(/out of order/);
      // The writer refuses a height outside the level, so the entry is edited and the trailer redone.
      const outside = good.slice();
      const view = new DataView(outside.buffer);
      const count = view.getUint32(44);
      view.setUint32(48 + (count - 1) * 16 + 4, 99);
      outside.set(sha256(outside.subarray(0, outside.length - 32)), outside.length - 32);
      expect(expectCorrupt(outside)).toMatch(/outside|out of order/);
    });

    it("an entry whose frame is another block's, or not a frame, or a missing data object", async () => {
      const hash = hashAt(c.metas, 350);
      const fullKey = rangeKeys("testnet", RANGE, 3).data.full;
      const other = c.objects.get(rangeKeys("testnet", RANGE, 4).data.full)!;
      const lookupWith = (full: Uint8Array | undefined) => {
        const objects = new Map(c.objects);
        if (full === undefined) objects.delete(fullKey);
        else objects.set(fullKey, full);
        return lookupSealedHash(objectSource(objects), c.head, hash);
      };
      expect(await lookupWith(c.objects.get(fullKey))).toMatchObject({ found: { height: 350 } });
      await expect(lookupWith(other)).rejects.toMatchObject({ kind: "corrupt", message: /another block/ });
      const torn = c.objects.get(fullKey)!.slice();
      torn.fill(0xff);
      await expect(lookupWith(torn)).rejects.toMatchObject({ kind: "corrupt", message: /no frame/ });
      await expect(lookupWith(undefined)).rejects.toMatchObject({ kind: "corrupt", message: /missing/ });
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
