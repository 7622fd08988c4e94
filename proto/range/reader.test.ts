import { describe, expect, it } from "vitest";
import {
  decodeRangeMeta,
  encodeSealedRange,
  endsOf,
  HashIndexBuilder,
  type HeadObject,
  headEndsLevels,
  metaHashEntries,
  rangeEndsKey,
  rangeKeys,
} from "./index.ts";
import { RangeReader, type RangeStore } from "./reader.ts";
import { syntheticRange } from "./testing.ts";

const SIZE = 20;
const network = "testnet";

/** An in-memory store of ranges 0..3, each read recorded. */
function memoryStore() {
  const objects = new Map<string, Uint8Array>();
  for (let index = 0; index < 4; index++) {
    const encoded = encodeSealedRange(syntheticRange({ network, rangeSize: SIZE, index }));
    const keys = rangeKeys(network, SIZE, index);
    objects.set(keys.meta, encoded.meta);
    for (const p of ["shielded", "full", "nullifiers"] as const) objects.set(keys.data[p], encoded.data[p]);
  }
  const reads: string[] = [];
  const store: RangeStore<Uint8Array> = {
    async readObject(key) {
      reads.push(key);
      return objects.get(key) ?? null;
    },
    async readSpan(key, span) {
      reads.push(`${key}@${span.offset}+${span.length}`);
      const bytes = objects.get(key);
      if (bytes === undefined) return null;
      const body = bytes.subarray(span.offset, span.offset + span.length);
      return { body, size: bytes.length, length: body.length };
    },
  };
  return { objects, reads, store };
}

describe("whole-range reads", () => {
  it("read a range's whole data object with its first and last block, the metadata only the first time", async () => {
    const { objects, reads, store } = memoryStore();
    const reader = new RangeReader(store, { network, rangeSize: SIZE, cacheEntries: 1 });
    const keys = rangeKeys(network, SIZE, 2);
    const meta = decodeRangeMeta(objects.get(keys.meta)!);
    const first = await reader.readWhole("shielded", 2);
    expect(first.body).toEqual(objects.get(keys.data.shielded));
    expect(first.ends).toEqual(endsOf(meta));
    expect(first.ends.firstHeight).toBe(40);
    expect(first.ends.lastHeight).toBe(59);
    expect(reads).toEqual([keys.meta, `${keys.data.shielded}@0+${meta.sections.shielded.length}`]);
    // Another range's metadata evicts this one's (one entry kept); its ends stay.
    await reader.meta(3);
    reads.length = 0;
    const again = await reader.readWhole("full", 2);
    expect(again.body).toEqual(objects.get(keys.data.full));
    expect(reads).toEqual([`${keys.data.full}@0+${meta.sections.full.length}`]);
  });

  it("refuse a data object whose size is not its metadata's (replaced or truncated)", async () => {
    const { objects, store } = memoryStore();
    const reader = new RangeReader(store, { network, rangeSize: SIZE, cacheEntries: 4 });
    const key = rangeKeys(network, SIZE, 1).data.nullifiers;
    objects.set(key, objects.get(key)!.subarray(0, 10));
    await expect(reader.readWhole("nullifiers", 1)).rejects.toMatchObject({ kind: "corrupt" });
  });

  it("forget the ends of ranges being rebuilt", async () => {
    const { reads, store } = memoryStore();
    const reader = new RangeReader(store, { network, rangeSize: SIZE, cacheEntries: 4 });
    await reader.readWhole("shielded", 3);
    reader.forget(3);
    reads.length = 0;
    await reader.readWhole("shielded", 3);
    expect(reads[0]).toBe(rangeKeys(network, SIZE, 3).meta);
  });
});

/** The hash-index objects (shards and range-ends) of ranges 0..3 in `objects`, epochs of 2, and their head. */
function indexRanges(objects: Map<string, Uint8Array>, withEnds = true): HeadObject {
  const builder = new HashIndexBuilder({ network, rangeSize: SIZE, firstIndex: 0, epochRanges: 2 });
  for (let index = 0; index < 3; index++) {
    const meta = decodeRangeMeta(objects.get(rangeKeys(network, SIZE, index).meta)!);
    builder.add(index, metaHashEntries(meta), withEnds ? endsOf(meta) : undefined);
  }
  for (const o of builder.objects()) objects.set(o.key, o.bytes);
  return {
    format: "lightedge-head",
    version: 1,
    network,
    rangeSize: SIZE,
    firstHeight: 0,
    rangeCount: 3,
    tip: { height: 3 * SIZE - 1, displayHash: "00".repeat(32), time: 0 },
    updatedAt: new Date(0).toISOString(),
    lightdInfo: undefined as unknown as HeadObject["lightdInfo"],
    hashIndex: builder.headField,
  };
}

describe("whole-range reads from range-ends objects", () => {
  it("read every range of a level with one range-ends read and no metadata", async () => {
    const { objects, reads, store } = memoryStore();
    const head = indexRanges(objects);
    const levels = headEndsLevels(head);
    expect(levels.map((l) => [l.firstIndex, l.lastIndex])).toEqual([
      [0, 1],
      [2, 2],
    ]);
    const reader = new RangeReader(store, { network, rangeSize: SIZE, cacheEntries: 4 });
    for (const index of [0, 1, 2]) {
      const read = await reader.readWhole("shielded", index, levels);
      const meta = decodeRangeMeta(objects.get(rangeKeys(network, SIZE, index).meta)!);
      expect(read.ends).toEqual(endsOf(meta));
      expect(read.body).toEqual(objects.get(rangeKeys(network, SIZE, index).data.shielded));
    }
    expect(reads.filter((k) => k.endsWith(".meta.bin"))).toEqual([]);
    expect(reads.filter((k) => k.endsWith("ends.bin"))).toEqual([
      rangeEndsKey(levels[0]!),
      rangeEndsKey(levels[1]!),
    ]);
    // Range 3 is in no level the head names: its metadata is read.
    reads.length = 0;
    await reader.readWhole("shielded", 3, levels);
    expect(reads[0]).toBe(rangeKeys(network, SIZE, 3).meta);
  });

  it("name no range-ends objects when a range came without its ends", async () => {
    const { objects } = memoryStore();
    const head = indexRanges(objects, false);
    expect(head.hashIndex?.rangeEnds).toBeUndefined();
    expect(headEndsLevels(head)).toEqual([]);
    expect([...objects.keys()].some((k) => k.endsWith("ends.bin"))).toBe(false);
  });

  it("refuse a damaged or missing range-ends object as corrupt", async () => {
    const { objects, store } = memoryStore();
    const levels = headEndsLevels(indexRanges(objects));
    const key = rangeEndsKey(levels[0]!);
    const damaged = objects.get(key)!.slice();
    damaged[80]! ^= 1;
    objects.set(key, damaged);
    const reader = new RangeReader(store, { network, rangeSize: SIZE, cacheEntries: 4 });
    await expect(reader.readWhole("shielded", 0, levels)).rejects.toMatchObject({ kind: "corrupt" });
    objects.delete(rangeEndsKey(levels[1]!));
    await expect(reader.readWhole("shielded", 2, levels)).rejects.toMatchObject({ kind: "corrupt" });
  });
});
