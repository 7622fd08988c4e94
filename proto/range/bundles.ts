import { equalBytes } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";
import { type Projection, rangeFolder, rangeIndexName } from "./keys.ts";
import type { RangeEnds } from "./range-ends.ts";

/**
 * Range bundles (proto/range-format.md §Bundles): a projection's data objects of `ranges`
 * consecutive aligned ranges, stored once more as one object — their bytes concatenated. A reader
 * streaming many whole ranges (a wallet download) reads a bundle with one storage call instead of
 * `ranges`: at the edge each call is a subrequest, a response and a pipe (≈ 1.3 ms of workerd at
 * ordinary mainnet sizes, bench/README.md) and an R2 Class B read, the cost model's largest line.
 * A projection's bundle is stored only when its ranges total at most `maxBytes`: past a few MB the
 * per-call cost is lost in the transfer, and the writer holds one bundle in memory. Pure: keys,
 * the head field, which bundles exist; writers and readers do the I/O.
 */

/** Ranges per bundle unless a deployment says otherwise: 10,000 blocks at 1,000 per range. */
export const DEFAULT_BUNDLE_RANGES = 10;

/**
 * A projection's bundle is stored only up to this size: the 2022–23 spam era's ranges (≈ 42 MB
 * shielded each) are never bundled, the ordinary eras' (≈ 0.3 MB) always are.
 */
export const DEFAULT_BUNDLE_MAX_BYTES = 32 * 1024 * 1024;

/** The head's `bundles` field: which bundles are stored. */
export interface HeadBundles {
  /** Ranges per bundle (≥ 2). Bundle `b` holds ranges `b·ranges … (b+1)·ranges − 1`. */
  ranges: number;
  /** A projection's bundle is stored when its ranges' data objects total at most this many bytes. */
  maxBytes: number;
  /**
   * Every bundle lying wholly within the head's ranges and below range index `to` (a multiple of
   * `ranges`, at most the index past the head's last range) is stored, for each projection within
   * `maxBytes`.
   */
  to: number;
}

export function isHeadBundles(
  value: unknown,
  head: { firstHeight: number; rangeSize: number; rangeCount: number },
): value is HeadBundles {
  const b = value as HeadBundles;
  if (typeof b !== "object" || b === null) return false;
  const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  if (!isCount(b.ranges) || b.ranges < 2 || b.ranges > 1_000) return false;
  if (!isCount(b.maxBytes) || b.maxBytes < 1) return false;
  return (
    isCount(b.to) && b.to % b.ranges === 0 && b.to <= head.firstHeight / head.rangeSize + head.rangeCount
  );
}

/** `v1/<network>/r<size>/b<ranges>/NNNNNNNN.<projection>.bin`: bundle `bundle` of a projection. */
export function bundleKey(
  network: string,
  rangeSize: number,
  ranges: number,
  bundle: number,
  projection: Projection,
): string {
  return `${rangeFolder(network, rangeSize)}b${ranges}/${rangeIndexName(bundle)}.${projection}.bin`;
}

/** The field of a head cut back to the ranges below index `end` (origin bootstrap after a bad range). */
export function bundlesWithin(field: HeadBundles, end: number): HeadBundles {
  return { ...field, to: Math.min(field.to, Math.floor(end / field.ranges) * field.ranges) };
}

/** The first bundle a store starting at range `firstIndex` can hold whole. */
export function firstBundle(firstIndex: number, ranges: number): number {
  return Math.ceil(firstIndex / ranges);
}

/**
 * The bundle that holds range `index` and may be stored (lies within `firstIndex` and the head's
 * `to`), or undefined. Whether a projection's bundle was stored also depends on its size
 * (`bundleStored`).
 */
export function bundleOf(field: HeadBundles, firstIndex: number, index: number): number | undefined {
  const bundle = Math.floor(index / field.ranges);
  const first = bundle * field.ranges;
  return first >= firstIndex && first + field.ranges <= field.to ? bundle : undefined;
}

/** Whether a projection's bundle of `bytes` (its ranges' data objects together) is stored. */
export function bundleStored(field: HeadBundles, bytes: number): boolean {
  return bytes <= field.maxBytes;
}

/**
 * The ends of a bundle from the ends of its ranges (in order), which must chain: each range's
 * parent is the previous range's last hash (the writer refused ranges that do not, so a break is
 * damage). Its lengths are the sums of its ranges'.
 */
export function bundleEnds(ranges: readonly RangeEnds[]): RangeEnds {
  const first = ranges[0];
  if (first === undefined) throw new LightedgeError("internal", "range-bundles", "a bundle of no ranges");
  const lengths = { ...first.lengths };
  for (let k = 1; k < ranges.length; k++) {
    const prev = ranges[k - 1]!;
    const r = ranges[k]!;
    if (r.firstHeight !== prev.lastHeight + 1 || !equalBytes(r.parentWireHash, prev.lastWireHash)) {
      throw new LightedgeError(
        "corrupt",
        "range-bundles",
        `ranges ending at ${prev.lastHeight} and starting at ${r.firstHeight} do not chain`,
      );
    }
    lengths.shielded += r.lengths.shielded;
    lengths.full += r.lengths.full;
    lengths.nullifiers += r.lengths.nullifiers;
  }
  const last = ranges[ranges.length - 1]!;
  return {
    firstHeight: first.firstHeight,
    parentWireHash: first.parentWireHash,
    lastHeight: last.lastHeight,
    lastWireHash: last.lastWireHash,
    lengths,
  };
}
