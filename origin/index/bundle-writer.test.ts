import { afterEach, describe, expect, it } from "vitest";
import { concatBytes } from "../../proto/bytes.ts";
import { bundleKey, encodeSealedRange, PROJECTIONS, rangeKeys } from "../../proto/range/index.ts";
import { syntheticRange } from "../../proto/range/testing.ts";
import { type BlobStore, createDirectoryStore } from "../store/index.ts";
import { BundleWriter } from "./bundle-writer.ts";
import { tempDir } from "./testing.ts";

const NETWORK = "regtest";
const RANGE = 10;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Ranges `first..end−1` sealed into a fresh directory store, as the sealer writes them. */
async function storeOf(first: number, end: number): Promise<BlobStore> {
  const dir = tempDir("bundles");
  cleanups.push(dir.remove);
  const store = createDirectoryStore(dir.path);
  for (let index = first; index < end; index++) {
    const encoded = encodeSealedRange(syntheticRange({ network: NETWORK, rangeSize: RANGE, index }));
    const keys = rangeKeys(NETWORK, RANGE, index);
    for (const p of PROJECTIONS) await store.put(keys.data[p], encoded.data[p]);
    await store.put(keys.meta, encoded.meta);
  }
  return store;
}

function writerFor(
  store: BlobStore,
  o: { maxBytes?: number; stored?: { ranges: number; maxBytes: number; to: number } } = {},
) {
  const puts: string[] = [];
  const writer = new BundleWriter({
    store,
    network: NETWORK,
    rangeSize: RANGE,
    firstIndex: 3,
    ranges: 4,
    maxBytes: o.maxBytes ?? 1_000_000,
    stored: o.stored,
    put: async (key, body) => {
      puts.push(key);
      await store.put(key, body);
    },
  });
  return { writer, puts };
}

/** A projection's data objects of ranges `first..first+3`, concatenated: what its bundle must hold. */
async function concatenated(store: BlobStore, first: number, p: (typeof PROJECTIONS)[number]) {
  const parts: Uint8Array[] = [];
  for (let index = first; index < first + 4; index++)
    parts.push((await store.get(rangeKeys(NETWORK, RANGE, index).data[p]))!);
  return concatBytes(parts);
}

describe("the bundle writer", () => {
  it("writes whole bundles from the store's first aligned one, in batches, each its ranges' bytes concatenated", async () => {
    // Ranges 3..24: bundle 0 (0..3) is not whole here; bundles 1..5 (4..23) are; 6 (24..27) not yet.
    const store = await storeOf(3, 25);
    const { writer, puts } = writerFor(store);
    expect(writer.field.to).toBe(0); // nothing written: below the first range
    expect(writer.behind(25)).toBe(true);
    expect(await writer.catchUp(25, 2)).toBe(2);
    expect(writer.field).toEqual({ ranges: 4, maxBytes: 1_000_000, to: 12 });
    expect(await writer.catchUp(25, 100, 3)).toBe(3);
    expect(writer.field.to).toBe(24);
    expect(writer.behind(25)).toBe(false);
    expect(await writer.catchUp(25, 100)).toBe(0);
    expect(puts.length).toBe(5 * PROJECTIONS.length);
    for (let b = 1; b <= 5; b++)
      for (const p of PROJECTIONS)
        expect(await store.get(bundleKey(NETWORK, RANGE, 4, b, p))).toEqual(
          await concatenated(store, b * 4, p),
        );
    expect(await store.get(bundleKey(NETWORK, RANGE, 4, 0, "shielded"))).toBeNull();
  });

  it("writes no projection's bundle larger than maxBytes, and goes on past it", async () => {
    const store = await storeOf(4, 8);
    const shielded = (await concatenated(store, 4, "shielded")).length;
    const full = (await concatenated(store, 4, "full")).length;
    expect(full).toBeGreaterThan(shielded);
    const { writer } = writerFor(store, { maxBytes: shielded });
    expect(await writer.catchUp(8, 10)).toBe(1);
    expect(await store.get(bundleKey(NETWORK, RANGE, 4, 1, "shielded"))).not.toBeNull();
    expect(await store.get(bundleKey(NETWORK, RANGE, 4, 1, "full"))).toBeNull();
    expect(writer.field.to).toBe(8);
  });

  it("refuses a range object that is not what its metadata says, and does not move past it", async () => {
    const store = await storeOf(4, 12);
    const key = rangeKeys(NETWORK, RANGE, 9).data.full;
    const damaged = (await store.get(key))!.slice();
    damaged[7]! ^= 1;
    await store.put(key, damaged);
    const { writer } = writerFor(store);
    await expect(writer.catchUp(12, 10)).rejects.toMatchObject({ kind: "corrupt" });
    // Bundle 1 (ranges 4..7) was written and counts; bundle 2 (8..11) holds the damage.
    expect(writer.field.to).toBe(8);
    expect(await store.get(bundleKey(NETWORK, RANGE, 4, 2, "full"))).toBeNull();
  });

  it("resumes after what a head of the same shape says is written, and starts over for another shape", async () => {
    const store = await storeOf(3, 25);
    const same = writerFor(store, { stored: { ranges: 4, maxBytes: 1_000_000, to: 16 } });
    expect(await same.writer.catchUp(25, 100)).toBe(2);
    expect(same.puts[0]).toBe(bundleKey(NETWORK, RANGE, 4, 4, "shielded"));
    const other = writerFor(store, { stored: { ranges: 4, maxBytes: 5, to: 16 } });
    expect(other.writer.field.to).toBe(0);
    expect(await other.writer.catchUp(25, 100)).toBe(5);
  });
});
