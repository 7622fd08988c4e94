import { readFileSync } from "node:fs";
import { EDGE_TIERS } from "../lib/edge-fixture.ts";
import { connectInspector, isolateHeapMiB } from "../lib/isolate-inspector.ts";
import type { LoadRequest, LoadResult } from "../lib/load.ts";
import { runLoad, sumCauses } from "../lib/load.ts";
import { processTree, rssMiB } from "../lib/proc-cpu.ts";
import { randomWindows, rangeRequest, unaryCalls } from "../lib/rpc-requests.ts";
import { round, rssGrowth } from "../lib/stats.ts";
import type { Scenario } from "../scenario.ts";

/** Clients per server, as in the outside check that saw workerd grow from 160 to 749 MB. */
const CLIENTS = 200;
/** Of which stream clients (GetBlockRange); the rest call unary RPCs. */
const STREAM_CLIENTS = 140;
/** How often the servers' resident memory is sampled. */
const SAMPLE_EVERY_MS = 5_000;

/**
 * Soak: `soakSec` (default 10 min; `--soak-seconds S` to shorten) of mixed load, 200 closed-loop
 * clients on the edge (wrangler dev, what `lightedge edge` runs) and 200 on the origin at the same
 * time (per server 140 stream clients and 60 unary clients): 100-block and 1,000-block GetBlockRange streams (gRPC-web) interleaved with the unary RPCs
 * wallets call (GetLatestBlock, GetLightdInfo, GetBlock, GetBlockNullifiers, GetTreeState,
 * GetLatestTreeState; Connect). RSS of the edge's workerd processes and of the origin is sampled
 * every 5 s; growth is the end minus the level after warm-up (the first fifth of the run, at least
 * one sample), each a median of three samples, so one GC pause does not decide it. A server that
 * keeps memory flat after warm-up shows ≈ 0.
 *
 * Runs only when named (`npm run bench -- --only soak`): never in the default run or `--quick`.
 */
export const scenario: Scenario = {
  name: "soak",
  async run(ctx) {
    const seconds = ctx.settings.soakSec;
    const scan = await ctx.fixtures.scan();
    // wrangler dev (`soak.edge.*`, what `lightedge edge` runs: its workerd also holds the local R2
    // simulator) unless `--edge-runtime miniflare` picks the Worker alone (`soak.edgeMiniflare.*`:
    // the store in its own process, so the workerd RSS is the isolate's and the runtime's only).
    const runtime = ctx.settings.edgeRuntimes.length === 1 ? ctx.settings.edgeRuntimes[0]! : "wrangler";
    const edge = await ctx.fixtures.edge(runtime, { inspect: runtime === "miniflare" });
    const origin = await ctx.fixtures.origin();
    const { streams, unaries } = mixedRequests(scan.firstHeight, scan.sealedTip);
    const servers = [
      { name: EDGE_TIERS[runtime], baseUrl: edge.url, rss: () => treeRss(edge.pid, /workerd/) },
      { name: "origin", baseUrl: origin.url, rss: () => treeRss(origin.pid) },
    ];
    const samples = servers.map(() => [] as number[]);
    const sample = () => {
      for (const [i, s] of servers.entries()) samples[i]!.push(s.rss());
    };
    // Miniflare: the isolate's own V8 heap beside workerd's RSS (what a deployed Worker is limited
    // on), sampled with the RSS, and live after a full GC at the end of warm-up and at the end.
    const isolate =
      edge.inspectorPort === undefined ? undefined : await isolateHeapSampler(edge.inspectorPort);
    sample();
    const timer = setInterval(() => {
      sample();
      isolate?.sample();
    }, SAMPLE_EVERY_MS);
    const warmTimer = setTimeout(() => isolate?.live("warm"), (seconds * 1000) / 5 + SAMPLE_EVERY_MS);
    ctx.log(`soak: ${CLIENTS} clients on each of edge and origin for ${seconds} s`);
    let results: LoadResult[];
    try {
      // Per server at once: stream clients (frames parsed, end status checked) and unary clients.
      results = await Promise.all(
        servers.map(async (s) => {
          const durationMs = seconds * 1000;
          const [a, b] = await Promise.all([
            runLoad({
              baseUrl: s.baseUrl,
              requests: streams,
              clients: STREAM_CLIENTS,
              durationMs,
              countFrames: true,
            }),
            runLoad({ baseUrl: s.baseUrl, requests: unaries, clients: CLIENTS - STREAM_CLIENTS, durationMs }),
          ]);
          return merged(a, b);
        }),
      );
    } finally {
      clearInterval(timer);
      clearTimeout(warmTimer);
    }
    sample();
    await isolate?.live("end");
    const f = ctx.report.figures;
    let errors = 0;
    servers.forEach((s, i) => {
      const r = results[i]!;
      const series = samples[i]!;
      const growth = rssGrowth(series);
      errors += r.errors;
      f[`soak.${s.name}.rssGrowthMiB`] = growth.growthMiB;
      f[`soak.${s.name}.rssAfterWarmupMiB`] = growth.afterWarmupMiB;
      f[`soak.${s.name}.rssEndMiB`] = growth.endMiB;
      f[`soak.${s.name}.rssPeakMiB`] = round(Math.max(...series), 1);
      f[`soak.${s.name}.requests`] = r.requests;
      f[`soak.${s.name}.errors`] = r.errors;
      if (r.errors > 0) {
        const causes = Object.entries(r.errorCauses).sort((a, b) => b[1] - a[1]);
        ctx.report.notes.push(
          `soak ${s.name}: ${r.errors} errors: ${causes
            .slice(0, 8)
            .map(([cause, n]) => `${n} × ${cause}`)
            .join("; ")}`,
        );
        for (const [cause, n] of causes.slice(0, 8)) ctx.log(`soak ${s.name} errors: ${n} × ${cause}`);
      }
      ctx.report.rows.push({
        scenario: `soak ${s.name}`,
        metric: `RSS growth after warm-up, ${seconds} s × ${CLIENTS} clients (MiB)`,
        value: growth.growthMiB,
        note: `${growth.afterWarmupMiB} → ${growth.endMiB} MiB (peak ${round(Math.max(...series), 1)}), ${r.requests} requests, stream p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, ${r.errors} errors`,
      });
      ctx.log(
        `soak ${s.name}: RSS ${series.map((v) => Math.round(v)).join(" ")} MiB; growth ${growth.growthMiB} MiB, ` +
          `${r.requests} requests, ${r.errors} errors`,
      );
    });
    f["soak.errors"] = errors;
    if (isolate) {
      const edgeName = servers[0]!.name;
      const heap = isolate.finish();
      const growth = rssGrowth(heap.series);
      f[`soak.${edgeName}.heapUsedGrowthMiB`] = growth.growthMiB;
      f[`soak.${edgeName}.heapUsedPeakMiB`] = round(Math.max(...heap.series), 1);
      f[`soak.${edgeName}.heapLiveAfterWarmupMiB`] = heap.liveWarm;
      f[`soak.${edgeName}.heapLiveEndMiB`] = heap.liveEnd;
      f[`soak.${edgeName}.heapLiveGrowthMiB`] = round(heap.liveEnd - heap.liveWarm, 1);
      f[`soak.${edgeName}.heapInspectorLost`] = heap.lost;
      ctx.report.rows.push({
        scenario: `soak ${edgeName}`,
        metric: "isolate V8 heap live after GC, growth after warm-up (MiB)",
        value: f[`soak.${edgeName}.heapLiveGrowthMiB`]!,
        note: `${heap.liveWarm} → ${heap.liveEnd} MiB live; used (no GC) peak ${f[`soak.${edgeName}.heapUsedPeakMiB`]} MiB; ${heap.lost} inspector calls unanswered`,
      });
      ctx.log(
        `soak ${edgeName}: isolate heap used ${heap.series.map((v) => Math.round(v)).join(" ")} MiB; ` +
          `live after GC ${heap.liveWarm} → ${heap.liveEnd} MiB`,
      );
    }
    ctx.report.charts.push({
      file: "soak-rss.svg",
      title: `RSS after warm-up and at the end of a ${seconds} s soak (MiB)`,
      unit: "MiB",
      bars: servers.flatMap((s, i) => [
        { label: `${s.name} after warm-up`, value: rssGrowth(samples[i]!).afterWarmupMiB },
        { label: `${s.name} end`, value: rssGrowth(samples[i]!).endMiB },
      ]),
    });
  },
};

/**
 * The streams (100- and 1,000-block ranges, interleaved) and the unary calls (every wallet unary,
 * interleaved) of the mix. The two kinds go to separate clients: the load generator parses frames
 * per run, not per request.
 */
function mixedRequests(first: number, sealedTip: number): { streams: LoadRequest[]; unaries: LoadRequest[] } {
  const short = randomWindows(21, 32, 100, first, sealedTip);
  const long = randomWindows(22, 8, 1000, first, sealedTip);
  const streams = short.flatMap((w, i) => (i % 4 === 3 && long[i >> 2] ? [w, long[i >> 2]!] : [w]));
  const lists = Object.values(unaryCalls(23, first, sealedTip)).map((list) => list.slice(0, 8));
  const unaries: LoadRequest[] = [];
  for (let i = 0; i < 8; i++)
    for (const list of lists) if (list[i % list.length]) unaries.push(list[i % list.length]!);
  return { streams: streams.map((w) => rangeRequest(w.start, w.end)), unaries };
}

/** One server's stream and unary loads as one result (latency percentiles from the streams). */
function merged(streams: LoadResult, unaries: LoadResult): LoadResult {
  return {
    ...streams,
    requests: streams.requests + unaries.requests,
    errors: streams.errors + unaries.errors,
    bytes: streams.bytes + unaries.bytes,
    errorSamples: [...streams.errorSamples, ...unaries.errorSamples].slice(0, 5),
    errorCauses: sumCauses([streams.errorCauses, unaries.errorCauses]),
  };
}

/**
 * The edge isolate's V8 heap through its inspector: `sample()` records the used heap (no GC, so the
 * series has the sawtooth of normal allocation), `live()` forces a full GC and records what stays.
 * Samples in flight when the soak ends are awaited by `live("end")`, which queues behind them.
 */
async function isolateHeapSampler(port: number) {
  const inspector = await connectInspector(port);
  const series: number[] = [];
  const live: Record<"warm" | "end", number> = { warm: Number.NaN, end: Number.NaN };
  let queue: Promise<unknown> = Promise.resolve();
  let lost = 0;
  const enqueue = (work: () => Promise<void>) => {
    queue = queue.then(work).catch(() => {
      lost++;
    });
    return queue;
  };
  return {
    sample: () =>
      void enqueue(async () => {
        series.push(round(await isolateHeapMiB(inspector), 1));
      }),
    live: (at: "warm" | "end") =>
      enqueue(async () => {
        live[at] = round(await isolateHeapMiB(inspector, { gc: true }), 1);
      }),
    finish() {
      inspector.close();
      return { series, liveWarm: live.warm, liveEnd: live.end, lost };
    },
  };
}

/** Resident MiB of a process tree (only processes whose command matches `only`, when given). */
function treeRss(root: number, only?: RegExp): number {
  let total = 0;
  for (const pid of processTree(root)) {
    if (only !== undefined && !only.test(commandOf(pid))) continue;
    total += rssMiB(pid);
  }
  return round(total, 1);
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
}
