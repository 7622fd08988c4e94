/**
 * Cost model of a full mainnet deployment and of full wallet syncs. Pure arithmetic over measured
 * counts and published prices; no I/O.
 *
 * Prices (USD), read 2026-12-01 from the stored copies of Cloudflare's pages:
 * - R2 Standard (developers.cloudflare.com/r2/pricing/, cloudflare-docs `src/content/docs/r2/pricing.mdx`):
 *   storage $0.015 per GB-month, Class A $4.50 per million, Class B $0.36 per million, egress free;
 *   free tier 10 GB-month, 1 M Class A, 10 M Class B per month.
 * - Workers Paid, Standard usage model (developers.cloudflare.com/workers/platform/pricing/, as the
 *   Workflows pricing page restates it: "identical to Workers Standard pricing"): $5 per month,
 *   10 M requests included then $0.30 per million, 30 M CPU-ms included then $0.02 per million CPU-ms.
 *
 * lightwalletd fleet (ASSUMPTIONS, not published prices): lightwalletd serves 16,000–44,000 blocks
 * per server CPU-second (bench/README.md anchors, seed studies); a vCPU costs $25 per month (a
 * typical on-demand compute-optimized VM, ≈ $0.034 per vCPU-hour) run at 50 % utilisation; every
 * replica needs a full node (zebrad, ≈ 300 GB disk at $0.08 per GB-month plus 4 vCPU); cloud egress
 * $0.05 per GB (the high-volume tier of the big clouds). Cloudflare does not bill egress.
 */
export const PRICES = Object.freeze({
  r2StorageGBMonth: 0.015,
  r2ClassAPerMillion: 4.5,
  r2ClassBPerMillion: 0.36,
  workersBaseMonth: 5,
  workersRequestsPerMillion: 0.3,
  workersCpuMsPerMillion: 0.02,
  workersIncludedRequests: 10e6,
  workersIncludedCpuMs: 30e6,
  r2FreeClassB: 10e6,
});

export const FLEET = Object.freeze({
  lwdBlocksPerCpuSec: { low: 16_000, high: 44_000 },
  vcpuMonth: 25,
  utilisation: 0.5,
  nodeDiskGB: 300,
  diskGBMonth: 0.08,
  nodeVcpus: 4,
  egressPerGB: 0.05,
});

export interface SyncShape {
  /** Blocks a full wallet sync downloads (419,200 → tip). */
  blocks: number;
  /** Sealed ranges those blocks span. */
  ranges: number;
  /** Bytes of the shielded projection sent (payload scale 1). */
  bytes: number;
  /** Blocks per GetBlockRange request the wallet asks for. */
  blocksPerRequest: number;
  /**
   * Where the sync starts and the store's range bundles (proto/range/bundles.ts): a whole bundle a
   * request covers is one read. Absent: one read per range.
   */
  layout?: { firstHeight: number; rangeSize: number; bundleRanges: number };
}

export interface PerSync {
  workerRequests: number;
  /** The data reads (`dataReads`), plus a metadata read per range when the isolate has none cached. */
  classB: { low: number; high: number };
  /** Billed CPU: per-range JS only (low) … every byte touched at workerd's piping rate (high). */
  cpuMs: { low: number; high: number };
}

/** Per-read JS work at the edge (plan, metadata lookups, slicing): an assumption of 0.1 ms. */
const CPU_MS_PER_RANGE = 0.1;
/** workerd piping R2 bodies: 3.3 GB per CPU-second (docs/edge-streaming.md). */
const PIPE_BYTES_PER_CPU_MS = 3.3e6;

/**
 * Storage data reads of a sync, request by request as the edge plans them (edge/blocks/plan.ts,
 * bundle-segments.ts): a request's ranges inside one bundle are one read, so a request makes one
 * read per bundle it touches (a bundle split between two requests is read by both). Bundles over
 * their size cap (the spam era's) are counted as stored: ≈ 40 of mainnet's ≈ 340, so a lower bound
 * by up to 9 reads for each of those.
 */
export function dataReads(s: SyncShape): number {
  if (s.layout === undefined) return s.ranges;
  const { firstHeight, rangeSize, bundleRanges } = s.layout;
  const bundleBlocks = rangeSize * bundleRanges;
  const last = firstHeight + s.blocks - 1;
  let reads = 0;
  for (let a = firstHeight; a <= last; a += s.blocksPerRequest) {
    const b = Math.min(last, a + s.blocksPerRequest - 1);
    reads += Math.floor(b / bundleBlocks) - Math.floor(a / bundleBlocks) + 1;
  }
  return reads;
}

export function perSync(s: SyncShape): PerSync {
  const requests = Math.ceil(s.blocks / s.blocksPerRequest) + 3; // + GetLatestBlock, GetLightdInfo, GetTreeState
  const reads = dataReads(s);
  return {
    workerRequests: requests,
    classB: { low: reads, high: reads + s.ranges },
    cpuMs: {
      low: reads * CPU_MS_PER_RANGE + requests,
      high: reads * CPU_MS_PER_RANGE + requests + s.bytes / PIPE_BYTES_PER_CPU_MS,
    },
  };
}

export interface MonthlyRow {
  walletsPerDay: number;
  edge: { low: number; high: number };
  /** Compute and nodes (low … high rate) and egress, apart: egress is the larger part. */
  fleet: {
    low: number;
    high: number;
    vcpus: { low: number; high: number };
    replicas: number;
    egress: number;
  };
  egressTB: number;
}

/** Monthly cost at `walletsPerDay` full syncs a day (30-day month), storage included. */
export function monthly(walletsPerDay: number, s: SyncShape, storedBytes: number): MonthlyRow {
  const syncs = walletsPerDay * 30;
  const one = perSync(s);
  const storage = Math.max(0, storedBytes / 1e9 - 10) * PRICES.r2StorageGBMonth;
  const edgeCost = (classB: number, cpuMs: number) =>
    PRICES.workersBaseMonth +
    storage +
    (Math.max(0, syncs * classB - PRICES.r2FreeClassB) / 1e6) * PRICES.r2ClassBPerMillion +
    (Math.max(0, syncs * one.workerRequests - PRICES.workersIncludedRequests) / 1e6) *
      PRICES.workersRequestsPerMillion +
    (Math.max(0, syncs * cpuMs - PRICES.workersIncludedCpuMs) / 1e6) * PRICES.workersCpuMsPerMillion;
  const egressGB = (syncs * s.bytes) / 1e9;
  const vcpusFor = (rate: number) =>
    Math.max(1, Math.ceil((walletsPerDay * s.blocks) / rate / 86_400 / FLEET.utilisation));
  const vcpus = {
    low: vcpusFor(FLEET.lwdBlocksPerCpuSec.high),
    high: vcpusFor(FLEET.lwdBlocksPerCpuSec.low),
  };
  // One node per 16 lightwalletd vCPUs (an assumption), at least two for redundancy.
  const replicas = Math.max(2, Math.ceil(vcpus.high / 16));
  const nodeCost = replicas * (FLEET.nodeVcpus * FLEET.vcpuMonth + FLEET.nodeDiskGB * FLEET.diskGBMonth);
  const fleetCost = (v: number) => v * FLEET.vcpuMonth + nodeCost;
  return {
    walletsPerDay,
    edge: { low: edgeCost(one.classB.low, one.cpuMs.low), high: edgeCost(one.classB.high, one.cpuMs.high) },
    fleet: {
      low: fleetCost(vcpus.low),
      high: fleetCost(vcpus.high),
      vcpus,
      replicas,
      egress: egressGB * FLEET.egressPerGB,
    },
    egressTB: egressGB / 1000,
  };
}

export function costTable(s: SyncShape, storedBytes: number): string {
  const one = perSync(s);
  const usd = (x: number) => `$${x < 100 ? x.toFixed(2) : Math.round(x).toLocaleString("en-US")}`;
  const lines = [
    `Per full wallet sync (${s.blocks.toLocaleString("en-US")} blocks, ${s.ranges.toLocaleString("en-US")} ranges, ` +
      `${(s.bytes / 1e9).toFixed(1)} GB, ${s.blocksPerRequest.toLocaleString("en-US")} blocks per request): ` +
      `${one.workerRequests} Worker requests, ${one.classB.low.toLocaleString("en-US")}–${one.classB.high.toLocaleString("en-US")} ` +
      `R2 Class B reads, ${Math.round(one.cpuMs.low)}–${Math.round(one.cpuMs.high).toLocaleString("en-US")} CPU-ms.`,
    `R2 storage of the whole store: ${(storedBytes / 1e9).toFixed(1)} GB → ${usd((storedBytes / 1e9) * PRICES.r2StorageGBMonth)} per month.`,
    "",
    "| full syncs per day | edge: R2 + Workers per month | lightwalletd fleet: compute + nodes per month | fleet vCPUs (+ full nodes) | fleet egress per month ($0.05/GB) |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const n of [1_000, 100_000, 1_000_000]) {
    const r = monthly(n, s, storedBytes);
    lines.push(
      `| ${n.toLocaleString("en-US")} | ${usd(r.edge.low)}–${usd(r.edge.high)} | ${usd(r.fleet.low)}–${usd(r.fleet.high)} | ` +
        `${r.fleet.vcpus.low.toLocaleString("en-US")}–${r.fleet.vcpus.high.toLocaleString("en-US")} (+${r.fleet.replicas} nodes) | ` +
        `${usd(r.fleet.egress)} (${r.egressTB.toLocaleString("en-US", { maximumFractionDigits: 0 })} TB) |`,
    );
  }
  return lines.join("\n");
}
