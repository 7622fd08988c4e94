import { describe, expect, it } from "vitest";
import { blockInfo, decodeRangeMeta, encodeSealedRange, rangeKeys } from "./index.ts";
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
    expect(first.first).toEqual(blockInfo(meta, 40));
    expect(first.last).toEqual(blockInfo(meta, 59));
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
