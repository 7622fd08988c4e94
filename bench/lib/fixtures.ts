import { join } from "node:path";
import { buildChain, type ChainFixture } from "./chain-fixture.ts";
import { type EdgeFixture, type EdgeRuntimeName, seedEdgeState, startEdgeFixture } from "./edge-fixture.ts";
import { BENCH_ORIGIN_SECRET, startOriginFixture } from "./origin-fixture.ts";
import { type RelayFixture, startRelayFixture } from "./relay-fixture.ts";
import type { SpawnedServer } from "./spawn.ts";
import { spawnStaticServer } from "./static-server.ts";
import { concatProjection, type StoreScan, scanStore } from "./store-scan.ts";
import { spawnStoreServer } from "./store-server.ts";

export interface FixtureOptions {
  repoRoot: string;
  tmp: string;
  quick: boolean;
  /** Chain length (full: 200,000 unless overridden). */
  blocks: number;
  rangeSize: number;
  /** Runtimes the edge is measured under, side by side (`--edge-runtime`). */
  edgeRuntimes: readonly EdgeRuntimeName[];
  /**
   * Where Miniflare's edge reads the store: `public-url` (default) — a separate store server
   * process (lib/store-server.ts) through STORE_PUBLIC_URL, its CPU counted apart, so
   * `edgeMiniflare.*` is the Worker's own cost; `r2` — the local R2 simulator inside workerd.
   */
  edgeStore: "public-url" | "r2";
  /** `lightedge backfill-trees` after indexing (BenchSettings.treesBackfill). */
  treesBackfill: boolean;
  log(message: string): void;
}

/** The same bytes the edge streams for GetBlockRange, served by the node:http baseline. */
export interface StaticFixture {
  server: SpawnedServer;
  /** Byte offsets per height from the scan's firstHeight (see concatProjection). */
  offsets: Float64Array;
}

/**
 * The stack every scenario shares, built lazily once per run (so `--only latency` still builds
 * the chain it needs) and torn down by run.ts: dev node → index → store → origin and edge, plus
 * the static baseline serving the store's shielded frames.
 */
export function createFixtures(o: FixtureOptions) {
  const memo = new Map<string, Promise<unknown>>();
  const once = <T>(name: string, make: () => Promise<T>): Promise<T> => {
    if (!memo.has(name)) memo.set(name, make());
    return memo.get(name) as Promise<T>;
  };
  const stoppers: (() => Promise<void>)[] = [];
  const fixtures = {
    options: o,
    chain: () =>
      once("chain", async () => {
        const c = await buildChain({ ...o, tmp: o.tmp, seed: "lightedge-bench" });
        stoppers.push(() => c.devnode.stop());
        return c as ChainFixture;
      }),
    scan: () =>
      once("scan", async () => scanStore((await fixtures.chain()).storeDir, "regtest") as StoreScan),
    origin: () =>
      once("origin", async () => {
        const c = await fixtures.chain();
        const scan = await fixtures.scan();
        const origin = await startOriginFixture({
          ...o,
          ...c,
          devnodeUrl: c.devnode.url,
          network: c.network,
        });
        stoppers.push(() => origin.stop());
        await waitForTip(origin.url, o.blocks - 1);
        o.log(`origin: serving ${origin.url} (sealed tip ${scan.sealedTip})`);
        return origin;
      }),
    /** The local R2 state every edge runtime reads. */
    edgeState: () => once("edgeState", async () => seedEdgeState({ ...o, scan: await fixtures.scan() })),
    /** The directory store as a public bucket, its own process (Worker-alone mode). */
    storeServer: () =>
      once("storeServer", async () => {
        const server = await spawnStoreServer((await fixtures.chain()).storeDir);
        stoppers.push(() => server.stop());
        o.log(`store server: ${server.url} (pid ${server.pid}, CPU not counted as the edge's)`);
        return server as SpawnedServer;
      }),
    /** Miniflare reads the store server rather than the R2 simulator (see FixtureOptions.edgeStore). */
    workerAlone: (runtime: EdgeRuntimeName) => runtime === "miniflare" && o.edgeStore === "public-url",
    /**
     * The edge under `runtime` (default wrangler dev, what `lightedge edge` runs); `inspect` opens
     * the Miniflare isolate's inspector (a fixture of its own, so other scenarios run without it).
     */
    edge: (runtime: EdgeRuntimeName = "wrangler", opts: { inspect?: boolean } = {}) =>
      once(`edge-${runtime}${opts.inspect ? "-inspect" : ""}`, async () => {
        const origin = await fixtures.origin();
        const alone = fixtures.workerAlone(runtime);
        const e = await startEdgeFixture({
          ...o,
          runtime,
          persist: alone ? join(o.tmp, "no-r2-state") : await fixtures.edgeState(),
          storePublicUrl: alone ? (await fixtures.storeServer()).url : undefined,
          networks: (await fixtures.scan()).network,
          originUrl: origin.url,
          originSecret: BENCH_ORIGIN_SECRET,
          inspect: opts.inspect,
          // Experiments: more worker vars for Miniflare's edge, e.g. '{"CACHE_HOT_RANGES":"off"}'.
          vars: process.env.BENCH_EDGE_VARS
            ? (JSON.parse(process.env.BENCH_EDGE_VARS) as Record<string, string>)
            : undefined,
        });
        stoppers.push(() => e.stop());
        return e as EdgeFixture;
      }),
    staticServer: () =>
      once("static", async () => {
        const file = join(o.tmp, "shielded-frames.bin");
        const offsets = concatProjection(await fixtures.scan(), "shielded", file);
        const server = await spawnStaticServer(file);
        stoppers.push(() => server.stop());
        return { server, offsets } as StaticFixture;
      }),
    /**
     * The Worker's floor (bench/relay-worker): Miniflare relaying the static baseline's requests to
     * the static server, one subrequest each — what any Worker reading stored bytes over HTTP pays
     * in this harness. Undefined unless Miniflare runs Worker-alone (the mode it is the floor of).
     */
    relay: () =>
      once("relay", async () => {
        if (!o.edgeRuntimes.includes("miniflare") || !fixtures.workerAlone("miniflare")) return undefined;
        const st = await fixtures.staticServer();
        const relay = await startRelayFixture(st.server.url, o.tmp);
        stoppers.push(() => relay.stop());
        o.log(`relay worker (the Worker's floor): ${relay.url} → ${st.server.url}`);
        return relay as RelayFixture;
      }),
    /**
     * pids of every server-side process of one edge stack (edge tree, origin, dev node); in
     * Worker-alone mode the edge's tree only (Miniflare host + workerd): the store server is the
     * storage service a deployed Worker does not pay for in CPU, and the origin is idle on sealed
     * data (asked for its tip once per HEAD_CACHE_SECONDS).
     */
    async edgeServerPids(runtime: EdgeRuntimeName = "wrangler"): Promise<number[]> {
      const [e, origin, c] = await Promise.all([fixtures.edge(runtime), fixtures.origin(), fixtures.chain()]);
      if (fixtures.workerAlone(runtime)) return [e.pid];
      return [e.pid, origin.pid, c.devnode.pid];
    },
    async originServerPids(): Promise<number[]> {
      const [origin, c] = await Promise.all([fixtures.origin(), fixtures.chain()]);
      return [origin.pid, c.devnode.pid];
    },
    async dispose(): Promise<void> {
      for (const stop of stoppers.reverse()) await stop().catch(() => {});
    },
  };
  return fixtures;
}

export type Fixtures = ReturnType<typeof createFixtures>;

/** Waits until a server's GetLatestBlock (Connect JSON) reports `tip`: the origin caught up. */
async function waitForTip(baseUrl: string, tip: number, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${baseUrl}/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetLatestBlock`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      last = await res.text();
      if (res.ok && Number((JSON.parse(last) as { height?: string }).height) >= tip) return;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${baseUrl} did not reach tip ${tip}: ${last}`);
}
