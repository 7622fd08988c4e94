// Throughput of raw block → parse + txids + all three stored projections' bytes, one core, on
// the real corpus mix (every block in test/corpus/chain once per round; mostly v4, SHA256d txids)
// or with --synthetic N on the dev node's synthetic blocks N-1000..N-1 (v5/v6-heavy: ZIP 244
// BLAKE2b txids dominate). Baselines measured in the same run: the same projections built as
// protobuf-es messages and serialized with toBinary, and parsing with the pure-JS @noble BLAKE2b.
//   node bench/chain-parse.ts [--seconds N] [--synthetic N] [--seed S]
import { parseArgs } from "node:util";
import { toBinary } from "@bufbuild/protobuf";
import { blake2bBackend, useBlake2bBackend } from "../origin/chain/blake2b.ts";
import { parseBlock, projectBlock, toCompactBlock } from "../origin/chain/index.ts";
import { createDevChain } from "../origin/devnode/chain.ts";
import { CompactBlockSchema } from "../proto/index.ts";
import { SHIELDED_POOLS } from "../proto/pools.ts";
import { corpusIndex, hasChain, readChainHex } from "../test/support/chain.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    synthetic: { type: "string" },
    seed: { type: "string", default: "chain-parse" },
  },
});
const seconds = Number(values.seconds);
const blocks = values.synthetic ? syntheticBlocks(Number(values.synthetic)) : corpusBlocks();

function corpusBlocks(): Uint8Array[] {
  if (!hasChain) throw new Error("bench needs the real-chain corpus (or use --synthetic N)");
  return corpusIndex().blocks.map((b) => readChainHex(b.file));
}

/** The last ≤ 1,000 blocks of a synthetic chain of `n` (late heights carry v5/v6 traffic). */
function syntheticBlocks(n: number): Uint8Array[] {
  const chain = createDevChain({ network: "regtest", seed: values.seed, blocks: n });
  while (!chain.advance(1000)) {}
  const out: Uint8Array[] = [];
  for (let h = Math.max(0, n - 1000); h < n; h++) out.push(chain.block(h).raw);
  return out;
}
const roundBytes = blocks.reduce((n, b) => n + b.length, 0);
const sizes = { sapling: 72_999_499, orchard: 48_658_043, ironwood: 1000 };

function fast(raw: Uint8Array): number {
  const p = projectBlock(parseBlock(raw), sizes);
  return p.full.length + p.shielded.length + p.nullifiers.length;
}

function baseline(raw: Uint8Array): number {
  const block = parseBlock(raw);
  const enc = (projection: "full" | "nullifiers" | typeof SHIELDED_POOLS) =>
    toBinary(CompactBlockSchema, toCompactBlock(block, { projection, treeSizes: sizes })).length;
  return enc("full") + enc(SHIELDED_POOLS) + enc("nullifiers");
}

function parseOnly(raw: Uint8Array): number {
  return parseBlock(raw).txs.length;
}

/** parse + txids with the pure-JS @noble BLAKE2b (the fallback, and the previous default). */
function parseNoble(raw: Uint8Array): number {
  useBlake2bBackend("noble");
  try {
    return parseBlock(raw).txs.length;
  } finally {
    useBlake2bBackend("wasm");
  }
}

function warmUp(fn: (raw: Uint8Array) => number): void {
  const until = performance.now() + 700;
  while (performance.now() < until) for (const raw of blocks) fn(raw);
}

interface Tally {
  name: string;
  fn: (raw: Uint8Array) => number;
  rounds: number;
  cpuSeconds: number;
  sink: number;
}

/** One round of the corpus, timed in CPU seconds of this process (robust on a shared machine). */
function round(t: Tally): void {
  const before = process.cpuUsage();
  for (const raw of blocks) t.sink += t.fn(raw);
  const used = process.cpuUsage(before);
  t.cpuSeconds += (used.user + used.system) / 1e6;
  t.rounds++;
}

/** Interleaves rounds of every variant so contention hits them alike; reports per CPU-second. */
function measure(variants: Tally[], budget: number) {
  const start = performance.now();
  while (performance.now() - start < budget * 1000 * variants.length) for (const v of variants) round(v);
  return variants.map((v) => {
    const result = {
      name: v.name,
      rounds: v.rounds,
      mbPerSecond: Number(((v.rounds * roundBytes) / 1e6 / v.cpuSeconds).toFixed(1)),
      blocksPerSecond: Math.round((v.rounds * blocks.length) / v.cpuSeconds),
    };
    console.log(JSON.stringify(result));
    return result;
  });
}

const txs = blocks.reduce((n, b) => n + parseBlock(b).txs.length, 0);
console.log(
  `${values.synthetic ? `synthetic (seed ${values.seed})` : "corpus"}: ${blocks.length} blocks, ${txs} txs, ${(roundBytes / 1e6).toFixed(2)} MB per round, ${seconds}s per variant (interleaved rounds, CPU time), BLAKE2b: ${blake2bBackend()}`,
);
for (const fn of [parseOnly, fast, baseline, parseNoble]) warmUp(fn);
const tally = (name: string, fn: (raw: Uint8Array) => number): Tally => ({
  name,
  fn,
  rounds: 0,
  cpuSeconds: 0,
  sink: 0,
});
const [parse, hot, ref, noble] = measure(
  [
    tally("parse+txids", parseOnly),
    tally("parse+txids+3 projections (hand encoder)", fast),
    tally("parse+txids+3 projections (protobuf-es toBinary)", baseline),
    tally("parse+txids (@noble BLAKE2b)", parseNoble),
  ],
  seconds,
) as [
  ReturnType<typeof measure>[number],
  ReturnType<typeof measure>[number],
  ReturnType<typeof measure>[number],
  ReturnType<typeof measure>[number],
];
console.log(
  JSON.stringify({
    projectionsCostOverParse: Number((parse.blocksPerSecond / hot.blocksPerSecond).toFixed(2)),
    handEncoderSpeedupVsProtobufEs: Number((hot.blocksPerSecond / ref.blocksPerSecond).toFixed(2)),
    parseSpeedupVsNobleBlake2b: Number((parse.blocksPerSecond / noble.blocksPerSecond).toFixed(2)),
    targets: { mbPerSecond: 100, blocksPerSecond: 20000 },
    met: hot.mbPerSecond >= 100 && hot.blocksPerSecond >= 20000,
  }),
);
