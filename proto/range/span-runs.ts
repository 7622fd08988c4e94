/**
 * Most bytes of one range's stored span a read that buffers it holds at once (the edge's
 * SPAN_READ_BYTES unless set; the origin's per-block streams): a larger span is read in runs. A
 * 2022–23 spam-era mainnet range is ≈ 42 MB shielded (89 MB in the scale generator's shape).
 * Under Miniflare (2026-12-07, Worker alone, one generated 89 MB range sent descending), the
 * isolate's memory peaked at 91 MiB read whole, and at 43 / 49 / 52 / 59 MiB in runs of 2 / 4 /
 * 8 / 16 MiB; three such ranges at once at 178 MiB whole, 66 / 87 / 93–101 / 133 MiB in runs (what
 * V8 had not yet collected; each request holds one run). Runs were no slower (0.66 s against
 * 0.9–1.6 s for one range: a run is read while the one before is sent). 4 MiB: an ordinary range
 * is one read or a few; a mainnet spam-era one ≈ 11 instead of one (at the edge, paid from the
 * subrequests its request's plan leaves unused: edge/blocks/plan.ts spareCallsFor).
 */
export const DEFAULT_SPAN_READ_BYTES = 4 * 1024 * 1024;

/** A run of consecutive heights in sending order (`from` is sent first; descending when from > to). */
export interface Run {
  from: number;
  to: number;
}

/**
 * Splits `from..to` (one range, sending order) into consecutive runs whose stored frames each
 * span at most `maxBytes`, in sending order; a frame larger than that is a run of its own. Pure:
 * `offsets` are the projection's frame offsets from the range's metadata (blockCount + 1 entries,
 * `firstHeight`'s frame first). A read that buffers a span (the edge's descending, re-projected and
 * JSON ranges; the origin's per-block streams) reads one run at a time, so what it holds is bounded
 * by `maxBytes`, not by the range: a 2022–23 spam-era range is ≈ 42 MB shielded on mainnet, and a
 * Worker has 128 MB for every request it runs.
 */
export function spanRuns(
  offsets: ArrayLike<number>,
  firstHeight: number,
  from: number,
  to: number,
  maxBytes: number,
): Run[] {
  const step = from <= to ? 1 : -1;
  const size = (h: number) => offsets[h - firstHeight + 1]! - offsets[h - firstHeight]!;
  const runs: Run[] = [];
  let run: Run = { from, to: from };
  let bytes = size(from);
  for (let h = from + step; h !== to + step; h += step) {
    const n = size(h);
    if (bytes + n > maxBytes) {
      runs.push(run);
      run = { from: h, to: h };
      bytes = n;
    } else {
      run.to = h;
      bytes += n;
    }
  }
  runs.push(run);
  return runs;
}
