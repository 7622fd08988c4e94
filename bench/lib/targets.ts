import { EDGE_TIERS, type EdgeTier } from "./edge-fixture.ts";
import type { Fixtures } from "./fixtures.ts";
import type { LoadRequest } from "./load.ts";
import type { Measured } from "./measure.ts";
import { randomWindows, rangeRequest, staticRangeRequest } from "./rpc-requests.ts";
import { round } from "./stats.ts";

/** The Worker's floor under Miniflare (fixtures.relay): the static baseline's bytes through a Worker. */
export const RELAY_TIER = "relayMiniflare" as const;

/** A server under load: its URL, the pids whose CPU counts, and how it asks for a range. */
export interface Target {
  name: EdgeTier | "origin" | "static" | typeof RELAY_TIER;
  baseUrl: string;
  pids: number[];
  countFrames: boolean;
  request(start: number, end: number): LoadRequest;
}

/** A server answering RPCs: what the latency scenario needs of each tier. */
export interface Tier {
  name: EdgeTier | "origin";
  baseUrl: string;
  pids: number[];
}

/** The edge under each `--edge-runtime` (`edge`, `edgeMiniflare`) and then the origin. */
export async function serverTiers(fixtures: Fixtures): Promise<Tier[]> {
  const out: Tier[] = [];
  for (const runtime of fixtures.options.edgeRuntimes)
    out.push({
      name: EDGE_TIERS[runtime],
      baseUrl: (await fixtures.edge(runtime)).url,
      pids: await fixtures.edgeServerPids(runtime),
    });
  const origin = await fixtures.origin();
  out.push({ name: "origin", baseUrl: origin.url, pids: await fixtures.originServerPids() });
  return out;
}

/**
 * The static baseline first, then the Worker's floor (Worker-alone Miniflare runs: the same
 * requests relayed through a Worker), every edge runtime and the origin, serving the same heights.
 */
export async function rangeTargets(fixtures: Fixtures): Promise<Target[]> {
  const scan = await fixtures.scan();
  const st = await fixtures.staticServer();
  const relay = await fixtures.relay();
  const tiers = await serverTiers(fixtures);
  const staticRequest = (a: number, b: number) => staticRangeRequest(st.offsets, scan.firstHeight, a, b);
  return [
    {
      name: "static",
      baseUrl: st.server.url,
      pids: [st.server.pid],
      countFrames: false,
      request: staticRequest,
    },
    ...(relay === undefined
      ? []
      : [
          {
            name: RELAY_TIER as Target["name"],
            baseUrl: relay.url,
            pids: relay.pids(),
            countFrames: false,
            request: staticRequest,
          },
        ]),
    ...tiers.map((t) => ({ ...t, countFrames: true, request: rangeRequest })),
  ];
}

/** The targets compared with the static baseline (every one but the baseline itself). */
export function servedBy(targets: Target[]): Target[] {
  return targets.filter((t) => t.name !== "static");
}

/** Seeded windows of `size` sealed blocks (capped at the sealed chain) as each target's requests. */
export async function windowsFor(fixtures: Fixtures, seed: number, count: number, size: number) {
  const scan = await fixtures.scan();
  const sealed = scan.sealedTip - scan.firstHeight + 1;
  const capped = Math.min(size, sealed);
  return { capped, windows: randomWindows(seed, count, capped, scan.firstHeight, scan.sealedTip) };
}

/** "range10k" style names for block counts. */
export function sizeName(size: number): string {
  return size >= 1000 ? `${size / 1000}k` : String(size);
}

/**
 * The edge under Miniflare against the Worker's floor measured in the same run (`results` by tier
 * name): throughput and CPU per byte as ratios to the relay's — what the edge's own work costs over
 * a Worker that does nothing. Empty for other tiers, or when the run has no relay.
 */
export function relayFigures(
  tier: string,
  prefix: string,
  target: Measured,
  results: Partial<Record<string, Measured>>,
): Record<string, number> {
  const relay = results[RELAY_TIER];
  if (tier !== EDGE_TIERS.miniflare || relay === undefined) return {};
  return {
    [`${prefix}.vsRelay`]: round(target.blocksPerSec / Math.max(relay.blocksPerSec, 1e-9)),
    [`${prefix}.cpuPerByteVsRelay`]: round(target.cpuSecPerGB / Math.max(relay.cpuSecPerGB, 1e-9)),
  };
}
