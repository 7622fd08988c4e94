import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runLoad } from "../lib/load.ts";
import { createCpuMeter } from "../lib/proc-cpu.ts";
import { spawnStaticServer } from "../lib/static-server.ts";
import { round } from "../lib/stats.ts";
import type { Scenario } from "../scenario.ts";

/**
 * What this machine can serve at all: node:http streaming a file to 1 and 16 clients. Every other
 * scenario runs its own baseline on its own bytes; this one checks the harness end to end.
 */
export const scenario: Scenario = {
  name: "static-baseline",
  async run(ctx) {
    const size = (ctx.quick ? 8 : 64) << 20;
    const file = join(ctx.tmp, "baseline.bin");
    writeFileSync(file, Buffer.alloc(size, 1));
    const server = await spawnStaticServer(file);
    try {
      for (const clients of [1, 16]) {
        const cpu = createCpuMeter([server.pid]);
        cpu.start();
        const r = await runLoad({
          baseUrl: server.url,
          requests: [{ method: "GET", path: "/", headers: {} }],
          clients,
          durationMs: ctx.quick ? 1500 : 10_000,
        });
        const cpuSec = cpu.stop();
        const gbps = r.bytes / r.elapsedSec / 1e9;
        ctx.report.figures[`static.c${clients}.GBps`] = round(gbps);
        ctx.report.figures[`static.c${clients}.GBperCpuSec`] = round(r.bytes / 1e9 / Math.max(cpuSec, 1e-3));
        ctx.report.figures[`static.c${clients}.errors`] = r.errors;
        ctx.report.rows.push({
          scenario: "static baseline",
          metric: `GB/s, ${clients} client(s)`,
          value: gbps,
        });
        ctx.log(
          `static c${clients}: ${gbps.toFixed(2)} GB/s, ${r.errors} errors, server CPU ${cpuSec.toFixed(2)} s`,
        );
      }
    } finally {
      await server.stop();
    }
  },
};
