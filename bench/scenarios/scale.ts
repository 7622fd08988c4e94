import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { MAX_RANGES_PER_REQUEST, planRange } from "../../edge/blocks/plan.ts";
import { BlockIDSchema, CompactBlockSchema, EmptySchema, TreeStateSchema } from "../../proto/index.ts";
import { blockInfo, DEFAULT_BUNDLE_RANGES, decodeRangeMeta, rangeKeys } from "../../proto/range/index.ts";
import { EDGE_TIERS, memoryStateDir, seedEdgeState, startEdgeFixture } from "../lib/edge-fixture.ts";
import { createFrameCounter, trailerOk } from "../lib/frame-counter.ts";
import { runLoad } from "../lib/load.ts";
import { type Measured, measure } from "../lib/measure.ts";
import { BENCH_ORIGIN_SECRET } from "../lib/origin-fixture.ts";
import { startRelayFixture } from "../lib/relay-fixture.ts";
import { randomWindows, rangeRequest, staticRangeRequest, unaryRequest } from "../lib/rpc-requests.ts";
import { spawnServer } from "../lib/spawn.ts";
import { spawnStaticServer } from "../lib/static-server.ts";
import { latencySummary, round } from "../lib/stats.ts";
import { concatProjection, type StoreScan, scanStore } from "../lib/store-scan.ts";
import { spawnStoreServer } from "../lib/store-server.ts";
import { RELAY_TIER } from "../lib/targets.ts";
import { measureBootstrap } from "../scale/bootstrap.ts";
import { costTable } from "../scale/cost.ts";
import { estimate, generate } from "../scale/generate.ts";
import type { Scenario } from "../scenario.ts";

const SAPLING_ACTIVATION = 419_200;
const PER_REQUEST = 10_000;
/** The assumed time to first byte of a remote store's reads (the latency pass of the download). */
const STORE_LATENCY_MS = 20;
/** Batches of the wallet sync loop timed against the slow store (seconds, not minutes, at 20 ms). */
const WALLET_LOOP_BATCHES = 30;
const NETWORK = "mainnet";
/** The bootstrap bucket's payload scale: bootstrap reads metadata only, so payload only costs time. */
const BOOTSTRAP_PAYLOAD_SCALE = 0.002;

/**
 * `--payload-scale F` (default 0.02), `--scale-to H` (default 3,500,000) and `--bundle-ranges N|off`
 * (default the format's), declared in run.ts.
 */
function scaleArgs(): { payloadScale: number; to: number; edge: boolean; bundleRanges: number } {
  const { values } = parseArgs({
    strict: false,
    options: {
      "payload-scale": { type: "string" },
      "scale-to": { type: "string" },
      "edge-runtime": { type: "string" },
      "bundle-ranges": { type: "string" },
    },
  });
  const bundleRanges =
    values["bundle-ranges"] === "off" ? 0 : Number(values["bundle-ranges"] ?? DEFAULT_BUNDLE_RANGES);
  if (!Number.isInteger(bundleRanges) || bundleRanges === 1 || bundleRanges < 0 || bundleRanges > 1000)
    throw new Error("scale: --bundle-ranges must be off or 2 … 1000");
  const payloadScale = Number(values["payload-scale"] ?? 0.02);
  const to = Number(values["scale-to"] ?? 3_500_000);
  if (!(payloadScale > 0 && payloadScale <= 1) || !Number.isInteger(to) || to < SAPLING_ACTIVATION)
    throw new Error("scale: --payload-scale must be in (0, 1] and --scale-to ≥ 419200");
  // The edge runs under Miniflare here (the nearer stand-in for a deployed Worker); `--edge-runtime
  // wrangler` skips it (seeding ~17,500 objects into local R2 takes minutes).
  return { payloadScale, to, edge: values["edge-runtime"] !== "wrangler", bundleRanges };
}

/** One GetBlockRange over gRPC-web, read to the end: did it succeed, and with how many blocks? */
async function rangeStream(baseUrl: string, start: number, end: number) {
  const r = rangeRequest(start, end);
  const res = await fetch(`${baseUrl}${r.path}`, {
    method: "POST",
    headers: r.headers,
    body: Buffer.from(r.bodyBase64!, "base64"),
  });
  const counter = createFrameCounter();
  if (res.body) for await (const chunk of res.body) counter.push(chunk);
  const ok = res.ok && trailerOk(counter.trailer, res.headers.get("grpc-status") ?? undefined);
  const message = res.headers.get("grpc-message") ?? counter.trailer ?? "";
  return { ok, frames: counter.frames, message: decodeURIComponent(message).slice(0, 200) };
}

/**
 * A wallet's sync loop (zcash_client_backend 0.25 `sync::run`): each batch downloaded with one
 * GetBlockRange, then GetTreeState(start − 1) before it is scanned. Mean milliseconds of each call
 * per batch; a failed stream or call counts as an error.
 */
async function walletBatches(baseUrl: string, batches: { start: number; end: number }[]) {
  let rangeMs = 0;
  let treeStateMs = 0;
  let errors = 0;
  for (const { start, end } of batches) {
    let t = performance.now();
    const r = await rangeStream(baseUrl, start, end);
    rangeMs += performance.now() - t;
    if (!r.ok || r.frames !== end - start + 1) errors++;
    t = performance.now();
    const res = await fetch(`${baseUrl}/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetTreeState`, {
      method: "POST",
      headers: { "content-type": "application/proto", "connect-protocol-version": "1" },
      body: toBinary(BlockIDSchema, create(BlockIDSchema, { height: BigInt(start - 1) })),
    });
    const state = new Uint8Array(await res.arrayBuffer());
    treeStateMs += performance.now() - t;
    if (!res.ok || Number(fromBinary(TreeStateSchema, state).height) !== start - 1) errors++;
  }
  const n = Math.max(batches.length, 1);
  return { rangeMs: rangeMs / n, treeStateMs: treeStateMs / n, errors };
}

/**
 * Sequential Connect (binary) unary calls after 10 untimed ones (`warmup`, default the first 10
 * bodies); latency per call, errors counted (a failed call, or an answer `check` refuses).
 */
async function timedUnary(
  baseUrl: string,
  method: string,
  bodies: Uint8Array[],
  o: { warmup?: Uint8Array[]; check?: (answer: Uint8Array, i: number) => boolean } = {},
) {
  const call = async (body: Uint8Array) => {
    const res = await fetch(`${baseUrl}/cash.z.wallet.sdk.rpc.CompactTxStreamer/${method}`, {
      method: "POST",
      headers: { "content-type": "application/proto", "connect-protocol-version": "1" },
      body: body.slice(),
    });
    const answer = new Uint8Array(await res.arrayBuffer());
    return res.ok ? answer : undefined;
  };
  for (const body of o.warmup ?? bodies.slice(0, 10)) await call(body);
  const ms: number[] = [];
  let errors = 0;
  for (const [i, body] of bodies.entries()) {
    const t = performance.now();
    const answer = await call(body);
    ms.push(performance.now() - t);
    if (answer === undefined || (o.check && !o.check(answer, i))) errors++;
  }
  return { ...latencySummary(ms), errors };
}

/** Wire hashes of sealed heights, from the store's range metadata. */
function hashesAt(scan: StoreScan, heights: number[]): Uint8Array[] {
  const paths = new Map(scan.objects.map((o) => [o.key, o.path]));
  return heights.map((h) => {
    const key = rangeKeys(scan.network, scan.rangeSize, Math.floor(h / scan.rangeSize)).meta;
    return blockInfo(decodeRangeMeta(readFileSync(paths.get(key)!)), h).wireHash;
  });
}

/**
 * GetBlock by hash at random sealed heights through the edge under Miniflare with no origin
 * configured, reading the store from a separate server (Worker-alone mode, bench/lib/store-server.ts:
 * nothing to seed): every answer comes from the store's hash index, and must be the block asked for.
 * `vars`: more worker settings (`CACHE_HOT_RANGES: "off"` runs it without the Cache API layer).
 */
async function edgeBlockByHash(
  ctx: Parameters<Scenario["run"]>[0],
  scan: StoreScan,
  storeUrl: string,
  vars?: Record<string, string>,
) {
  const all = randomWindows(19, 1010, 1, 0, scan.sealedTip).map((w) => w.start);
  const heights = all.slice(10);
  const body = (hash: Uint8Array) => toBinary(BlockIDSchema, create(BlockIDSchema, { hash }));
  const hashes = hashesAt(scan, all);
  const persist = memoryStateDir(ctx.tmp, "scale-by-hash");
  try {
    const mf = await startEdgeFixture({
      runtime: "miniflare",
      persist,
      networks: NETWORK,
      storePublicUrl: storeUrl,
      vars,
      log: ctx.log,
    });
    try {
      const byHash = await timedUnary(mf.url, "GetBlock", hashes.slice(10).map(body), {
        warmup: hashes.slice(0, 10).map(body),
        check: (answer, i) => Number(fromBinary(CompactBlockSchema, answer).height) === heights[i],
      });
      // The same hashes again: shards and metadata now in the data center's cache (Cache API) or
      // the isolate, as for blocks many wallets ask for; the first pass is every lookup's cold cost.
      const repeat = await timedUnary(mf.url, "GetBlock", hashes.slice(10).map(body), {
        warmup: [],
        check: (answer, i) => Number(fromBinary(CompactBlockSchema, answer).height) === heights[i],
      });
      // The same call by height at other random heights: what the index adds is the difference.
      const others = randomWindows(20, 1000, 1, 0, scan.sealedTip).map((w) => w.start);
      const byHeight = await timedUnary(
        mf.url,
        "GetBlock",
        others.map((h) => toBinary(BlockIDSchema, create(BlockIDSchema, { height: BigInt(h) }))),
        { check: (answer, i) => Number(fromBinary(CompactBlockSchema, answer).height) === others[i] },
      );
      return { byHash, repeat, byHeight };
    } finally {
      await mf.stop();
    }
  } finally {
    rmSync(persist, { recursive: true, force: true });
  }
}

/**
 * Mainnet at full height (bench/scale/): a generated mainnet-shaped store of ≥ 3.5 M blocks, its
 * storage per projection and object counts, seed 000's wallet download (419,200 → tip) from the
 * origin's serving stack and the static baseline, GetLatestBlock, GetTreeState at 1,000 random
 * heights, whether the edge's planner accepts GetBlockRange 0..tip, and the cost model.
 */
export const scenario: Scenario = {
  name: "scale",
  async run(ctx) {
    const { payloadScale, to, edge, bundleRanges } = scaleArgs();
    const f = ctx.report.figures;
    const storeDir = join(ctx.tmp, "scale-store");
    ctx.log(`scale: generating 0..${to} at payload scale ${payloadScale}`);
    const gen = await generate({
      to,
      store: `dir:${storeDir}`,
      payloadScale,
      rangeSize: 1000,
      network: NETWORK,
      workers: 2,
      seed: "lightedge-scale",
      bundleRanges,
      log: ctx.log,
    });
    f["scale.bundleRanges"] = bundleRanges;
    ctx.log(
      `scale: ${gen.ranges} ranges in ${gen.seconds.toFixed(1)} s (${Math.round(gen.blocksPerSec)} blocks/s)`,
    );
    f["scale.payloadScale"] = payloadScale;
    f["scale.generate.blocksPerSec"] = Math.round(gen.blocksPerSec);
    f["scale.generate.seconds"] = round(gen.seconds, 1);

    // The store's pages written back before anything is timed: measured while the kernel flushes
    // gigabytes of them, every figure (the static baseline's too) moved with the disk's queue.
    execFileSync("sync");
    const scan = scanStore(storeDir, NETWORK);
    f["scale.heights"] = scan.sealedTip + 1;
    f["scale.objects"] = scan.objects.length;
    for (const k of ["shielded", "full", "nullifiers", "meta", "trees", "hashIndex", "bundles"] as const)
      f[`scale.storage.${k}.bytes`] = scan.storedBytes[k];

    // The edge's own planner on this head: is one request for the whole history accepted?
    const extent = { rangeSize: scan.rangeSize, firstHeight: scan.firstHeight, tipHeight: scan.sealedTip };
    const accepted = (a: number, b: number) => {
      try {
        planRange(a, b, extent);
        return true;
      } catch (err) {
        if (!edge)
          ctx.report.notes.push(
            `scale: edge planner refuses GetBlockRange(${a}, ${b}): ${(err as Error).message}`,
          );
        return false;
      }
    };
    const full = [
      accepted(0, scan.sealedTip),
      accepted(SAPLING_ACTIVATION, scan.sealedTip),
      accepted(scan.sealedTip, 0),
    ];
    f["scale.fullHistory.ok"] = full.every(Boolean) ? 1 : 0;
    ctx.report.notes.push(
      `scale.fullHistory.ok: GetBlockRange 0..tip, 419200..tip and tip..0 at the edge under Miniflare ` +
        `(without the edge: its planner, edge/blocks/plan.ts, MAX_RANGES_PER_REQUEST = ${MAX_RANGES_PER_REQUEST}, on this head).`,
    );

    // Static baseline and origin: 419,200 → tip, 10,000 blocks per request (wallet-download's shape).
    const framesFile = join(ctx.tmp, "scale-shielded.bin");
    const offsets = concatProjection(scan, "shielded", framesFile);
    const windows: { start: number; end: number }[] = [];
    for (let h = SAPLING_ACTIVATION; h <= scan.sealedTip; h += PER_REQUEST)
      windows.push({ start: h, end: Math.min(scan.sealedTip, h + PER_REQUEST - 1) });
    const staticServer = await spawnStaticServer(framesFile);
    const store = await spawnStoreServer(storeDir);
    const origin = await spawnServer(
      "scale-origin",
      [process.execPath, join(ctx.repoRoot, "bench/scale/origin-serve.ts"), `dir:${storeDir}`, NETWORK],
      { timeoutMs: 120_000 },
    );
    try {
      const download = async (name: string, baseUrl: string, pids: number[], isStatic: boolean) => {
        const m = await measure(
          {
            baseUrl,
            requests: windows.map((w) =>
              isStatic
                ? staticRangeRequest(offsets, scan.firstHeight, w.start, w.end)
                : rangeRequest(w.start, w.end),
            ),
            clients: 1,
            requestsPerClient: windows.length,
            countFrames: !isStatic,
          },
          pids,
        );
        ctx.log(
          `scale ${name}: ${m.blocks} blocks, ${m.MBps} MB/s, ${m.elapsedSec.toFixed(1)} s, ${m.errors} errors`,
        );
        f[`scale.walletDownload.${name}.MBps`] = m.MBps;
        f[`scale.walletDownload.${name}.seconds`] = round(m.elapsedSec, 2);
        f[`scale.walletDownload.${name}.errors`] = m.errors;
        f[`scale.walletDownload.${name}.cpuSecPerGB`] = m.cpuSecPerGB;
        return m;
      };
      const base = await download("static", staticServer.url, [staticServer.pid], true);
      // The Worker's floor: the same static requests relayed through a Worker under Miniflare
      // (bench/relay-worker) — what any Worker reading these bytes over HTTP reaches here.
      const relayFixture = await startRelayFixture(staticServer.url, ctx.tmp);
      let relay: Measured;
      try {
        relay = await download(RELAY_TIER, relayFixture.url, relayFixture.pids(), true);
      } finally {
        await relayFixture.stop();
      }
      f[`scale.walletDownload.${RELAY_TIER}.vsStatic`] = round(relay.MBps / Math.max(base.MBps, 1e-9), 3);
      const viaOrigin = await download("origin", origin.url, [origin.pid], false);
      f["scale.walletDownload.origin.vsStatic"] = round(viaOrigin.MBps / Math.max(base.MBps, 1e-9), 3);
      // The next wallet through the same origin process: each range's data object was checked whole
      // by the first download, so whole ranges are now read by their ends (origin/index/view.ts).
      const originAgain = await download("origin.repeat", origin.url, [origin.pid], false);
      f["scale.walletDownload.origin.repeat.vsStatic"] = round(
        originAgain.MBps / Math.max(base.MBps, 1e-9),
        3,
      );
      f["scale.walletDownload.bytes"] = base.bytes;

      const latest = await runLoad({
        baseUrl: origin.url,
        requests: [unaryRequest("GetLatestBlock", toBinary(EmptySchema, create(EmptySchema)))],
        clients: 1,
        requestsPerClient: 200,
        warmup: 20,
      });
      f["scale.getLatestBlock.p50Ms"] = round(latest.p50Ms, 3);
      const heights = randomWindows(18, 1000, 1, SAPLING_ACTIVATION, scan.sealedTip).map((w) => w.start);
      // In-process sequential calls: 1,000 distinct request bodies are too large for runLoad's argv.
      const trees = await timedUnary(
        origin.url,
        "GetTreeState",
        heights.map((h) => toBinary(BlockIDSchema, create(BlockIDSchema, { height: BigInt(h) }))),
      );
      f["scale.treeState.p50Ms"] = round(trees.p50Ms, 3);
      f["scale.treeState.p99Ms"] = round(trees.p99Ms, 3);
      f["scale.treeState.errors"] = trees.errors;
      ctx.log(
        `scale: GetLatestBlock p50 ${latest.p50Ms} ms; GetTreeState p50 ${trees.p50Ms} ms (${trees.errors} errors)`,
      );

      /** Full history in one request, through the edge itself (one after another: each may stream GBs). */
      const fullHistory = async (url: string) => {
        const checks = [];
        for (const [a, b] of [
          [0, scan.sealedTip],
          [SAPLING_ACTIVATION, scan.sealedTip],
          [scan.sealedTip, 0],
        ] as const) {
          const c = await rangeStream(url, a, b);
          const expected = Math.abs(b - a) + 1;
          checks.push(c.ok && c.frames === expected);
          if (!c.ok || c.frames !== expected)
            ctx.report.notes.push(
              `scale: edge GetBlockRange(${a}, ${b}): ${c.ok ? "ok" : "failed"}, ${c.frames}/${expected} blocks; ${c.message}`,
            );
        }
        return checks.every(Boolean);
      };

      if (edge) {
        // Miniflare, Worker alone (the nearer stand-in for a deployed Worker, whose storage is a
        // remote service): the store from a separate server process, its CPU not counted as the
        // edge's (bench/lib/store-server.ts). It also answers the full-history checks. Then wrangler
        // dev (what `lightedge edge` runs: its proxy workerd in front, the R2 simulator in the
        // worker's workerd, seeded with only what GetBlockRange reads — head, metadata, shielded
        // frames and bundles, the range-ends objects: seeding local R2 runs at ≈ 40 objects/s here).
        // Until 2026-12-06 the range-ends objects were left out and the wrangler run read them from
        // Cache API entries the Miniflare run had left in the shared state directory.
        const served = scan.objects.filter((o) =>
          /(head\.json|\.meta\.bin|\.shielded\.bin|\/ends\.bin)$/.test(o.key),
        );
        const persist = await seedEdgeState({
          repoRoot: ctx.repoRoot,
          tmp: ctx.tmp,
          scan: { ...scan, objects: served },
          log: ctx.log,
        });
        execFileSync("sync"); // its thousands of objects written back too, before the downloads
        // The Worker-alone runs keep only Cache API entries: in memory (memoryStateDir), shared by
        // the three of them as before; wrangler dev reads its seeded R2 state (and now starts with
        // a cold Cache API of its own).
        const cacheState = memoryStateDir(ctx.tmp, "scale-edge");
        try {
          for (const runtime of ["miniflare", "wrangler"] as const) {
            const e = await startEdgeFixture({
              runtime,
              persist: runtime === "miniflare" ? cacheState : persist,
              networks: NETWORK,
              originUrl: origin.url,
              originSecret: BENCH_ORIGIN_SECRET,
              storePublicUrl: runtime === "miniflare" ? store.url : undefined,
              log: ctx.log,
            });
            try {
              const tier = EDGE_TIERS[runtime];
              const m = await download(tier, e.url, [e.pid], false);
              f[`scale.walletDownload.${tier}.vsStatic`] = round(m.MBps / Math.max(base.MBps, 1e-9), 3);
              if (runtime === "miniflare") {
                f[`scale.walletDownload.${tier}.vsRelay`] = round(m.MBps / Math.max(relay.MBps, 1e-9), 3);
                // The next wallet through the same isolate: range ends kept (proto/range/reader.ts),
                // metadata in the Cache API. The first pass is a cold isolate's.
                const again = await download(`${tier}.repeat`, e.url, [e.pid], false);
                f[`scale.walletDownload.${tier}.repeat.vsStatic`] = round(
                  again.MBps / Math.max(base.MBps, 1e-9),
                  3,
                );
              }
              if (runtime === "miniflare") f["scale.fullHistory.ok"] = (await fullHistory(e.url)) ? 1 : 0;
            } finally {
              await e.stop();
            }
          }
          // The same download with every store read's first byte STORE_LATENCY_MS away: a deployed
          // Worker's storage is a remote service, the local store server answers in well under a
          // millisecond. What the reads started ahead of the one being sent hide
          // (edge/blocks/stream-segments.ts SEALED_READ_CONNECTIONS), and the next batch's
          // metadata read while a batch streams (edge/blocks/next-batch.ts). A Cache API of its own,
          // empty: the first wallet in a data center, every metadata object from the store (until
          // 2026-12-06 it shared the passes' above, which answered metadata without the latency).
          const far = await spawnStoreServer(storeDir, { latencyMs: STORE_LATENCY_MS });
          /** A new isolate over the slow store with an empty Cache API of its own: a cold data center. */
          const coldEdge = async (withOrigin: boolean, use: (url: string, pid: number) => Promise<void>) => {
            const state = memoryStateDir(ctx.tmp, "scale-edge-cold");
            try {
              const e = await startEdgeFixture({
                runtime: "miniflare",
                persist: state,
                networks: NETWORK,
                ...(withOrigin ? { originUrl: origin.url, originSecret: BENCH_ORIGIN_SECRET } : {}),
                storePublicUrl: far.url,
                log: ctx.log,
              });
              try {
                await use(e.url, e.pid);
              } finally {
                await e.stop();
              }
            } finally {
              rmSync(state, { recursive: true, force: true });
            }
          };
          try {
            await coldEdge(true, async (url, pid) => {
              const name = `edgeMiniflare.storeLatency${STORE_LATENCY_MS}ms`;
              const m = await download(name, url, [pid], false);
              f[`scale.walletDownload.${name}.vsStatic`] = round(m.MBps / Math.max(base.MBps, 1e-9), 3);
            });
            // A wallet's sync loop against the same store, from a cold data center again: each
            // batch's GetBlockRange, then the GetTreeState(start − 1) zcash_client_backend asks
            // before scanning it — what the next-batch read-ahead (edge/blocks/next-batch.ts) hides.
            await coldEdge(false, async (url) => {
              const loop = await walletBatches(url, windows.slice(0, WALLET_LOOP_BATCHES));
              const key = `scale.walletBatches.edgeMiniflare.storeLatency${STORE_LATENCY_MS}ms`;
              f[`${key}.batchMs`] = round(loop.rangeMs + loop.treeStateMs, 2);
              f[`${key}.rangeMs`] = round(loop.rangeMs, 2);
              f[`${key}.treeStateMs`] = round(loop.treeStateMs, 2);
              f[`${key}.errors`] = loop.errors;
              ctx.log(
                `scale wallet batches (${STORE_LATENCY_MS} ms store): ${round(loop.rangeMs, 1)} + ${round(loop.treeStateMs, 1)} ms per batch, ${loop.errors} errors`,
              );
            });
          } finally {
            await far.stop();
          }
        } finally {
          rmSync(persist, { recursive: true, force: true });
          rmSync(cacheState, { recursive: true, force: true });
        }
        ctx.report.notes.push(
          `scale.walletBatches.edgeMiniflare.storeLatency${STORE_LATENCY_MS}ms: a wallet's sync loop, ` +
            `the first ${WALLET_LOOP_BATCHES} batches of the download (10,000 blocks from 419,200), each ` +
            "GetBlockRange (gRPC-web) then GetTreeState(start − 1) (Connect), one client in this process, " +
            "with the same slow store, a new isolate and an empty Cache API; milliseconds per batch, mean.",
        );
        ctx.report.notes.push(
          `scale.walletDownload.edgeMiniflare.storeLatency${STORE_LATENCY_MS}ms: the same, a new isolate ` +
            `and an empty Cache API, with the store server holding every response's headers ` +
            `${STORE_LATENCY_MS} ms (an assumed remote store's time to first byte; R2 publishes none).`,
        );
        ctx.report.notes.push(
          "scale.walletDownload.edgeMiniflare: the edge under Miniflare reading the store from a separate " +
            "server process (Worker alone, bench/lib/store-server.ts); scale.walletDownload.edge: wrangler dev " +
            "over its local R2 simulator (in the worker's workerd, its CPU counted as the edge's).",
        );
        const { byHash, repeat, byHeight } = await edgeBlockByHash(ctx, scan, store.url);
        f["scale.blockByHash.p50Ms"] = round(byHash.p50Ms, 3);
        f["scale.blockByHash.p99Ms"] = round(byHash.p99Ms, 3);
        f["scale.blockByHash.errors"] = byHash.errors;
        f["scale.blockByHash.repeat.p50Ms"] = round(repeat.p50Ms, 3);
        f["scale.blockByHash.repeat.errors"] = repeat.errors;
        f["scale.blockByHeight.p50Ms"] = round(byHeight.p50Ms, 3);
        f["scale.blockByHeight.errors"] = byHeight.errors;
        f["scale.blockByHash.vsByHeight"] = round(byHash.p50Ms / Math.max(byHeight.p50Ms, 1e-9), 3);
        ctx.log(
          `scale: edge GetBlock by hash p50 ${byHash.p50Ms} ms (${byHash.errors} errors), by height ${byHeight.p50Ms} ms`,
        );
        // The same lookups without the Cache API layer: what the Worker and the store cost alone.
        // Under Miniflare the Cache API is a simulator in the worker's own workerd (a miss ≈ 0.35
        // ms, a put ≈ 1.3 ms of its CPU here), a cost a deployed Worker pays to the data center's
        // cache service instead; this pair separates the two.
        const bare = await edgeBlockByHash(ctx, scan, store.url, { CACHE_HOT_RANGES: "off" });
        f["scale.blockByHash.noCacheApi.p50Ms"] = round(bare.byHash.p50Ms, 3);
        f["scale.blockByHash.noCacheApi.p99Ms"] = round(bare.byHash.p99Ms, 3);
        f["scale.blockByHash.noCacheApi.errors"] = bare.byHash.errors + bare.byHeight.errors;
        f["scale.blockByHeight.noCacheApi.p50Ms"] = round(bare.byHeight.p50Ms, 3);
        ctx.log(
          `scale: without the Cache API layer, by hash p50 ${bare.byHash.p50Ms} ms, by height ${bare.byHeight.p50Ms} ms`,
        );
        ctx.report.notes.push(
          "scale.blockByHash: GetBlock by hash at 1,000 random sealed heights 0..tip, the edge under " +
            "Miniflare with no origin configured (Worker-alone: the store from a separate server), " +
            "each answer checked to be the block asked for; sequential, after 10 untimed calls. " +
            "scale.blockByHash.repeat: the same 1,000 hashes again (their shards and metadata cached). " +
            "scale.blockByHeight: the same, by height, at 1,000 other random heights (vsByHeight: the ratio). " +
            "*.noCacheApi: the same first pass on a new isolate with CACHE_HOT_RANGES=off (no Cache API " +
            "layer: Miniflare's cache simulator runs in the worker's workerd, its misses and puts on the " +
            "lookups' path), i.e. the Worker and its storage reads alone.",
        );
      }
    } finally {
      await origin.stop();
      await staticServer.stop();
      await store.stop();
      rmSync(framesFile, { force: true });
    }
    ctx.report.notes.push(
      "scale: the origin is its serving stack over the generated store (bench/scale/origin-serve.ts), " +
        "no node behind it.",
    );

    // A new origin adopting the full height from S3 (moto), and a reader's metadata audit of it.
    const boot = await measureBootstrap({
      repoRoot: ctx.repoRoot,
      tmp: ctx.tmp,
      to,
      payloadScale: BOOTSTRAP_PAYLOAD_SCALE,
      log: ctx.log,
    });
    f["scale.bootstrapSec"] = round(boot.bootstrapSec, 2);
    f["scale.bootstrap.auditSec"] = round(boot.auditSec, 2);
    f["scale.bootstrap.generateSec"] = round(boot.generateSec, 1);
    f["scale.bootstrap.originByHashOk"] = boot.originByHashOk ? 1 : 0;
    ctx.report.notes.push(
      `scale.bootstrapSec: \`lightedge origin\` adopting a ${boot.heights}-block store in moto ` +
        `(generate.ts at payload scale ${BOOTSTRAP_PAYLOAD_SCALE}: bootstrap reads metadata only), from spawn ` +
        `to GetLatestBlock at the sealed tip, with a node standing in for the generated chain ` +
        `(bench/scale/scale-node.ts; node calls ${JSON.stringify(boot.nodeCalls)}). ` +
        `scale.bootstrap.auditSec: auditMetadata over the same bucket (${boot.auditRanges} ranges' ` +
        `metadata chained, ${boot.auditIndexEntries} hash-index entries checked).`,
    );

    // Cost model at payload scale 1: totals projected from a sample of ranges (bench/scale/generate.ts).
    const sample = { payloadScale: 1, rangeSize: 1000, network: NETWORK, seed: "lightedge-scale", every: 50 };
    const sync = estimate({ ...sample, from: SAPLING_ACTIVATION, to: scan.sealedTip });
    const all = estimate({ ...sample, from: 0, to: scan.sealedTip });
    // Range bundles hold the data objects once more (an upper bound: the spam era's are too large
    // to bundle at payload scale 1, proto/range/bundles.ts).
    const dataBytes = all.shieldedBytes + all.fullBytes + all.nullifiersBytes;
    const storedBytes =
      (bundleRanges === 0 ? 1 : 2) * dataBytes + all.treesBytes + (f["scale.storage.meta.bytes"] ?? 0);
    const seed000 = estimate({ ...sample, from: SAPLING_ACTIVATION, to: 3_145_000 });
    f["scale.projected.seed000ShieldedBytes"] = seed000.shieldedBytes;
    f["scale.projected.storeBytes"] = storedBytes;
    f["scale.projected.syncBytes"] = sync.shieldedBytes;
    const table = costTable(
      {
        blocks: scan.sealedTip - SAPLING_ACTIVATION + 1,
        ranges: Math.floor(scan.sealedTip / 1000) - Math.floor(SAPLING_ACTIVATION / 1000) + 1,
        bytes: sync.shieldedBytes,
        blocksPerRequest: PER_REQUEST,
        layout:
          bundleRanges === 0 ? undefined : { firstHeight: SAPLING_ACTIVATION, rangeSize: 1000, bundleRanges },
      },
      storedBytes,
    );
    ctx.report.notes.push(`scale cost model (payload scale 1, projected):\n\n${table}\n`);
    ctx.log(table);
    rmSync(storeDir, { recursive: true, force: true });
  },
};
