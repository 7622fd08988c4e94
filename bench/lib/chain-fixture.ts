import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { processCpuSeconds } from "./proc-cpu.ts";
import { watchProcess } from "./process-watch.ts";
import { type SpawnedServer, spawnServer } from "./spawn.ts";

const run = promisify(execFile);

export interface ChainOptions {
  repoRoot: string;
  tmp: string;
  blocks: number;
  rangeSize: number;
  seed: string;
  /** Run `lightedge backfill-trees` after indexing (else `treesBackfillSec` is NaN). */
  treesBackfill: boolean;
  /** More `bench/origin-devnode.ts` flags (e.g. `--transparent heavy`). */
  devnodeArgs?: string[];
  /** Where the store and the origin's data go (default: the run's tmp dir). */
  dir?: string;
  log(message: string): void;
}

export interface IndexStats {
  blocks: number;
  devnodeStartupSec: number;
  devnodeStartupCpuSec: number;
  seconds: number;
  originCpuSec: number;
  devnodeCpuSec: number;
  peakRssMiB: number;
  /** `lightedge index`'s RSS every 5 s while it indexed (MiB). */
  rssSeriesMiB: number[];
  /** `lightedge backfill-trees` after indexing (not part of the index figures); NaN when skipped. */
  treesBackfillSec: number;
}

export interface ChainFixture {
  network: "regtest";
  devnode: SpawnedServer;
  storeDir: string;
  dataDir: string;
  stats: IndexStats;
}

/**
 * A synthetic chain served by the dev node (its own process), indexed end to end by the real
 * `lightedge index --exit-when-synced` (its own process) into a directory store. The dev node's
 * start-up (hashing every header) is timed apart from indexing, as it is not the origin's cost.
 */
export async function buildChain(o: ChainOptions): Promise<ChainFixture> {
  const t0 = performance.now();
  const devnode = await spawnServer(
    "devnode",
    [
      process.execPath,
      join(o.repoRoot, "bench/origin-devnode.ts"),
      "--blocks",
      String(o.blocks),
      "--seed",
      o.seed,
      ...(o.devnodeArgs ?? []),
    ],
    { timeoutMs: 1_800_000 },
  );
  const devnodeStartupSec = (performance.now() - t0) / 1000;
  const devnodeStartupCpuSec = processCpuSeconds(devnode.pid);
  o.log(`dev node: ${o.blocks} blocks ready in ${devnodeStartupSec.toFixed(1)} s`);
  const storeDir = join(o.dir ?? o.tmp, "store");
  const dataDir = join(o.dir ?? o.tmp, "origin-data");
  const args = [
    ...["index", "--node", devnode.url, "--network", "regtest", "--store", `dir:${storeDir}`],
    ...["--data-dir", dataDir, "--range-size", String(o.rangeSize), "--exit-when-synced"],
    ...["--admin", "off", "--progress", "off", "--log-level", "warn"],
  ];
  const started = performance.now();
  const child = spawn(process.execPath, [join(o.repoRoot, "origin/cli/main.ts"), ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-4000);
  });
  const watch = watchProcess(child.pid!);
  const devCpu0 = processCpuSeconds(devnode.pid);
  const code = await new Promise<number | null>((r) => child.once("exit", r));
  const seconds = (performance.now() - started) / 1000;
  const { cpuSec, peakRssMiB, rssSeriesMiB } = watch.stop();
  if (code !== 0) {
    await devnode.stop();
    throw new Error(`lightedge index exited with ${code}: ${stderr}`);
  }
  o.log(
    `lightedge index: ${o.blocks} blocks in ${seconds.toFixed(1)} s, ${cpuSec.toFixed(1)} CPU-s, ` +
      `peak RSS ${Math.round(peakRssMiB)} MiB (${rssSeriesMiB.map(Math.round).join(" ")})`,
  );
  let treesBackfillSec = Number.NaN;
  if (o.treesBackfill) {
    treesBackfillSec = await backfillTrees(o, devnode, storeDir, dataDir);
    o.log(`backfill-trees: tree states of every sealed range in ${treesBackfillSec.toFixed(1)} s`);
  }
  const stats: IndexStats = {
    blocks: o.blocks,
    devnodeStartupSec,
    devnodeStartupCpuSec,
    seconds,
    originCpuSec: cpuSec,
    devnodeCpuSec: processCpuSeconds(devnode.pid) - devCpu0,
    peakRssMiB,
    rssSeriesMiB,
    treesBackfillSec,
  };
  return { network: "regtest", devnode, storeDir, dataDir, stats };
}

/**
 * Tree states of every sealed range (`lightedge backfill-trees`, its own process), so GetTreeState
 * is answered from storage at the edge and the origin, as issue 10 measures it — without them both
 * fall back to the node (the edge through the origin).
 */
async function backfillTrees(o: ChainOptions, devnode: SpawnedServer, storeDir: string, dataDir: string) {
  const started = performance.now();
  const args = [
    ...["backfill-trees", "--node", devnode.url, "--network", "regtest", "--store", `dir:${storeDir}`],
    ...["--data-dir", dataDir, "--range-size", String(o.rangeSize), "--log-level", "warn"],
  ];
  try {
    await run(process.execPath, [join(o.repoRoot, "origin/cli/main.ts"), ...args], { maxBuffer: 1 << 24 });
  } catch (err) {
    await devnode.stop();
    throw new Error(`lightedge backfill-trees failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  return (performance.now() - started) / 1000;
}
