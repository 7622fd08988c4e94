import { peakRssMiB, processCpuSeconds, processTree } from "./proc-cpu.ts";

/**
 * Samples a process tree's CPU seconds and peak RSS until it exits: /proc forgets a process the
 * moment Node reaps it, so the last sample (≤ `everyMs` before exit) is what a child that runs to
 * completion (e.g. `lightedge index --exit-when-synced`) is measured by.
 */
export function watchProcess(pid: number, everyMs = 100) {
  const cpu = new Map<number, number>();
  let rss = 0;
  const sample = () => {
    for (const p of processTree(pid)) {
      const c = processCpuSeconds(p);
      if (c > 0) cpu.set(p, c);
      rss = Math.max(rss, p === pid ? peakRssMiB(p) : 0);
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    /** Stops sampling; CPU seconds of the tree so far and the root's peak RSS (MiB). */
    stop(): { cpuSec: number; peakRssMiB: number } {
      sample();
      clearInterval(timer);
      return { cpuSec: [...cpu.values()].reduce((a, b) => a + b, 0), peakRssMiB: rss };
    },
  };
}
