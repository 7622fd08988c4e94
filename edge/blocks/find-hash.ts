import { reversed } from "../../proto/bytes.ts";
import {
  type HeadObject,
  heightOfWireHash,
  lastRangeIndex,
  type RangeMeta,
} from "../../proto/range/index.ts";
import type { EdgeServices } from "../services.ts";

/**
 * How many of the newest sealed ranges GetBlock-by-hash scans when the hash is not in a cached
 * range. Without an index a hash says nothing about its height, so a full search is O(ranges)
 * (3,400 reads on mainnet): too slow. Hashes wallets ask about are recent; older ones go to the
 * origin, which keeps a hash index. A stored hash→height index object would remove that
 * dependency (proposed for the range format; see edge/README.md).
 */
export const MAX_HASH_SCAN_RANGES = 8;

/** The sealed range and height holding a block hash, or undefined. Both byte orders are tried. */
export async function findSealedHash(
  s: Pick<EdgeServices, "ranges">,
  head: HeadObject,
  hash: Uint8Array,
): Promise<{ meta: RangeMeta; height: number } | undefined> {
  const ranges = s.ranges(head.network, head.rangeSize);
  const orders = [hash, reversed(hash)];
  const look = (meta: RangeMeta) => {
    for (const h of orders) {
      const height = heightOfWireHash(meta, h);
      if (height !== undefined) return { meta, height };
    }
    return undefined;
  };
  for (const meta of await ranges.cached()) {
    const hit = look(meta);
    if (hit !== undefined) return hit;
  }
  const last = lastRangeIndex(head);
  const first = Math.max(head.firstHeight / head.rangeSize, last - MAX_HASH_SCAN_RANGES + 1);
  const indexes: number[] = [];
  for (let i = last; i >= first; i--) indexes.push(i);
  const scanned = await Promise.all(indexes.map((i) => ranges.meta(i)));
  for (const meta of scanned) {
    const hit = look(meta);
    if (hit !== undefined) return hit;
  }
  return undefined;
}
