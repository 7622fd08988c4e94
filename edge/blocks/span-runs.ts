/** A run of consecutive heights in sending order (`from` is sent first; descending when from > to). */
export interface Run {
  from: number;
  to: number;
}

/**
 * Splits `from..to` (one range, sending order) into consecutive runs whose stored frames each
 * span at most `maxBytes`, in sending order; a frame larger than that is a run of its own. Pure:
 * `offsets` are the projection's frame offsets from the range's metadata (blockCount + 1 entries,
 * `firstHeight`'s frame first). A buffered read (descending, re-projected, JSON) reads one run at
 * a time, so what it holds is bounded by `maxBytes`, not by the range: a 2022–23 spam-era range is
 * ≈ 42 MB shielded on mainnet, and a Worker has 128 MB for every request it runs.
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
