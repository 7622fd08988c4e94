// GetBlockRange of N blocks from the edge (workerd, local R2) side by side with a node:http static
// server streaming the same bytes; small ranges over one keep-alive connection; then GetLatestBlock /
// GetLightdInfo p50.
// Usage: node bench/edge-range.ts [--blocks 10000] [--rounds 3] [--range-size 1000] [--kb 5.7]
//          [--runtime wrangler|miniflare|miniflare=BUNDLE_DIR[,…]] [--clients 1,16]
//          [--small 10,100] [--small-requests 200] [--calls 300]
// --runtime (edge-runtimes.ts): `wrangler` is `wrangler dev` (a proxy workerd in front of the
// worker's), `miniflare` the deploy bundle under Miniflare alone (one workerd); several are measured
// side by side in one run.
// Blocks carry real corpus transactions; corpus blocks are small (≈ 0.13 KB shielded), so each
// synthetic block gathers the vtx of consecutive real blocks until its shielded message reaches
// --kb (mainnet's average is ≈ 5.7 KB; --kb 0 keeps the real blocks as they are).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { create, toBinary } from "@bufbuild/protobuf";
import { encodeFrame } from "../proto/frame.ts";
import { BlockRangeSchema } from "../proto/index.ts";
import { FORMAT_VERSION } from "../proto/range/index.ts";
import { seedLocalR2 } from "../test/support/seed-local-r2.ts";
import { type EdgeRuntime, startEdgeRuntime } from "./edge-runtimes.ts";
import { syntheticChain } from "./edge-synthetic-chain.ts";

const { values } = parseArgs({
  options: {
    blocks: { type: "string", default: "10000" },
    rounds: { type: "string", default: "3" },
    "range-size": { type: "string", default: "1000" },
    kb: { type: "string", default: "5.7" },
    runtime: { type: "string", default: "wrangler" },
    clients: { type: "string", default: "1,16" },
    small: { type: "string", default: "10,100" },
    "small-requests": { type: "string", default: "200" },
    calls: { type: "string", default: "300" },
  },
});
const N = Number(values.blocks);
const ROUNDS = Number(values.rounds);
const RANGE = Number(values["range-size"]);
const list = (v: string) => v.split(",").filter((x) => x !== "");
const RUNTIMES = list(values.runtime);
const CLIENTS = list(values.clients).map(Number);
const SMALL = list(values.small).map(Number);
const SMALL_REQUESTS = Number(values["small-requests"]);
const CALLS = Number(values.calls);
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
const frameEnds = frameOffsets();
const dir = mkdtempSync(join(tmpdir(), "lightedge-bench-"));
const runtimes: EdgeRuntime[] = [];
for (const spec of RUNTIMES) {
  runtimes.push(await startEdgeRuntime(spec, persist));
  phase(`edge up under ${spec}`);
}
const staticServer = spawn(
  process.execPath,
  [new URL("./edge-static-server.ts", import.meta.url).pathname, file],
  { stdio: ["ignore", "pipe", "inherit"] },
);
const staticUrl = `http://127.0.0.1:${Number(
  await new Promise<string>((r) => staticServer.stdout!.once("data", (d) => r(String(d)))),
)}`;
const rangeRequest = (from: number, to: number) =>
  encodeFrame(
    toBinary(
      BlockRangeSchema,
      create(BlockRangeSchema, { start: { height: BigInt(from) }, end: { height: BigInt(to) } }),
    ),
  );
const requestFile = join(dir, "request.bin");
writeFileSync(requestFile, rangeRequest(FIRST, FIRST + N - 1));
const rpcUrl = (r: EdgeRuntime) => `${r.url}/cash.z.wallet.sdk.rpc.CompactTxStreamer`;
// curl is the client (as in edge-streaming.md's probe): it costs far less CPU than a Node client
// on the same two cores, so the servers, not the client, set the pace.
interface Target {
  name: string;
  pids: () => number[];
  proxyPid?: number;
  curl: string[];
  /** One small range (blocks i..j of the chain, 0-based) over the Node client's keep-alive pool. */
  range(i: number, j: number): Promise<Response>;
}
const targets: Target[] = [
  ...runtimes.map((r) => ({
    name: r.name,
    pids: r.pids,
    proxyPid: r.proxyPid,
    curl: [
      "-X",
      "POST",
      "-H",
      "content-type: application/grpc-web+proto",
      "--data-binary",
      `@${requestFile}`,
      `${rpcUrl(r)}/GetBlockRange`,
    ],
    range: (i: number, j: number) =>
      fetch(`${rpcUrl(r)}/GetBlockRange`, {
        method: "POST",
        headers: { "content-type": "application/grpc-web+proto" },
        body: rangeRequest(FIRST + i, FIRST + j) as Uint8Array<ArrayBuffer>,
      }),
  })),
  {
    name: "static",
    pids: () => [staticServer.pid!],
    curl: [`${staticUrl}/`],
    range: (i: number, j: number) => fetch(`${staticUrl}/?from=${i}&to=${j}`),
  },
];
const staticTarget = targets[targets.length - 1]!;

console.log(
  `GetBlockRange of ${N} blocks, ${(body.length / N / 1000).toFixed(2)} KB/block of shielded frames (real corpus transactions), ${ROUNDS} rounds per client`,
);
try {
  for (const clients of CLIENTS) {
    console.log(
      `server      clients  blocks/s    MB/s   server CPU s per 1M blocks  blocks per server CPU-s`,
    );
    const row = new Map<string, Awaited<ReturnType<typeof run>>>();
    for (const t of targets) {
      await run(t, 1, 1); // warm-up
      const r = await run(t, clients, ROUNDS);
      row.set(t.name, r);
      console.log(
        `${t.name.padEnd(11)} ${String(clients).padStart(7)}  ${r.bps.toFixed(0).padStart(8)}  ${r.mbps.toFixed(0).padStart(6)}   ${r.cpuPerM.toFixed(2).padStart(24)}  ${(1e6 / r.cpuPerM).toFixed(0).padStart(22)}   (CPU s: ${r.split})`,
      );
    }
    const st = row.get("static")!;
    for (const t of targets) {
      if (t === staticTarget) continue;
      const r = row.get(t.name)!;
      const own =
        t.proxyPid === undefined
          ? ""
          : ` (${(r.ownCpuPerM / st.cpuPerM).toFixed(2)}× without wrangler dev's proxy workerd)`;
      console.log(
        `  ${t.name}/static at ${clients}: throughput ${(r.bps / st.bps).toFixed(2)}×, CPU per block ${(r.cpuPerM / st.cpuPerM).toFixed(2)}×${own}`,
      );
    }
  }
  for (const size of SMALL.filter((n) => n <= N)) {
    const starts = Array.from({ length: SMALL_REQUESTS }, (_, k) => (k * 7919) % (N - size + 1));
    const row = new Map<string, number>();
    // The static server first: every other row is a ratio to it.
    for (const t of [staticTarget, ...targets.filter((x) => x !== staticTarget)]) {
      const r = await smallRanges(t, size, starts);
      row.set(t.name, r.bps);
      const vs = t === staticTarget ? "" : `, ${(r.bps / row.get("static")!).toFixed(2)}× static`;
      console.log(
        `${t.name.padEnd(11)} ${size}-block ranges, ${SMALL_REQUESTS} sequential on one connection: ${r.bps.toFixed(0)} blocks/s, p50 ${r.p50.toFixed(2)} ms${vs}`,
      );
    }
  }
  // Latency: the same Node client against /healthz (the floor the runtime's hops set), side by
  // side with the two RPCs.
  for (const r of runtimes) {
    const unary = (method: string) => () =>
      fetch(`${rpcUrl(r)}/${method}`, {
        method: "POST",
        headers: { "content-type": "application/proto" },
        body: new Uint8Array(0),
      });
    const probes: [string, () => Promise<Response>][] = [
      ["/healthz (floor)", () => fetch(`${r.url}/healthz`)],
      ["GetLatestBlock, Connect proto", unary("GetLatestBlock")],
      ["GetLightdInfo, Connect proto", unary("GetLightdInfo")],
    ];
    for (const [name, call] of probes) {
      const times: number[] = [];
      for (let i = 0; i < CALLS + 20; i++) {
        const t0 = performance.now();
        const res = await call();
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`${name}: HTTP ${res.status}`);
        if (i >= 20) times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      console.log(
        `${r.name.padEnd(11)} ${name.padEnd(30)} ${CALLS} sequential calls: p50 ${times[Math.floor(CALLS / 2)]!.toFixed(2)} ms, p99 ${times[Math.floor(CALLS * 0.99)]!.toFixed(2)} ms`,
      );
    }
  }
} finally {
  staticServer.kill();
  for (const r of runtimes) await r.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** Sequential small ranges at fixed starts; checks each body's size against the chain file. */
async function smallRanges(t: Target, size: number, starts: number[]) {
  const trailer = body.length - frameEnds[N]!;
  for (let w = 0; w < 10; w++) await (await t.range(starts[w]!, starts[w]! + size - 1)).arrayBuffer();
  const times: number[] = [];
  const t0 = performance.now();
  for (const i of starts) {
    const c0 = performance.now();
    const res = await t.range(i, i + size - 1);
    const got = (await res.arrayBuffer()).byteLength;
    times.push(performance.now() - c0);
    const want = frameEnds[i + size]! - frameEnds[i]! + trailer;
    if (got !== want)
      throw new Error(`${t.name}: ${size}-block range at ${i}: ${got} bytes, expected ${want}`);
  }
  const seconds = (performance.now() - t0) / 1000;
  times.sort((a, b) => a - b);
  return { bps: (size * starts.length) / seconds, p50: times[Math.floor(times.length / 2)]! };
}

/** Byte offset of each block's frame in the chain file (the last one is where the trailer starts). */
function frameOffsets(): number[] {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const out = [0];
  for (let k = 0; k < N; k++) out.push(out[k]! + 5 + view.getUint32(out[k]! + 1, false));
  return out;
}

async function run(t: Target, clients: number, rounds: number) {
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
    .map((p, i) => `${processName(p, t.proxyPid)} ${used[i]!.toFixed(2)}`)
    .filter((x) => !x.endsWith(" 0.00"));
  const proxyCpu = pids.reduce((sum, p, i) => (p === t.proxyPid ? sum + used[i]! : sum), 0);
  return {
    bps: blocks / seconds,
    mbps: bytes / seconds / 1e6,
    cpuPerM: (cpu / blocks) * 1e6,
    /** Without wrangler dev's proxy hop, which a deployed Worker does not have. */
    ownCpuPerM: ((cpu - proxyCpu) / blocks) * 1e6,
    split: split.join(", "),
  };
}

function processName(pid: number, proxyPid: number | undefined): string {
  if (pid === proxyPid) return "workerd(wrangler-dev proxy)";
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return (
      args
        .find((a) => /workerd$|wrangler\.js$|wrangler-dist|static-server|miniflare-server/.test(a))
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
