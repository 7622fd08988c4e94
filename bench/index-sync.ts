// Indexer throughput, end to end: a dev node (its own process) serving a synthetic chain, the
// indexer (this process) syncing it into a directory store with the production settings.
// Reports blocks/s, origin and dev-node CPU seconds per 1,000 blocks (from /proc), peak RSS, and
// side by side the origin's own ceiling (parse + project + seal on prefetched blocks, no RPC).
//
// usage: node [--expose-gc] bench/index-sync.ts [--blocks 200000] [--concurrency 8] [--chunk 50]
//          [--range-size 1000] [--blake2b wasm|noble] [--ceiling-seconds 3]
import { parseArgs } from "node:util";
import { pino } from "pino";
import { Registry } from "prom-client";
import { createIndexMetrics } from "../origin/admin/index-metrics.ts";
import { blake2bBackend, useBlake2bBackend } from "../origin/chain/blake2b.ts";
import { buildIndexedBlock } from "../origin/index/build-block.ts";
import { codecOptions } from "../origin/index/codec-options.ts";
import { createIndexer } from "../origin/index/indexer.ts";
import { tempDir } from "../origin/index/testing.ts";
import { createNodeClient, type NodeBlock } from "../origin/node/index.ts";
import { createDirectoryStore } from "../origin/store/index.ts";
import { encodeSealedRange } from "../proto/range/index.ts";
import { peakRssMiB, processCpuSeconds } from "./lib/proc-cpu.ts";
import { spawnServer } from "./lib/spawn.ts";

const { values } = parseArgs({
  options: {
    blocks: { type: "string", default: "200000" },
    concurrency: { type: "string", default: "8" },
    chunk: { type: "string", default: "50" },
    "range-size": { type: "string", default: "1000" },
    seed: { type: "string", default: "index-bench" },
    // "noble" forces origin/chain's pure-JS BLAKE2b fallback, for a side-by-side with the default.
    blake2b: { type: "string", default: "wasm" },
    // 0 skips the ceiling measurement (e.g. under --cpu-prof, so the profile is the sync alone).
    "ceiling-seconds": { type: "string", default: "3" },
  },
});
const blocks = Number(values.blocks);
if (values.blake2b === "noble") useBlake2bBackend("noble");
const rangeSize = Number(values["range-size"]);

const devnode = await spawnServer(
  "devnode",
  [
    process.execPath,
    new URL("./origin-devnode.ts", import.meta.url).pathname,
    "--blocks",
    String(blocks),
    "--seed",
    values.seed,
  ],
  { timeoutMs: 3_600_000 },
);
const store = tempDir("bench-store");
const data = tempDir("bench-data");
const node = createNodeClient({ url: devnode.url, network: "regtest", maxInFlight: 16 });

try {
  const ceilingSeconds = Number(values["ceiling-seconds"]);
  const ceiling =
    ceilingSeconds > 0
      ? await originCeiling(await node.blocks(0, Math.min(blocks, 2 * rangeSize) - 1), ceilingSeconds)
      : Number.NaN;
  const registry = new Registry();
  const indexer = createIndexer({
    chain: node,
    info: node,
    store: createDirectoryStore(store.path),
    network: "regtest",
    dataDir: data.path,
    rangeSize,
    sealDepth: 100,
    concurrency: Number(values.concurrency),
    chunkSize: Number(values.chunk),
    fromHeight: 0,
    pollMs: 200,
    log: pino({ level: "warn" }),
    metrics: createIndexMetrics(registry),
  });
  const cpu0 = { origin: processCpuSeconds(process.pid), devnode: processCpuSeconds(devnode.pid) };
  // Live heap + ArrayBuffers sampled every 5 s after a forced GC (run with --expose-gc): it must stay flat as the
  // chain grows (memory bounded by settings, not length), unlike peak RSS which includes GC slack.
  const gc = (globalThis as { gc?: () => void }).gc;
  const live: number[] = [];
  const sampler = gc
    ? setInterval(() => {
        gc();
        const m = process.memoryUsage();
        live.push((m.heapUsed + m.arrayBuffers) / 2 ** 20);
      }, 5_000)
    : undefined;
  const t0 = performance.now();
  await indexer.start();
  await indexer.synced();
  clearInterval(sampler);
  const seconds = (performance.now() - t0) / 1000;
  const originCpu = processCpuSeconds(process.pid) - cpu0.origin;
  const devnodeCpu = processCpuSeconds(devnode.pid) - cpu0.devnode;
  const status = indexer.status();
  await indexer.stop();
  const indexed = status.tip + 1;
  const result = {
    blocks: indexed,
    blake2b: blake2bBackend(),
    sealedTip: status.sealedTip,
    seconds: round(seconds),
    blocksPerSecond: round(indexed / seconds),
    originCpuSecondsPer1000: round((originCpu * 1000) / indexed),
    devnodeCpuSecondsPer1000: round((devnodeCpu * 1000) / indexed),
    originPeakRssMiB: round(peakRssMiB(process.pid)),
    originLiveHeapMiB: gc ? live.map(round) : undefined,
    originCeilingBlocksPerSecond: round(ceiling),
    endToEndVsCeiling: round(indexed / seconds / ceiling),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  node.close();
  await devnode.stop();
  store.remove();
  data.remove();
}

/** Blocks/s of parse + three projections + range encoding on one core, on blocks already fetched. */
async function originCeiling(sample: NodeBlock[], seconds: number): Promise<number> {
  const start = performance.now();
  let done = 0;
  while (performance.now() - start < seconds * 1000) {
    const built = sample.map((b) => buildIndexedBlock(b));
    for (let i = 0; i + rangeSize <= built.length; i += rangeSize) {
      encodeSealedRange(
        { network: "regtest", rangeSize, index: i / rangeSize, blocks: built.slice(i, i + rangeSize) },
        codecOptions,
      );
    }
    done += built.length;
  }
  return (done * 1000) / (performance.now() - start);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
