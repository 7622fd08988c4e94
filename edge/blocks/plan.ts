import { LightedgeError } from "../../proto/errors.ts";
import type { RangeEnds } from "../../proto/range/index.ts";

/**
 * The Worker's subrequest budget per request when the deployment does not raise it: 10,000 on the
 * paid plan (workers-platform.md §1). `[limits] subrequests` in wrangler.toml raises it (up to
 * 10 M); SUBREQUEST_BUDGET tells the worker the figure it was given (a Worker cannot read it).
 */
export const DEFAULT_SUBREQUEST_BUDGET = 10_000;

/** Subrequests kept for everything but ranges: the head, the origin's tail and tip, retries. */
const RESERVED_SUBREQUESTS = 16;

/**
 * Storage calls one range may cost: its metadata (usually cached in the isolate) and the data read
 * (one ranged get; readers over HTTP add a HEAD only for a range that starts at the end).
 */
const CALLS_PER_RANGE = 3;

/** Most sealed range objects one request may touch within `budget` subrequests. */
export function maxRangesFor(budget: number): number {
  return Math.max(1, Math.floor((budget - RESERVED_SUBREQUESTS) / CALLS_PER_RANGE));
}

/**
 * Storage calls that `sealedRanges` planned ranges leave unused within `budget`: what buffered
 * reads may spend reading a large span in runs (sealed-segment.ts).
 */
export function spareCallsFor(budget: number, sealedRanges: number): number {
  return Math.max(0, budget - RESERVED_SUBREQUESTS - CALLS_PER_RANGE * sealedRanges);
}

/** Sealed ranges a plan's segments touch (a bundle segment touches several). */
export function sealedRangesOf(segments: readonly Segment[], rangeSize: number): number {
  let n = 0;
  for (const seg of segments) {
    if (seg.kind !== "sealed") continue;
    n +=
      Math.floor(Math.max(seg.from, seg.to) / rangeSize) -
      Math.floor(Math.min(seg.from, seg.to) / rangeSize) +
      1;
  }
  return n;
}

/** Calls beyond its planned share that a range costs when read in `runs` ranged reads (plus its metadata). */
export function extraCallsOf(runs: number): number {
  return Math.max(0, 1 + runs - CALLS_PER_RANGE);
}

/**
 * The cap under the default budget: 3,328 ranges, i.e. 3.3 M blocks at 1,000 per range — Sapling
 * activation to today's mainnet tip fits, 0..tip does not; wrangler.toml raises the budget to
 * 50,000 (16,661 ranges), so in practice there is no block cap (as Zaino: pepper-sync asks for
 * 158,853 blocks in one call).
 */
export const MAX_RANGES_PER_REQUEST = maxRangesFor(DEFAULT_SUBREQUEST_BUDGET);

/** A run of consecutive heights, listed in the order they are sent (from → to). */
export type Segment =
  | {
      kind: "sealed";
      /** The (first) range. */
      index: number;
      from: number;
      to: number;
      /** Ranges read from one stored bundle (bundle-segments.ts), with the ends of its ranges. */
      bundle?: { index: number; ranges: readonly RangeEnds[] };
    }
  /** Heights the store does not hold: the origin's tail (or, below the first range, its store). */
  | { kind: "origin"; from: number; to: number };

export interface SealedExtent {
  rangeSize: number;
  /** First sealed height (a range boundary). */
  firstHeight: number;
  /** Last sealed height; firstHeight − 1 when nothing is sealed. */
  tipHeight: number;
}

/**
 * Splits `start..end` (inclusive; descending when start > end, LWD#350) into per-range sealed
 * segments and origin segments, in sending order. Pure: no reads.
 */
export function planRange(
  start: number,
  end: number,
  sealed: SealedExtent,
  maxRanges: number = MAX_RANGES_PER_REQUEST,
): Segment[] {
  const lo = Math.min(start, end);
  const hi = Math.max(start, end);
  const segments: Segment[] = [];
  const sealedLo = Math.max(lo, sealed.firstHeight);
  const sealedHi = Math.min(hi, sealed.tipHeight);
  if (lo < sealed.firstHeight)
    segments.push({ kind: "origin", from: lo, to: Math.min(hi, sealed.firstHeight - 1) });
  if (sealedLo <= sealedHi) {
    const first = Math.floor(sealedLo / sealed.rangeSize);
    const last = Math.floor(sealedHi / sealed.rangeSize);
    if (last - first + 1 > maxRanges) {
      throw new LightedgeError(
        "too-large",
        "edge.plan",
        `the range spans ${last - first + 1} sealed ranges; at most ${maxRanges} per request`,
      );
    }
    for (let index = first; index <= last; index++) {
      const from = Math.max(sealedLo, index * sealed.rangeSize);
      const to = Math.min(sealedHi, (index + 1) * sealed.rangeSize - 1);
      segments.push({ kind: "sealed", index, from, to });
    }
  }
  if (hi > sealed.tipHeight)
    segments.push({ kind: "origin", from: Math.max(lo, sealed.tipHeight + 1), to: hi });
  const merged = mergeOrigin(segments);
  if (start <= end) return merged;
  return merged.reverse().map((s) => ({ ...s, from: s.to, to: s.from }));
}

/** Adjacent origin segments (nothing sealed between them) become one origin call. */
function mergeOrigin(segments: Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const s of segments) {
    const prev = out[out.length - 1];
    if (prev?.kind === "origin" && s.kind === "origin" && prev.to + 1 === s.from) prev.to = s.to;
    else out.push({ ...s });
  }
  return out;
}

/**
 * A range cut at the tip in sending order, as lightwalletd streams it (common/common.go
 * GetBlockRange: heights in order until the first it cannot get): ascending keeps start..tip;
 * descending from above the tip has no first block, so nothing is left (undefined).
 */
export function clampToTip(
  start: number,
  end: number,
  tip: number,
): { start: number; end: number } | undefined {
  if (start > tip) return undefined;
  return { start, end: Math.min(end, tip) };
}
