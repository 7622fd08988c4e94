import { LightedgeError } from "../../proto/errors.ts";
import { assertMetaIdentity, decodeRangeMeta, type RangeMeta, rangeKeys } from "../../proto/range/index.ts";
import type { ObjectReader } from "../store/index.ts";
import { readAll } from "./read-all.ts";

/**
 * Range metadata objects are immutable, so they stay cached in the isolate for as long as they fit.
 * 64 entries ≈ 4 MB at 1,000 blocks per range (≈ 60 B per block with three projections), well
 * inside the 128 MB isolate limit (workers-platform.md §1).
 */
export const META_CACHE_ENTRIES = 64;

export interface MetaSource {
  /** The metadata of a range the head says is sealed; absent or unreadable → "corrupt". */
  meta(network: string, rangeSize: number, index: number): Promise<RangeMeta>;
  /** Metadata already in the isolate (newest use first), for cheap lookups by hash. */
  cached(network: string): RangeMeta[];
}

export function createMetaSource(reader: ObjectReader): MetaSource {
  const cache = new Map<string, Promise<RangeMeta>>();
  const settled = new Map<string, RangeMeta>();
  return {
    meta(network, rangeSize, index) {
      const key = rangeKeys(network, rangeSize, index).meta;
      let hit = cache.get(key);
      if (hit !== undefined) {
        // Re-insert: Map iteration order is insertion order, so the oldest entry is evicted first.
        cache.delete(key);
        cache.set(key, hit);
        return hit;
      }
      hit = readMeta(reader, key, { network, rangeSize, index });
      cache.set(key, hit);
      hit.then(
        (m) => settled.set(key, m),
        () => cache.delete(key),
      );
      while (cache.size > META_CACHE_ENTRIES) {
        const oldest = cache.keys().next().value as string;
        cache.delete(oldest);
        settled.delete(oldest);
      }
      return hit;
    },
    cached(network) {
      return [...settled.values()].filter((m) => m.network === network).reverse();
    },
  };
}

async function readMeta(
  reader: ObjectReader,
  key: string,
  identity: { network: string; rangeSize: number; index: number },
): Promise<RangeMeta> {
  const object = await reader.get(key);
  if (object === null) {
    // The head is written only after its ranges, so a missing range is damage, not a race.
    throw new LightedgeError("corrupt", "edge.meta", `range metadata ${key} is missing`);
  }
  const meta = decodeRangeMeta(await readAll(object.body));
  assertMetaIdentity(meta, identity);
  return meta;
}
