import { compareFigures, type Measured, measure } from "../lib/measure.ts";
import type { Target } from "../lib/targets.ts";
import { rangeTargets, relayFigures, servedBy, sizeName, windowsFor } from "../lib/targets.ts";
import type { Scenario, ScenarioContext } from "../scenario.ts";

/**
 * Closed loop: N clients, each on its own connection with one request outstanding, for the level's
 * duration, asking for 10,000-, 1,000- and 100-block ranges at seeded starts: blocks/s, p50/p99 and
 * errors at the edge and the origin, beside the static server at the same level in the same run.
 */
export const scenario: Scenario = {
  name: "concurrency",
  async run(ctx) {
    const targets = await rangeTargets(ctx.fixtures);
    const errorsAt = new Map<string, number>();
    // 1,000-block requests are what wallets' batch sync asks for (zcash_client_backend scans in
    // batches of hundreds to a thousand blocks); they run at the 100-block levels.
    for (const [label, size] of [
      ["r10k", 10_000],
      ["r1k", 1000],
      ["r100", 100],
    ] as const) {
      const { capped, windows } = await windowsFor(ctx.fixtures, 11, 64, size);
      const bars: { label: string; value: number }[] = [];
      for (const clients of ctx.settings.levels[label === "r1k" ? "r100" : label]) {
        const results = await level(ctx, targets, windows, clients, size <= 100 ? 1 : 0);
        for (const t of targets)
          bars.push({ label: `${t.name} ×${clients}`, value: results[t.name]!.blocksPerSec });
        const base = results.static!;
        ctx.report.figures[`static.concurrency${clients}.${label}.blocksPerSec`] = base.blocksPerSec;
        for (const { name: tier } of servedBy(targets)) {
          const m = results[tier]!;
          const key = `${tier}.concurrency${clients}`;
          Object.assign(ctx.report.figures, compareFigures(`${key}.${label}`, m, base));
          Object.assign(ctx.report.figures, relayFigures(tier, `${key}.${label}`, m, results));
          errorsAt.set(key, (errorsAt.get(key) ?? 0) + m.errors);
          if (m.errors > 0)
            ctx.report.notes.push(`${key}.${label}: ${m.errors} errors, e.g. ${m.errorSamples[0]}`);
          ctx.report.rows.push({
            scenario: `concurrency ${tier}`,
            metric: `${clients} clients × ${sizeName(capped)} blocks: blocks/s`,
            value: m.blocksPerSec,
            baseline: base.blocksPerSec,
            note: `×${(m.blocksPerSec / base.blocksPerSec).toFixed(2)} static, ${m.requests} completed, p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms, ${m.errors} errors`,
          });
        }
      }
      ctx.report.charts.push({
        file: `concurrency-${label}.svg`,
        title: `Closed loop, ${sizeName(capped)}-block GetBlockRange: blocks/s by clients`,
        unit: "blocks/s",
        bars,
      });
    }
    for (const [key, errors] of errorsAt) ctx.report.figures[`${key}.errors`] = errors;
  },
};

async function level(
  ctx: ScenarioContext,
  targets: Target[],
  windows: { start: number; end: number }[],
  clients: number,
  warmup: number,
): Promise<Partial<Record<Target["name"], Measured>>> {
  const out: Partial<Record<Target["name"], Measured>> = {};
  for (const t of targets) {
    const m = await measure(
      {
        baseUrl: t.baseUrl,
        requests: windows.map((w) => t.request(w.start, w.end)),
        clients,
        warmup,
        durationMs: ctx.settings.levelSec * 1000,
        countFrames: t.countFrames,
      },
      t.pids,
    );
    out[t.name] = m;
    ctx.log(
      `${t.name} ×${clients} (${windows[0]!.end - windows[0]!.start + 1} blocks): ${m.blocksPerSec} blocks/s, ` +
        `${m.requests} completed, p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms, ${m.errors} errors, CPU ${m.serverCpuSec} s`,
    );
  }
  return out;
}
