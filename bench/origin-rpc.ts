// Origin RPC bench (issue 7): per-RPC latency (sequential calls, one gRPC client) and
// throughput at 1/16/64/256 concurrent clients, each on its own HTTP/2 connection, against
// `lightedge origin` (separate process) indexing a dev node (separate process).
// usage: node bench/origin-rpc.ts [--full] [--calls N] [--blocks N] [--ghz]
//   short (default): 500 calls per RPC, 2 s per concurrency level, 3,000-block chain
//   --full: 10 s per level, 20,000-block chain.  --ghz: also run ghz (if installed) at 256 clients.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs, promisify } from "node:util";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { knownScripts, scriptAddress } from "../origin/devnode/index.ts";
import { CompactTxStreamer, ShieldedProtocol } from "../proto/index.ts";
import { processCpuSeconds } from "./lib/proc-cpu.ts";
import { type SpawnedServer, spawnServer } from "./lib/spawn.ts";
import { latencySummary, round } from "./lib/stats.ts";
import { ghzAvailable, runGhz } from "./origin-ghz.ts";

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    full: { type: "boolean", default: false },
    calls: { type: "string", default: "500" },
    blocks: { type: "string" },
    ghz: { type: "boolean", default: false },
  },
});
const full = values.full === true;
const blocks = Number(values.blocks ?? (full ? 20_000 : 3_000));
const calls = Number(values.calls);
const levelMs = full ? 10_000 : 2_000;
const here = new URL(".", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "lightedge-origin-bench-"));
const procs: SpawnedServer[] = [];

async function startStack(): Promise<{ devUrl: string; origin: SpawnedServer }> {
  const dev = await spawnServer("devnode", [
    process.execPath,
    join(here, "origin-devnode.ts"),
    "--blocks",
    String(blocks),
  ]);
  procs.push(dev);
  const origin = await spawnServer("origin", [
    process.execPath,
    join(here, "../origin/cli/main.ts"),
    "origin",
    "--node",
    dev.url,
    "--network",
    "regtest",
    "--store",
    `dir:${join(dir, "store")}`,
    "--data-dir",
    join(dir, "data"),
    "--listen",
    "127.0.0.1:0",
    "--admin",
    "off",
    "--ping",
    "--log-level",
    "warn",
    "--progress",
    "off",
  ]);
  procs.push(origin);
  return { devUrl: dev.url, origin };
}

const { devUrl, origin } = await startStack();
const client = createClient(CompactTxStreamer, createGrpcTransport({ baseUrl: origin.url }));
const syncStart = performance.now();
for (;;) {
  const tip = await client.getLatestBlock({}).then(
    (b) => Number(b.height),
    () => -1,
  );
  if (tip === blocks - 1) break;
  await new Promise((r) => setTimeout(r, 100));
}
const syncSeconds = (performance.now() - syncStart) / 1000;
await fetch(new URL("control/mempool", devUrl), { method: "POST", body: JSON.stringify({ count: 20 }) });

const tip = blocks - 1;
const address = scriptAddress(knownScripts()[0]!, "regtest")!;
const minedTx = (await client.getBlock({ height: BigInt(tip - 5) })).vtx[0]!.txid;
const drain = async (s: AsyncIterable<unknown>) => {
  let n = 0;
  for await (const _ of s) n++;
  return n;
};
let h = 0;
const nextHeight = () => {
  h = (h + 7919) % blocks;
  return BigInt(h);
};

/** Every RPC but GetMempoolStream (long-lived by design); streams are timed to their end. */
const rpcs: Record<string, () => Promise<unknown>> = {
  GetLatestBlock: () => client.getLatestBlock({}),
  GetBlock: () => client.getBlock({ height: nextHeight() }),
  GetBlockNullifiers: () => client.getBlockNullifiers({ height: nextHeight() }),
  "GetBlockRange(10)": () =>
    drain(client.getBlockRange({ start: { height: 1000n }, end: { height: 1009n } })),
  "GetBlockRangeNullifiers(10)": () =>
    drain(client.getBlockRangeNullifiers({ start: { height: 1000n }, end: { height: 1009n } })),
  GetTransaction: () => client.getTransaction({ hash: minedTx }),
  "SendTransaction(rejected)": () => client.sendTransaction({ data: Uint8Array.of(1, 2, 3) }),
  GetTaddressTxids: () =>
    drain(client.getTaddressTxids({ address, range: { start: { height: BigInt(tip - 30) } } })),
  GetTaddressTransactions: () =>
    drain(client.getTaddressTransactions({ address, range: { start: { height: BigInt(tip - 30) } } })),
  GetTaddressBalance: () => client.getTaddressBalance({ addresses: [address] }),
  GetTaddressBalanceStream: () =>
    client.getTaddressBalanceStream(
      (async function* () {
        yield { address };
      })(),
    ),
  GetMempoolTx: () => drain(client.getMempoolTx({})),
  GetTreeState: () => client.getTreeState({ height: nextHeight() }),
  GetLatestTreeState: () => client.getLatestTreeState({}),
  GetSubtreeRoots: () => drain(client.getSubtreeRoots({ shieldedProtocol: ShieldedProtocol.sapling })),
  GetAddressUtxos: () => client.getAddressUtxos({ addresses: [address], maxEntries: 10 }),
  GetAddressUtxosStream: () => drain(client.getAddressUtxosStream({ addresses: [address], maxEntries: 10 })),
  GetLightdInfo: () => client.getLightdInfo({}),
  Ping: () => client.ping({ intervalUs: 0n }),
};

const latency: Record<string, { p50Ms: number; p99Ms: number; n: number }> = {};
for (const [name, call] of Object.entries(rpcs)) {
  await call(); // warm: caches and connections, as a wallet's second call sees them
  const ms: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await call();
    ms.push(performance.now() - t);
  }
  latency[name] = latencySummary(ms);
}

async function throughput(clients: number) {
  const processes = Math.min(2, clients);
  const cpu0 = processCpuSeconds(origin.pid);
  const started = performance.now();
  const parts = await Promise.all(
    Array.from({ length: processes }, (_, p) => {
      const share = Math.floor(clients / processes) + (p < clients % processes ? 1 : 0);
      const spec = { url: origin.url, clients: share, durationMs: levelMs, tip, seed: p + 1 };
      return run(process.execPath, [join(here, "origin-load-child.ts"), JSON.stringify(spec)], {
        maxBuffer: 1 << 28,
      }).then(
        ({ stdout }) =>
          JSON.parse(stdout) as {
            requests: number;
            errors: number;
            latenciesMs: number[];
            errorSamples: string[];
          },
      );
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const requests = parts.reduce((a, p) => a + p.requests, 0);
  const { p50Ms, p99Ms } = latencySummary(parts.flatMap((p) => p.latenciesMs));
  return {
    clients,
    requestsPerSec: round(requests / seconds, 0),
    errors: parts.reduce((a, p) => a + p.errors, 0),
    p50Ms,
    p99Ms,
    originCpuSecPer1kRequests: round(
      ((processCpuSeconds(origin.pid) - cpu0) / Math.max(1, requests)) * 1000,
      4,
    ),
    errorSamples: parts.flatMap((p) => p.errorSamples).slice(0, 3),
  };
}

const levels = [];
for (const clients of [1, 16, 64, 256]) levels.push(await throughput(clients));

let ghz: unknown;
if (values.ghz)
  ghz = (await ghzAvailable())
    ? await runGhz(origin.url, { clients: 256, requests: full ? 100_000 : 10_000, tip })
    : "ghz not installed";

for (const p of procs.reverse()) await p.stop();
rmSync(dir, { recursive: true, force: true });

console.log("RPC latency, sequential calls over one gRPC (h2c) connection:");
console.table(latency);
console.log("Throughput: GetLatestBlock/GetBlock alternating, one HTTP/2 connection per client:");
console.table(levels.map(({ errorSamples: _e, ...row }) => row));
const report = {
  mode: full ? "full" : "short",
  blocks,
  callsPerRpc: calls,
  syncSeconds: round(syncSeconds, 2),
  latency,
  throughput: levels,
  ghz,
};
console.log(JSON.stringify(report));
const at256 = levels.find((l) => l.clients === 256)!;
if (at256.errors > 0) {
  console.error(`256 clients produced ${at256.errors} errors: ${at256.errorSamples.join(" | ")}`);
  process.exitCode = 1;
}
