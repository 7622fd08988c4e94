/** Events per second over a sliding window (for blocks/s and the progress bar's ETA). */
export interface RateMeter {
  add(count: number): void;
  rate(): number;
}

export function createRateMeter(windowMs = 10_000, now: () => number = Date.now): RateMeter {
  const samples: { at: number; count: number }[] = [];
  const trim = (t: number) => {
    while (samples.length > 0 && samples[0]!.at < t - windowMs) samples.shift();
  };
  return {
    add(count) {
      const t = now();
      samples.push({ at: t, count });
      trim(t);
    },
    rate() {
      const t = now();
      trim(t);
      if (samples.length === 0) return 0;
      const total = samples.reduce((sum, s) => sum + s.count, 0);
      const span = Math.max(1_000, t - samples[0]!.at);
      return (total * 1000) / span;
    },
  };
}
