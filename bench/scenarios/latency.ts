import type { LoadRequest } from "../lib/load.ts";
import { runLoad } from "../lib/load.ts";
import { measure } from "../lib/measure.ts";
import { unaryCalls } from "../lib/rpc-requests.ts";
import { round } from "../lib/stats.ts";
import { serverTiers, type Tier } from "../lib/targets.ts";
import type { Scenario, ScenarioContext } from "../scenario.ts";

/** Closed-loop clients of the GetTreeState throughput probe (issue 10: ≥ 1,000 req/s at the edge). */
const TREESTATE_CLIENTS = 16;

const HEALTHZ: LoadRequest = { method: "GET", path: "/healthz", headers: {} };

/**
 * Unary RPCs, one client, `calls` sequential calls each after a warm-up (connection and caches
 * warm, as a wallet's second call sees them): p50/p99 at the edge under each runtime (Connect over
 * HTTP/1.1) and at the origin (the same requests to its HTTP/1.1 listener). Height-taking RPCs
 * (GetBlock, GetTreeState, …) rotate over seeded random sealed heights. Then GetTreeState
 * requests/s: 16 closed-loop clients for a few seconds, since LRZ wallets call it once per scan
 * batch and every published server tops out near 80 req/s (issue 10).
 */
export const scenario: Scenario = {
  name: "latency",
  async run(ctx) {
    const scan = await ctx.fixtures.scan();
    const calls = unaryCalls(7, scan.firstHeight, scan.sealedTip);
    const tiers = await serverTiers(ctx.fixtures);
    for (const tier of tiers) {
      // The runtime's own floor, in the same run: GET /healthz answers "ok" from the isolate (its
      // head lookups are cached), so GetLatestBlock's p50 minus this is the RPC's own cost, and
      // edge.healthz − edgeMiniflare.healthz is wrangler dev's proxy hop.
      if (tier.name !== "origin") await sequential(ctx, tier, "healthz", [HEALTHZ]);
      for (const [rpc, requests] of Object.entries(calls)) await sequential(ctx, tier, rpc, requests);
    }
    for (const tier of tiers) await treeStateRps(ctx, tier, calls.getTreeState!);
  },
};

async function sequential(ctx: ScenarioContext, tier: Tier, rpc: string, requests: LoadRequest[]) {
  const r = await runLoad({
    baseUrl: tier.baseUrl,
    requests,
    clients: 1,
    warmup: 20,
    requestsPerClient: ctx.settings.calls,
  });
  const f = ctx.report.figures;
  f[`${tier.name}.${rpc}.p50Ms`] = r.p50Ms;
  f[`${tier.name}.${rpc}.p99Ms`] = r.p99Ms;
  if (r.errors > 0) {
    f[`${tier.name}.${rpc}.errors`] = r.errors;
    ctx.report.notes.push(`${tier.name} ${rpc}: ${r.errors} errors, e.g. ${r.errorSamples[0]}`);
  }
  const target =
    rpc === "getLatestBlock" || rpc === "getLightdInfo"
      ? " (target p50 ≤ 1)"
      : rpc === "getTreeState"
        ? " (target p50 ≤ 5)"
        : "";
  ctx.report.rows.push({
    scenario: `latency ${tier.name}`,
    metric: `${rpc} p50 / p99 ms`,
    value: r.p50Ms,
    note: `p99 ${r.p99Ms} ms${target}`,
  });
  ctx.log(`${tier.name} ${rpc}: p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, ${r.errors} errors`);
}

async function treeStateRps(ctx: ScenarioContext, tier: Tier, requests: LoadRequest[]) {
  const seconds = Math.min(5, ctx.settings.levelSec);
  const m = await measure(
    { baseUrl: tier.baseUrl, requests, clients: TREESTATE_CLIENTS, warmup: 2, durationMs: seconds * 1000 },
    tier.pids,
  );
  const rps = round(m.requests / m.elapsedSec, 0);
  const key = `${tier.name}.getTreeState`;
  const f = ctx.report.figures;
  f[`${key}.rps`] = rps;
  f[`${key}.rpsP50Ms`] = m.p50Ms;
  f[`${key}.rpsP99Ms`] = m.p99Ms;
  f[`${key}.rpsErrors`] = m.errors;
  // Server CPU per answer (all of the tier's server processes), the cost side of the req/s figure.
  f[`${key}.serverCpuMsPerReq`] = round((m.serverCpuSec * 1000) / Math.max(m.requests, 1));
  if (m.errors > 0) ctx.report.notes.push(`${key}.rps: ${m.errors} errors, e.g. ${m.errorSamples[0]}`);
  ctx.report.rows.push({
    scenario: `latency ${tier.name}`,
    metric: `getTreeState req/s, ${TREESTATE_CLIENTS} clients (target ≥ 1,000)`,
    value: rps,
    note: `${seconds} s closed loop, p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms, ${f[`${key}.serverCpuMsPerReq`]} server CPU ms/req, ${m.errors} errors`,
  });
  ctx.log(`${key}: ${rps} req/s ×${TREESTATE_CLIENTS}, p50 ${m.p50Ms} ms, ${m.errors} errors`);
}
