/** Percentile (nearest-rank) of a list of numbers; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** p50/p99 summary in milliseconds from durations in milliseconds. */
export function latencySummary(ms: readonly number[]): { p50Ms: number; p99Ms: number; n: number } {
  return { p50Ms: round(percentile(ms, 50)), p99Ms: round(percentile(ms, 99)), n: ms.length };
}

/** Rounds to 3 significant decimals for reports. */
export function round(x: number, digits = 3): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Deterministic PRNG so "seeded random starts" repeat across runs: the fuzzer's mulberry32. */
export { createRng as seededRandom } from "../../origin/chain/fuzz.ts";

/** RSS after warm-up (first fifth of the samples, ≥ 1) and at the end, each a median of three. */
export function rssGrowth(series: number[]): { afterWarmupMiB: number; endMiB: number; growthMiB: number } {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const warm = Math.max(1, Math.floor(series.length / 5));
  const afterWarmupMiB = median(series.slice(warm, warm + 3));
  const endMiB = median(series.slice(-3));
  return { afterWarmupMiB, endMiB, growthMiB: round(endMiB - afterWarmupMiB, 1) };
}
