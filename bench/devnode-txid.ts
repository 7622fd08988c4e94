// Dev-node txids both ways, side by side in one run, on the same synthetic v5/v6 transactions:
// the dev node's fast path (origin/devnode/txid-fast.ts: ZIP 244 from the pieces the builder drew,
// template digests memoized) against the parser's (computeTxid: parse the bytes, then
// origin/chain/txid-zip244.ts); both hash with origin/chain/blake2b.ts. The dev chain's start-up
// (every block generated and its header hashed once) is timed in the same run, so the txids'
// share of it shows: the fast path stays while computeTxid would slow start-up noticeably.
// usage: node bench/devnode-txid.ts [--blocks N] [--txs N] [--rounds R] [--seed S]
// CPU seconds of this process; rounds interleave the ways and the median is reported.
import { parseArgs } from "node:util";
import { computeTxid } from "../origin/chain/index.ts";
import { createDevChain } from "../origin/devnode/chain.ts";
import { blockRandom } from "../origin/devnode/prng.ts";
import { ALL_POOLS, blockShapes, syntheticBody } from "../origin/devnode/synthetic-block.ts";
import { writeV5V6 } from "../origin/devnode/tx-builder.ts";
import { fastTxid, type V5Pieces } from "../origin/devnode/txid-fast.ts";
import { ByteWriter } from "../origin/devnode/writer.ts";

const { values } = parseArgs({
  options: {
    blocks: { type: "string", default: "2000" },
    txs: { type: "string", default: "3000" },
    rounds: { type: "string", default: "7" },
    seed: { type: "string", default: "devnode-txid" },
  },
});
const blocks = Number(values.blocks);
const txCount = Number(values.txs);
const rounds = Number(values.rounds);

function cpuMs<T>(work: () => T): { out: T; ms: number } {
  const before = process.cpuUsage();
  const out = work();
  const c = process.cpuUsage(before);
  return { out, ms: (c.user + c.system) / 1000 };
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * `txCount` v5/v6 transactions of the mix synthetic blocks draw (their v4 ones have SHA256d txids,
 * the same both ways): their bytes and the pieces the builder drew.
 */
function build(round: number): { raws: Uint8Array[]; pieces: V5Pieces[] } {
  const raws: Uint8Array[] = [];
  const pieces: V5Pieces[] = [];
  for (let h = 1; raws.length < txCount; h++) {
    const rand = blockRandom(values.seed, h, round + 1);
    for (const shape of blockShapes(rand, h, ALL_POOLS)) {
      if (shape.version === 4 || raws.length === txCount) continue;
      const w = new ByteWriter(4096);
      pieces.push(writeV5V6(w, shape, rand));
      raws.push(w.done());
    }
  }
  return { raws, pieces };
}

const ways = {
  fastTxid: (s: ReturnType<typeof build>) => s.pieces.map(fastTxid),
  computeTxid: (s: ReturnType<typeof build>) => s.raws.map((raw) => computeTxid(raw, { strictV6: false })),
};

// Start-up: a fresh dev chain hashing every header once (what createDevNode does before `ready`).
const startup = cpuMs(() => {
  const chain = createDevChain({ network: "regtest", seed: values.seed, blocks });
  while (!chain.advance(1000)) {}
  return chain;
});
let v5PerBlock = 0;
for (let h = 1; h <= 200; h++)
  v5PerBlock += syntheticBody(values.seed, h, 0).txs.filter((t) => t[0] === 5 || t[0] === 6).length / 200;

const times: Record<string, number[]> = {
  build: [],
  ...Object.fromEntries(Object.keys(ways).map((k) => [k, []])),
};
for (let r = 0; r < rounds; r++) {
  const built = cpuMs(() => build(r));
  times.build!.push(built.ms);
  // Alternate the order so neither way always runs second (warm caches, GC).
  const order = r % 2 === 0 ? (["fastTxid", "computeTxid"] as const) : (["computeTxid", "fastTxid"] as const);
  const txids: Record<string, Uint8Array[]> = {};
  for (const way of order) {
    const t = cpuMs(() => ways[way](built.out));
    times[way]!.push(t.ms);
    txids[way] = t.out;
  }
  for (let i = 0; i < txCount; i++)
    if (Buffer.compare(txids.fastTxid![i]!, txids.computeTxid![i]!) !== 0)
      throw new Error(`txid ${i} differs between the ways`);
}

const usPerTx = (k: string) => +((1000 * median(times[k]!)) / txCount).toFixed(2);
const fastUs = usPerTx("fastTxid");
const parseUs = usPerTx("computeTxid");
const startupMsPerBlock = startup.ms / blocks;
console.log(
  JSON.stringify(
    {
      txs: txCount,
      rounds,
      txid: {
        buildUsPerTx: usPerTx("build"),
        fastTxidUsPerTx: fastUs,
        computeTxidUsPerTx: parseUs,
        computeVsFast: +(parseUs / fastUs).toFixed(2),
      },
      startup: {
        blocks,
        cpuSeconds: +(startup.ms / 1000).toFixed(2),
        msPerBlock: +startupMsPerBlock.toFixed(3),
        v5v6TxsPerBlock: +v5PerBlock.toFixed(2),
        // The same start-up with computeTxid for every v5/v6 tx instead of the fast path.
        withComputeTxidMsPerBlock: +(startupMsPerBlock + (v5PerBlock * (parseUs - fastUs)) / 1000).toFixed(3),
      },
    },
    null,
    2,
  ),
);
