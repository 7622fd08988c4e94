import { compareFigures, type Measured, measure, sameBytesNote } from "../lib/measure.ts";
import { rangeTargets, relayFigures, servedBy, sizeName, windowsFor } from "../lib/targets.ts";
import type { Scenario } from "../scenario.ts";

/**
 * GetBlockRange of 10 … 100,000 blocks at seeded random starts, one client, sequential requests:
 * p50/p99 and blocks/s at the edge and the origin, beside the static server sending the same
 * bytes in the same run; server CPU per byte against the static server's.
 */
export const scenario: Scenario = {
  name: "range-sizes",
  async run(ctx) {
    const targets = await rangeTargets(ctx.fixtures);
    const bars: { label: string; value: number }[] = [];
    for (const size of ctx.settings.rangeSizes) {
      const budget = ctx.quick ? 8_000 : 150_000; // blocks per target and size
      const count = Math.max(3, Math.min(200, Math.floor(budget / size)));
      const { capped, windows } = await windowsFor(ctx.fixtures, size, count, size);
      const key = `range${sizeName(size)}`;
      const results: Partial<Record<string, Measured>> = {};
      for (const t of targets) {
        results[t.name] = await measure(
          {
            baseUrl: t.baseUrl,
            requests: windows.map((w) => t.request(w.start, w.end)),
            clients: 1,
            warmup: 1,
            requestsPerClient: windows.length,
            countFrames: t.countFrames,
          },
          t.pids,
        );
        bars.push({ label: `${t.name} ${sizeName(capped)}`, value: results[t.name]!.blocksPerSec });
      }
      const base = results.static!;
      ctx.report.figures[`static.${key}.blocksPerSec`] = base.blocksPerSec;
      ctx.report.figures[`static.${key}.blocksPerServerCpuSec`] = base.blocksPerServerCpuSec;
      for (const { name: tier } of servedBy(targets)) {
        const m = results[tier]!;
        Object.assign(ctx.report.figures, compareFigures(`${tier}.${key}`, m, base));
        Object.assign(ctx.report.figures, relayFigures(tier, `${tier}.${key}`, m, results));
        const mismatch = sameBytesNote(`${tier}.${key}`, m, base);
        if (mismatch) ctx.report.notes.push(mismatch);
        ctx.report.rows.push({
          scenario: `range ${tier}`,
          metric: `${sizeName(capped)} blocks: blocks/s`,
          value: m.blocksPerSec,
          baseline: base.blocksPerSec,
          note: `×${(m.blocksPerSec / base.blocksPerSec).toFixed(2)} static, CPU/byte ×${(m.cpuSecPerGB / base.cpuSecPerGB).toFixed(2)}, p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms, ${m.errors} errors`,
        });
        ctx.log(
          `${tier} ${capped} blocks ×${windows.length}: ${m.blocksPerSec} blocks/s (static ${base.blocksPerSec}), ` +
            `${m.MBps} MB/s, p50 ${m.p50Ms} ms, CPU ${m.serverCpuSec} s (static ${base.serverCpuSec} s), ${m.errors} errors`,
        );
      }
      if (capped < size) ctx.report.notes.push(`${key}: capped at ${capped} blocks (the sealed chain)`);
    }
    ctx.report.charts.push({
      file: "range-throughput.svg",
      title: "GetBlockRange, one client: edge and origin vs static (same bytes)",
      unit: "blocks/s",
      bars,
    });
  },
};
