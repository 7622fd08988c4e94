import { LightedgeError } from "../../proto/errors.ts";
import {
  assertMetaIdentity,
  blockInfo,
  blockSpan,
  decodeRangeMeta,
  type Projection,
  type RangeMeta,
  rangeIndexOf,
  rangeKeys,
} from "../../proto/range/index.ts";
import type { BlobStore } from "../store/index.ts";
import type { ChainBlock } from "./chain-view.ts";
import { codecOptions } from "./codec-options.ts";

/** Reads sealed ranges back from the store (the origin's own reads: server streams, bootstrap). */
export interface SealedReader {
  /** Decoded, validated metadata of range `index` (cached); not-found when absent. */
  meta(index: number): Promise<RangeMeta>;
  /** Stored frames of `from..to` (ascending, or descending when from > to), one ranged read per range. */
  blocks(projection: Projection, from: number, to: number, signal?: AbortSignal): AsyncGenerator<ChainBlock>;
  /** Drops cached metadata of ranges ≥ `index` (they are being rebuilt). */
  forget(fromIndex: number): void;
}

const CACHE_ENTRIES = 64;

export function createSealedReader(store: BlobStore, network: string, rangeSize: number): SealedReader {
  const cache = new Map<number, Promise<RangeMeta>>();

  const load = async (index: number): Promise<RangeMeta> => {
    const key = rangeKeys(network, rangeSize, index).meta;
    const bytes = await store.get(key);
    if (bytes === null)
      throw new LightedgeError("not-found", "sealed-reader", `range object ${key} is missing`);
    const meta = decodeRangeMeta(bytes, codecOptions);
    assertMetaIdentity(meta, { network, rangeSize, index });
    return meta;
  };

  const meta = (index: number): Promise<RangeMeta> => {
    let entry = cache.get(index);
    if (entry === undefined) {
      entry = load(index);
      entry.catch(() => cache.delete(index));
      if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    } else {
      cache.delete(index); // re-insert: most recently used last
    }
    cache.set(index, entry);
    return entry;
  };

  async function* rangeBlocks(
    projection: Projection,
    index: number,
    lo: number,
    hi: number,
    descending: boolean,
  ) {
    const m = await meta(index);
    const span = blockSpan(m, projection, lo, hi);
    const key = rangeKeys(network, rangeSize, index).data[projection];
    const bytes = await store.get(key, span);
    if (bytes === null || bytes.length !== span.length) {
      throw new LightedgeError(
        "corrupt",
        "sealed-reader",
        `${key}: expected ${span.length} bytes at ${span.offset}`,
      );
    }
    const offsets = m.offsets[projection];
    for (let k = 0; k <= hi - lo; k++) {
      const height = descending ? hi - k : lo + k;
      const at = offsets[height - m.firstHeight]! - span.offset;
      const end = offsets[height - m.firstHeight + 1]! - span.offset;
      const info = blockInfo(m, height);
      yield {
        height,
        wireHash: info.wireHash,
        wirePrevHash: info.wirePrevHash,
        frame: bytes.subarray(at, end),
      };
    }
  }

  return {
    meta,
    async *blocks(projection, from, to, signal) {
      const descending = from > to;
      const step = descending ? -1 : 1;
      const last = rangeIndexOf(to, rangeSize);
      for (let index = rangeIndexOf(from, rangeSize); ; index += step) {
        if (signal?.aborted) return;
        const lo = Math.max(Math.min(from, to), index * rangeSize);
        const hi = Math.min(Math.max(from, to), (index + 1) * rangeSize - 1);
        yield* rangeBlocks(projection, index, lo, hi, descending);
        if (index === last) return;
      }
    },
    forget(fromIndex) {
      for (const index of [...cache.keys()]) if (index >= fromIndex) cache.delete(index);
    },
  };
}
