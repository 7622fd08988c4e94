// GetBlockRange of N blocks from the edge under wrangler dev (workerd, local R2) side by side with
// a node:http static server streaming the same bytes; then GetLatestBlock / GetLightdInfo p50.
// Usage: node bench/edge-range.ts [--blocks 10000] [--rounds 3] [--range-size 1000] [--kb 5.7]
// Blocks carry real corpus transactions; corpus blocks are small (≈ 0.13 KB shielded), so each
// synthetic block gathers the vtx of consecutive real blocks until its shielded message reaches
// --kb (mainnet's average is ≈ 5.7 KB; --kb 0 keeps the real blocks as they are).
import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { create, toBinary } from "@bufbuild/protobuf";
import { startEdgeDev } from "../origin/cli/commands/edge.ts";
import { encodeFrame } from "../proto/frame.ts";
import { BlockRangeSchema } from "../proto/index.ts";
import { FORMAT_VERSION } from "../proto/range/index.ts";
import { seedLocalR2 } from "../test/support/seed-local-r2.ts";
import { syntheticChain } from "./edge-synthetic-chain.ts";

const { values } = parseArgs({
  options: {
    blocks: { type: "string", default: "10000" },
    rounds: { type: "string", default: "3" },
    "range-size": { type: "string", default: "1000" },
    kb: { type: "string", default: "5.7" },
  },
});
const N = Number(values.blocks);
const ROUNDS = Number(values.rounds);
const RANGE = Number(values["range-size"]);
let requests = 0;
const TARGET_BYTES = Number(values.kb) * 1000;
const FIRST = 2_000_000; // a range boundary; heights are synthetic, block contents are real

const setup0 = performance.now();
const phase = (name: string) =>
  process.stderr.write(`setup: ${name} at ${((performance.now() - setup0) / 1000).toFixed(1)} s\n`);
// The synthetic chain and its seeded local R2 state are kept between runs (building and seeding
// take minutes on a busy 2-core machine); the key names everything that shapes them.
const cacheDir = join(tmpdir(), "lightedge-edge-bench", `n${N}-kb${values.kb}-r${RANGE}-v${FORMAT_VERSION}`);
const file = join(cacheDir, "range.bin");
const persist = join(cacheDir, "persist");
if (!existsSync(join(cacheDir, "ready"))) {
  rmSync(cacheDir, { recursive: true, force: true });
  mkdirSync(cacheDir, { recursive: true });
  const chain = syntheticChain(N, FIRST, RANGE, TARGET_BYTES);
  phase("blocks built and sealed");
  writeFileSync(file, chain.body);
  // Only what GetBlockRange reads: the metadata, the shielded frames and the head.
  const needed = new Map([...chain.objects].filter(([key]) => !/\.(full|nullifiers)\.bin$/.test(key)));
  await seedLocalR2(persist, needed);
  writeFileSync(join(cacheDir, "ready"), "");
  phase("local R2 seeded");
}
const body = readFileSync(file);
const dir = mkdtempSync(join(tmpdir(), "lightedge-bench-"));
const edge = await startEdgeDev({ port: 0, persist, quiet: true });
phase("edge up");
const staticServer = spawn(
  process.execPath,
  [new URL("./edge-static-server.ts", import.meta.url).pathname, file],
  { stdio: ["ignore", "pipe", "inherit"] },
);
const staticPort = Number(
  await new Promise<string>((r) => staticServer.stdout!.once("data", (d) => r(String(d)))),
);
const request = encodeFrame(
  toBinary(
    BlockRangeSchema,
    create(BlockRangeSchema, { start: { height: BigInt(FIRST) }, end: { height: BigInt(FIRST + N - 1) } }),
  ),
);
const rpcUrl = `${edge.url}/cash.z.wallet.sdk.rpc.CompactTxStreamer`;
const proxyPid = listenerPid(Number(new URL(edge.url).port));
const requestFile = join(dir, "request.bin");
writeFileSync(requestFile, request);
// curl is the client (as in edge-streaming.md's probe): it costs far less CPU than a Node client
// on the same two cores, so the servers, not the client, set the pace.
const targets = {
  edge: {
    pids: () => tree(edge.child.pid!),
    curl: [
      "-X",
      "POST",
      "-H",
      "content-type: application/grpc-web+proto",
      "--data-binary",
      `@${requestFile}`,
      `${rpcUrl}/GetBlockRange`,
    ],
  },
  static: { pids: () => [staticServer.pid!], curl: [`http://127.0.0.1:${staticPort}/`] },
};

console.log(
  `GetBlockRange of ${N} blocks, ${(body.length / N / 1000).toFixed(2)} KB/block of shielded frames (real corpus transactions), ${ROUNDS} rounds per client`,
);
console.log("server   clients  blocks/s    MB/s   server CPU s per 1M blocks  blocks per server CPU-s");
try {
  for (const clients of [1, 16]) {
    const row: Record<string, { bps: number; mbps: number; cpuPerM: number; ownCpuPerM: number }> = {};
    for (const [name, t] of Object.entries(targets)) {
      await run(t, 1, 1); // warm-up
      const r = await run(t, clients, ROUNDS);
      row[name] = r;
      console.log(
        `${name.padEnd(8)} ${String(clients).padStart(7)}  ${r.bps.toFixed(0).padStart(8)}  ${r.mbps.toFixed(0).padStart(6)}   ${r.cpuPerM.toFixed(2).padStart(24)}  ${(1e6 / r.cpuPerM).toFixed(0).padStart(22)}   (CPU s: ${r.split})`,
      );
    }
    console.log(
      `  ratio edge/static at ${clients}: throughput ${(row.edge!.bps / row.static!.bps).toFixed(2)}×, CPU per block ${(row.edge!.cpuPerM / row.static!.cpuPerM).toFixed(2)}× (${(row.edge!.ownCpuPerM / row.static!.cpuPerM).toFixed(2)}× without wrangler dev's proxy workerd)`,
    );
  }
  // Latency: the same Node client against /healthz (the floor wrangler dev's proxy hop sets), side
  // by side with the two RPCs.
  const unary = (method: string) => () =>
    fetch(`${rpcUrl}/${method}`, {
      method: "POST",
      headers: { "content-type": "application/proto" },
      body: new Uint8Array(0),
    });
  const probes: [string, () => Promise<Response>][] = [
    ["edge /healthz (floor)", () => fetch(`${edge.url}/healthz`)],
    ["GetLatestBlock, Connect proto", unary("GetLatestBlock")],
    ["GetLightdInfo, Connect proto", unary("GetLightdInfo")],
  ];
  for (const [name, call] of probes) {
    const times: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t0 = performance.now();
      const res = await call();
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${name}: HTTP ${res.status}`);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(
      `${name.padEnd(36)} 300 sequential calls: p50 ${times[150]!.toFixed(2)} ms, p99 ${times[297]!.toFixed(2)} ms`,
    );
  }
} finally {
  staticServer.kill();
  await edge.stop();
  rmSync(dir, { recursive: true, force: true });
}

async function run(t: { pids: () => number[]; curl: string[] }, clients: number, rounds: number) {
  const pids = t.pids();
  const cpu0 = cpuSeconds(pids);
  const each0 = pids.map((p) => cpuSeconds([p]));
  const t0 = performance.now();
  const sizes = await Promise.all(
    Array.from({ length: clients }, async () => {
      let bytes = 0;
      for (let i = 0; i < rounds; i++) bytes += await curl(t.curl);
      return bytes;
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(pids) - cpu0;
  const bytes = sizes.reduce((a, b) => a + b, 0);
  const blocks = N * clients * rounds;
  if (bytes !== body.length * clients * rounds)
    throw new Error(`body size ${bytes}, expected ${body.length * clients * rounds}`);
  const used = pids.map((p, i) => cpuSeconds([p]) - each0[i]!);
  const split = pids
    .map((p, i) => `${processName(p)} ${used[i]!.toFixed(2)}`)
    .filter((x) => !x.endsWith(" 0.00"));
  const proxyCpu = pids.reduce((sum, p, i) => (p === proxyPid ? sum + used[i]! : sum), 0);
  return {
    bps: blocks / seconds,
    mbps: bytes / seconds / 1e6,
    cpuPerM: (cpu / blocks) * 1e6,
    /** Without wrangler dev's proxy hop, which a deployed Worker does not have. */
    ownCpuPerM: ((cpu - proxyCpu) / blocks) * 1e6,
    split: split.join(", "),
  };
}

/** The workerd that owns the edge's public port is wrangler dev's proxy worker, not the edge. */
function listenerPid(port: number): number | undefined {
  try {
    const line = execFileSync("ss", ["-ltnpH", `sport = :${port}`], { encoding: "utf8" });
    return Number(/pid=(\d+)/.exec(line)?.[1]) || undefined;
  } catch {
    return undefined;
  }
}

function processName(pid: number): string {
  if (pid === proxyPid) return "workerd(wrangler-dev proxy)";
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return (
      args
        .find((a) => /workerd$|wrangler\.js$|wrangler-dist|static-server/.test(a))
        ?.split("/")
        .pop() ?? String(pid)
    );
  } catch {
    return String(pid);
  }
}

/** One request with curl; resolves to the bytes received, refusing a body that is not the expected one. */
function curl(args: string[]): Promise<number> {
  const out = join(dir, `response-${requests++ % 64}.bin`);
  return new Promise((resolve, reject) => {
    const child = spawn("curl", ["-s", "-o", out, ...args]);
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`curl exited ${code}`));
      const got = readFileSync(out);
      if (got.length !== body.length) {
        return reject(
          new Error(
            `short body (${got.length} of ${body.length} bytes), ends: ${JSON.stringify(got.subarray(-200).toString("latin1"))}`,
          ),
        );
      }
      resolve(got.length);
    });
  });
}

/** A process and all its descendants (wrangler's node process runs workerd as a child). */
function tree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      parents.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {}
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parents) if (ppid === out[i]) out.push(pid);
  return out;
}

/** utime + stime of the processes, in seconds (USER_HZ = 100 on Linux). */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, "utf8")
        .slice(readFileSync(`/proc/${pid}/stat`, "utf8").lastIndexOf(")") + 2)
        .split(" ");
      ticks += Number(f[11]) + Number(f[12]);
    } catch {}
  }
  return ticks / 100;
}
