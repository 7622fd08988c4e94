import { measure } from "../lib/measure.ts";
import { createCpuMeter } from "../lib/proc-cpu.ts";
import { round } from "../lib/stats.ts";
import { rangeTargets, windowsFor } from "../lib/targets.ts";
import type { Scenario } from "../scenario.ts";

/**
 * Blocks served per CPU-second of all server-side processes (edge: wrangler + workerd + local R2,
 * and the origin and dev node it is configured with; origin: origin + dev node), 10,000-block
 * requests, one client and 16 clients — the figure the published anchors use
 * (ztreamer 722,000–749,000 single client / 149,000–187,000 concurrent; lightwalletd 16,000–44,000).
 */
export const scenario: Scenario = {
  name: "efficiency",
  async run(ctx) {
    const targets = await rangeTargets(ctx.fixtures);
    const { windows } = await windowsFor(ctx.fixtures, 23, 32, 10_000);
    const bars: { label: string; value: number }[] = [];
    // What the server trees burn with no load (origin polling the node, wrangler's watchers): it is
    // inside every figure below, so it is reported to read them by.
    for (const t of targets) {
      const idle = createCpuMeter(t.pids);
      idle.start();
      await new Promise((r) => setTimeout(r, 2000));
      ctx.report.figures[`${t.name}.idleServerCpuPerSec`] = round(idle.stop() / 2);
    }
    for (const clients of [1, 16]) {
      const suffix = clients === 1 ? "" : ".concurrent16";
      for (const t of targets) {
        const m = await measure(
          {
            baseUrl: t.baseUrl,
            requests: windows.map((w) => t.request(w.start, w.end)),
            clients,
            warmup: clients === 1 ? 1 : 0,
            durationMs: Math.max(1.5, ctx.settings.levelSec / 2) * 1000,
            countFrames: t.countFrames,
          },
          t.pids,
        );
        ctx.report.figures[`${t.name}${suffix}.blocksPerServerCpuSec`] = m.blocksPerServerCpuSec;
        bars.push({ label: `${t.name} ×${clients}`, value: m.blocksPerServerCpuSec });
        ctx.report.rows.push({
          scenario: `efficiency ${t.name}`,
          metric: `blocks per server CPU-s, ${clients} client(s)`,
          value: m.blocksPerServerCpuSec,
          note: `${m.blocks} blocks, ${m.serverCpuSec} CPU s, ${m.errors} errors`,
        });
        ctx.log(
          `${t.name} ×${clients}: ${m.blocksPerServerCpuSec} blocks per server CPU-s (${m.serverCpuSec} CPU s)`,
        );
      }
    }
    ctx.report.charts.push({
      file: "efficiency.svg",
      title: "Blocks per server CPU-second, 10,000-block requests",
      unit: "blocks/CPU-s",
      bars,
    });
  },
};
