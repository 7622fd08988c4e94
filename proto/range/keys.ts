import { LightedgeError } from "../errors.ts";

/**
 * Object keys of the sealed-range format (proto/range-format.md §Keys). Every key is computable
 * from (format version, network, range size, range index): readers never list.
 */

/** Storage format version; part of every key and of every object's header. */
export const FORMAT_VERSION = 1;

/** Blocks per sealed range unless a deployment configures otherwise (design.md). */
export const DEFAULT_RANGE_SIZE = 1000;

/** The projections stored per range, in the order their sections appear in the metadata. */
export type Projection = "shielded" | "full" | "nullifiers";
export const PROJECTIONS: readonly Projection[] = Object.freeze(["shielded", "full", "nullifiers"]);

/** Keys of one range's objects (relative to a store's prefix). */
export interface RangeKeys {
  meta: string;
  data: Record<Projection, string>;
}

/** Network names are key segments and a 16-byte header field: lowercase ASCII, 1–16 chars. */
const NETWORK_NAME = /^[a-z0-9-]{1,16}$/;

export function assertNetworkName(network: string): void {
  if (!NETWORK_NAME.test(network)) {
    throw new LightedgeError("bad-request", "range-keys", `invalid network name ${JSON.stringify(network)}`);
  }
}

/** Range sizes are u32 in the metadata; ≥ 1. */
export function assertRangeSize(rangeSize: number): void {
  if (!Number.isInteger(rangeSize) || rangeSize < 1 || rangeSize > 0xffff_ffff) {
    throw new LightedgeError("bad-request", "range-keys", `invalid range size ${rangeSize}`);
  }
}

/** Range indexes are non-negative integers. */
export function assertRangeIndex(index: number): void {
  if (!Number.isSafeInteger(index) || index < 0) {
    throw new LightedgeError("bad-request", "range-keys", `invalid range index ${index}`);
  }
}

/** Zero-padded so a lexicographic listing (origin bootstrap, audits) is in height order. */
export function rangeIndexName(index: number): string {
  return String(index).padStart(8, "0");
}

/** The ranges `firstIndex..lastIndex` of one network and range size: what an index level covers. */
export interface LevelSpan {
  network: string;
  rangeSize: number;
  firstIndex: number;
  lastIndex: number;
}

/**
 * `v1/<network>/r<size>/<index>/<FIRST>-<LAST>/<name>`: an object of one index level (the hash
 * index's `hash`, the history indexes' `txid` and `taddr`), FIRST and LAST as in range keys.
 */
export function levelObjectKey(level: LevelSpan, index: string, name: string): string {
  const span = `${rangeIndexName(level.firstIndex)}-${rangeIndexName(level.lastIndex)}`;
  return `${rangeFolder(level.network, level.rangeSize)}${index}/${span}/${name}`;
}

/** A shard number as the 4 lowercase hex digits that name its objects in a level's folder. */
export function shardName(shard: number): string {
  return shard.toString(16).padStart(4, "0");
}

/** `v1/<network>/r<size>/` — the folder of one range size's objects. */
export function rangeFolder(network: string, rangeSize: number): string {
  assertNetworkName(network);
  assertRangeSize(rangeSize);
  return `v${FORMAT_VERSION}/${network}/r${rangeSize}/`;
}

/**
 * Keys of range `index`. The final `.bin` extension matters: Cloudflare's CDN caches BIN files
 * by default, so the objects are cacheable behind a custom domain without a Cache Rule.
 */
export function rangeKeys(network: string, rangeSize: number, index: number): RangeKeys {
  assertRangeIndex(index);
  const base = `${rangeFolder(network, rangeSize)}${rangeIndexName(index)}`;
  return {
    meta: `${base}.meta.bin`,
    data: {
      shielded: `${base}.shielded.bin`,
      full: `${base}.full.bin`,
      nullifiers: `${base}.nullifiers.bin`,
    },
  };
}

/** `v1/<network>/head.json`: the one mutable object per network. */
export function headKey(network: string): string {
  assertNetworkName(network);
  return `v${FORMAT_VERSION}/${network}/head.json`;
}

/** The range holding `height`: ranges are aligned to multiples of the range size from height 0. */
export function rangeIndexOf(height: number, rangeSize: number): number {
  assertRangeSize(rangeSize);
  if (!Number.isSafeInteger(height) || height < 0) {
    throw new LightedgeError("bad-request", "range-keys", `invalid height ${height}`);
  }
  return Math.floor(height / rangeSize);
}

/** First and last height of range `index`, inclusive. */
export function rangeBounds(index: number, rangeSize: number): { first: number; last: number } {
  assertRangeSize(rangeSize);
  return { first: index * rangeSize, last: (index + 1) * rangeSize - 1 };
}
