import { compareFigures, type Measured, measure } from "../lib/measure.ts";
import { rangeTargets, relayFigures, servedBy } from "../lib/targets.ts";
import type { Scenario } from "../scenario.ts";

const PER_REQUEST = 10_000;

/**
 * A wallet's first sync: one client, every sealed block from the first to the tip, 10,000 per
 * request in order — at the edge, at the origin and from the static server (same bytes).
 */
export const scenario: Scenario = {
  name: "wallet-download",
  async run(ctx) {
    const scan = await ctx.fixtures.scan();
    const windows: { start: number; end: number }[] = [];
    for (let h = scan.firstHeight; h <= scan.sealedTip; h += PER_REQUEST)
      windows.push({ start: h, end: Math.min(scan.sealedTip, h + PER_REQUEST - 1) });
    const results: Partial<Record<string, Measured>> = {};
    const targets = await rangeTargets(ctx.fixtures);
    for (const t of targets) {
      results[t.name] = await measure(
        {
          baseUrl: t.baseUrl,
          requests: windows.map((w) => t.request(w.start, w.end)),
          clients: 1,
          requestsPerClient: windows.length,
          countFrames: t.countFrames,
        },
        t.pids,
      );
      const m = results[t.name]!;
      ctx.log(
        `${t.name}: ${m.blocks} blocks in ${m.elapsedSec.toFixed(2)} s, ${m.blocksPerSec} blocks/s, ${m.errors} errors`,
      );
    }
    const base = results.static!;
    ctx.report.figures["static.walletDownload.seconds"] = base.elapsedSec;
    for (const { name: tier } of servedBy(targets)) {
      const m = results[tier]!;
      Object.assign(ctx.report.figures, compareFigures(`${tier}.walletDownload`, m, base));
      Object.assign(ctx.report.figures, relayFigures(tier, `${tier}.walletDownload`, m, results));
      ctx.report.figures[`${tier}.walletDownload.seconds`] = Math.round(m.elapsedSec * 100) / 100;
      ctx.report.rows.push({
        scenario: `wallet download ${tier}`,
        metric: `${m.blocks} blocks, seconds`,
        value: m.elapsedSec,
        baseline: base.elapsedSec,
        note: `×${(m.blocksPerSec / base.blocksPerSec).toFixed(2)} static throughput, ${m.errors} errors`,
      });
    }
  },
};
