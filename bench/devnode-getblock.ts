// Dev node start-up and getblock throughput through the node client (both in this process).
// usage: node bench/devnode-getblock.ts [--blocks N] [--seed S] [--rounds R]
// Rows: start-up (every header hash computed), cold getblock (each block generated on request),
// cached getblock (the most recent 256 blocks again, served from the rendered-block cache), and a
// baseline: a plain node:http server sending the same hex as one JSON-RPC-shaped body per batch,
// read by a bare keep-alive client — what loopback HTTP allows, so the ratio shows the overhead.
// Wall seconds on a shared machine are noisy; cpuSeconds (this process) is the steadier figure.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { createDevNode } from "../origin/devnode/index.ts";
import { createNodeClient } from "../origin/node/index.ts";

const { values } = parseArgs({
  options: {
    blocks: { type: "string", default: "3000" },
    seed: { type: "string", default: "bench" },
    rounds: { type: "string", default: "20" },
  },
});
const blocks = Number(values.blocks);
const rounds = Number(values.rounds);
const batch = 32; // blocks per request (64 calls: getblock 0 and 1 per block)

async function timed<T>(work: () => Promise<T>) {
  const cpu = process.cpuUsage();
  const t = performance.now();
  const out = await work();
  const c = process.cpuUsage(cpu);
  return { out, seconds: (performance.now() - t) / 1000, cpuSeconds: (c.user + c.system) / 1e6 };
}

function row(n: number, bytes: number, r: { seconds: number; cpuSeconds: number }) {
  return {
    blocks: n,
    seconds: +r.seconds.toFixed(2),
    cpuSeconds: +r.cpuSeconds.toFixed(2),
    blocksPerSec: Math.round(n / r.seconds),
    blocksPerCpuSec: Math.round(n / r.cpuSeconds),
    mbPerSec: +(bytes / r.seconds / 1e6).toFixed(1),
    avgKB: +(bytes / n / 1e3).toFixed(1),
  };
}

const start = await timed(async () => {
  const node = await createDevNode({ synthetic: { blocks, seed: values.seed } });
  await node.ready;
  return node;
});
const node = start.out;
const client = createNodeClient({ url: node.url, maxInFlight: 4, batchSize: 2 * batch });

/** Fetches from..to in 256-block calls; `keep` collects the raw blocks (else only counted). */
async function pass(from: number, to: number, keep?: Uint8Array[]): Promise<number> {
  let bytes = 0;
  for (let h = from; h <= to; h += 256)
    for (const b of await client.blocks(h, Math.min(to, h + 255))) {
      bytes += b.raw.length;
      keep?.push(b.raw);
    }
  return bytes;
}
const size = (list: Uint8Array[]) => list.reduce((s, b) => s + b.length, 0);

const cold = await timed(() => pass(0, blocks - 1));
const hotFrom = Math.max(0, blocks - 256);
const hot = await timed(async () => {
  let bytes = 0;
  for (let r = 0; r < rounds; r++) bytes += await pass(hotFrom, blocks - 1);
  return bytes;
});
const hotBlocks = (blocks - hotFrom) * rounds;

// Baseline: the same raw blocks as hex, one pre-rendered JSON-RPC batch body per 32 blocks.
const window: Uint8Array[] = [];
await pass(hotFrom, blocks - 1, window);
const bodies: Buffer[] = [];
for (let i = 0; i < window.length; i += batch) {
  const parts = window
    .slice(i, i + batch)
    .map((raw, k) => `{"jsonrpc":"2.0","id":${k},"result":"${Buffer.from(raw).toString("hex")}"}`);
  bodies.push(Buffer.from(`[${parts.join(",")}]`));
}
const plain = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const body = bodies[Number(req.url!.slice(1))]!;
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length }).end(body);
  });
});
await new Promise<void>((r) => plain.listen(0, "127.0.0.1", r));
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
const port = (plain.address() as AddressInfo).port;
const fetchBody = (i: number) =>
  new Promise<number>((resolve, reject) => {
    const req = http.request({ agent, port, host: "127.0.0.1", method: "POST", path: `/${i}` }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve(Buffer.concat(chunks).length));
    });
    req.on("error", reject);
    req.end("[]");
  });
const base = await timed(async () => {
  for (let r = 0; r < rounds; r++) await Promise.all(bodies.map((_, i) => fetchBody(i)));
});

const coldRow = row(blocks, cold.out, cold);
const hotRow = row(hotBlocks, hot.out, hot);
const baseRow = row(hotBlocks, size(window) * rounds, base);
console.log(
  JSON.stringify(
    {
      chainBlocks: blocks,
      startup: {
        seconds: +start.seconds.toFixed(2),
        cpuSeconds: +start.cpuSeconds.toFixed(2),
        blocksPerSec: Math.round(blocks / start.seconds),
        blocksPerCpuSec: Math.round(blocks / start.cpuSeconds),
      },
      coldGetblock: coldRow,
      cachedGetblock: hotRow,
      baselinePlainHttp: baseRow,
      cachedVsBaseline: +(hotRow.blocksPerSec / baseRow.blocksPerSec).toFixed(2),
      rssMB: Math.round(process.memoryUsage().rss / 1e6),
    },
    null,
    2,
  ),
);
agent.destroy();
plain.close();
client.close();
await node.close();
