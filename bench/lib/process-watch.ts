import { peakRssMiB, processCpuSeconds, processTree, rssMiB } from "./proc-cpu.ts";

/**
 * Samples a process tree's CPU seconds and peak RSS until it exits: /proc forgets a process the
 * moment Node reaps it, so the last sample (≤ `everyMs` before exit) is what a child that runs to
 * completion (e.g. `lightedge index --exit-when-synced`) is measured by. The root's resident
 * memory is also kept every `seriesEveryMs`, so a run can show it stays flat, not only its peak.
 */
export function watchProcess(pid: number, everyMs = 100, seriesEveryMs = 5_000) {
  const cpu = new Map<number, number>();
  let rss = 0;
  const series: number[] = [];
  let lastSeries = 0;
  const sample = () => {
    const now = performance.now();
    if (now - lastSeries >= seriesEveryMs) {
      const current = rssMiB(pid);
      if (current > 0) series.push(Math.round(current * 10) / 10);
      lastSeries = now;
    }
    for (const p of processTree(pid)) {
      const c = processCpuSeconds(p);
      if (c > 0) cpu.set(p, c);
      rss = Math.max(rss, p === pid ? peakRssMiB(p) : 0);
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    /** Stops sampling; CPU seconds of the tree so far, the root's peak RSS and its RSS series (MiB). */
    stop(): { cpuSec: number; peakRssMiB: number; rssSeriesMiB: number[] } {
      sample();
      clearInterval(timer);
      return { cpuSec: [...cpu.values()].reduce((a, b) => a + b, 0), peakRssMiB: rss, rssSeriesMiB: series };
    },
  };
}
