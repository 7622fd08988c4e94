import { LightedgeError } from "../../proto/errors.ts";

/**
 * Most sealed range objects one request may touch. A Worker gets 10,000 subrequests per request by
 * default (workers-platform.md §1), and each range costs up to three storage calls: its metadata
 * (usually cached in the isolate) and the data read (one ranged get; readers over HTTP add a HEAD
 * only for a range that starts at the end).
 * 3,000 ranges stay under the budget with room for the head and the origin. At 1,000 blocks per
 * range that is 3,000,000 blocks, nearly the whole chain, so in practice there is no block cap
 * (as Zaino: pepper-sync asks for 158,853 blocks in one call).
 */
export const MAX_RANGES_PER_REQUEST = 3_000;

/** A run of consecutive heights, listed in the order they are sent (from → to). */
export type Segment =
  | { kind: "sealed"; index: number; from: number; to: number }
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
export function planRange(start: number, end: number, sealed: SealedExtent): Segment[] {
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
    if (last - first + 1 > MAX_RANGES_PER_REQUEST) {
      throw new LightedgeError(
        "too-large",
        "edge.plan",
        `the range spans ${last - first + 1} sealed ranges; at most ${MAX_RANGES_PER_REQUEST} per request`,
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
