// Throughput of raw block → parse + txids + all three stored projections' bytes, on the real
// corpus mix (every block in ../shared/chain once per round), one core. Baseline measured in the
// same run: the same projections built as protobuf-es messages and serialized with toBinary.
//   node bench/chain-parse.ts [--seconds N]
import { toBinary } from "@bufbuild/protobuf";
import { parseBlock, projectBlock, toCompactBlock } from "../origin/chain/index.ts";
import { CompactBlockSchema } from "../proto/index.ts";
import { SHIELDED_POOLS } from "../proto/pools.ts";
import { corpusIndex, hasChain, readChainHex } from "../test/support/chain.ts";

const secondsArg = process.argv.indexOf("--seconds");
const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 5;
if (!hasChain) throw new Error("bench needs the real-chain corpus");
const blocks = corpusIndex().blocks.map((b) => readChainHex(b.file));
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

console.log(
  `corpus: ${blocks.length} blocks, ${(roundBytes / 1e6).toFixed(2)} MB per round, ${seconds}s per variant (interleaved rounds, CPU time)`,
);
for (const fn of [parseOnly, fast, baseline]) warmUp(fn);
const tally = (name: string, fn: (raw: Uint8Array) => number): Tally => ({
  name,
  fn,
  rounds: 0,
  cpuSeconds: 0,
  sink: 0,
});
const [parse, hot, ref] = measure(
  [
    tally("parse+txids", parseOnly),
    tally("parse+txids+3 projections (hand encoder)", fast),
    tally("parse+txids+3 projections (protobuf-es toBinary)", baseline),
  ],
  seconds,
) as [
  ReturnType<typeof measure>[number],
  ReturnType<typeof measure>[number],
  ReturnType<typeof measure>[number],
];
console.log(
  JSON.stringify({
    projectionsCostOverParse: Number((parse.blocksPerSecond / hot.blocksPerSecond).toFixed(2)),
    handEncoderSpeedupVsProtobufEs: Number((hot.blocksPerSecond / ref.blocksPerSecond).toFixed(2)),
    targets: { mbPerSecond: 100, blocksPerSecond: 20000 },
    met: hot.mbPerSecond >= 100 && hot.blocksPerSecond >= 20000,
  }),
);
