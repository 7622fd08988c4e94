// getblock throughput from the dev node through the node client (both in this process).
// usage: node bench/devnode-getblock.ts [--blocks N] [--seed S] [--rounds R]
// Round 1 fetches every block cold (the dev node generates each block); later rounds re-read
// the most recent 256 blocks, which the dev node serves from its rendered-block cache, so the
// two rows separate generation cost from JSON-RPC + hex transport cost.
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

let t = performance.now();
const node = await createDevNode({ synthetic: { blocks, seed: values.seed } });
await node.ready;
const hashSeconds = (performance.now() - t) / 1000;
const client = createNodeClient({ url: node.url, maxInFlight: 4, batchSize: 64 });

async function pass(from: number, to: number) {
  const start = performance.now();
  let bytes = 0;
  for (let h = from; h <= to; h += 256) {
    for (const b of await client.blocks(h, Math.min(to, h + 255))) bytes += b.raw.length;
  }
  const s = (performance.now() - start) / 1000;
  return {
    blocks: to - from + 1,
    seconds: s,
    blocksPerSec: (to - from + 1) / s,
    mbPerSec: bytes / s / 1e6,
    avgKB: bytes / (to - from + 1) / 1e3,
  };
}

const cold = await pass(0, blocks - 1);
const hotFrom = blocks - 256;
t = performance.now();
let hot = { blocks: 0, seconds: 0, blocksPerSec: 0, mbPerSec: 0, avgKB: 0 };
const rounds = Number(values.rounds);
let totalBytes = 0;
for (let r = 0; r < rounds; r++) {
  const p = await pass(hotFrom, blocks - 1);
  totalBytes += p.mbPerSec * p.seconds;
  hot = { ...p, blocks: p.blocks * rounds };
}
const hotSeconds = (performance.now() - t) / 1000;
hot = {
  ...hot,
  seconds: hotSeconds,
  blocksPerSec: (256 * rounds) / hotSeconds,
  mbPerSec: totalBytes / hotSeconds,
};
const mem = process.memoryUsage();
console.log(
  JSON.stringify(
    {
      chainBlocks: blocks,
      headerHashing: { seconds: +hashSeconds.toFixed(2), blocksPerSec: Math.round(blocks / hashSeconds) },
      coldGetblock: round(cold),
      cachedGetblock: round(hot),
      rssMB: Math.round(mem.rss / 1e6),
    },
    null,
    2,
  ),
);
client.close();
await node.close();

function round(o: Record<string, number>) {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, +v.toFixed(2)]));
}
