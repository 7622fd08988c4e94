import { runLoad } from "../lib/load.ts";
import { unaryCalls } from "../lib/rpc-requests.ts";
import type { Scenario } from "../scenario.ts";

/**
 * Unary RPCs, one client, `calls` sequential calls each after a warm-up (connection and caches
 * warm, as a wallet's second call sees them): p50/p99 at the edge (Connect over HTTP/1.1 to
 * wrangler dev) and at the origin (the same requests to its HTTP/1.1 listener).
 */
export const scenario: Scenario = {
  name: "latency",
  async run(ctx) {
    const scan = await ctx.fixtures.scan();
    const tiers = {
      edge: (await ctx.fixtures.edge()).url,
      origin: (await ctx.fixtures.origin()).url,
    };
    const calls = unaryCalls(7, scan.firstHeight, scan.sealedTip);
    for (const [tier, baseUrl] of Object.entries(tiers)) {
      for (const [rpc, requests] of Object.entries(calls)) {
        const r = await runLoad({
          baseUrl,
          requests,
          clients: 1,
          warmup: 20,
          requestsPerClient: ctx.settings.calls,
        });
        const f = ctx.report.figures;
        f[`${tier}.${rpc}.p50Ms`] = r.p50Ms;
        f[`${tier}.${rpc}.p99Ms`] = r.p99Ms;
        if (r.errors > 0) {
          f[`${tier}.${rpc}.errors`] = r.errors;
          ctx.report.notes.push(`${tier} ${rpc}: ${r.errors} errors, e.g. ${r.errorSamples[0]}`);
        }
        ctx.report.rows.push({
          scenario: `latency ${tier}`,
          metric: `${rpc} p50 / p99 ms`,
          value: r.p50Ms,
          note: `p99 ${r.p99Ms} ms${rpc === "getLatestBlock" || rpc === "getLightdInfo" ? " (target p50 ≤ 1)" : ""}`,
        });
        ctx.log(`${tier} ${rpc}: p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, ${r.errors} errors`);
      }
    }
  },
};
