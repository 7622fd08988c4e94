// Long fuzz run over every corpus block: bit flips, byte sets, truncations, inflated counts,
// trailing bytes. Fails (exit 1) on any untyped exception, invalid protobuf, or silent change.
//   node bench/chain-fuzz.ts [--cases N] [--seed S]
import { createRng, createSubject, mutate, type Outcome, runCase } from "../origin/chain/fuzz.ts";
import { corpusIndex, hasChain, readChainHex } from "../test/support/chain.ts";

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const cases = flag("--cases", 100_000);
const seed = flag("--seed", 1);
if (!hasChain) throw new Error("fuzz bench needs the real-chain corpus");
const subjects = corpusIndex().blocks.map((b) => createSubject(b.file, readChainHex(b.file)));
// Weight toward small blocks so the run covers many formats; the 1.9 MB block still appears.
const weighted = subjects.flatMap((s) => (s.raw.length > 200_000 ? [s] : [s, s, s]));
const rng = createRng(seed);
const outcomes: Record<Outcome, number> = { rejected: 0, same: 0, "changed-unchecked": 0 };
const start = performance.now();
let failures = 0;
for (let i = 0; i < cases; i++) {
  const subject = weighted[Math.floor(rng() * weighted.length)]!;
  const m = mutate(subject, rng);
  try {
    outcomes[runCase(subject, m)]++;
  } catch (err) {
    failures++;
    if (failures <= 20) console.error(`case ${i}: ${(err as Error).message}`);
  }
}
const seconds = (performance.now() - start) / 1000;
console.log(JSON.stringify({ cases, seed, failures, ...outcomes, seconds: Number(seconds.toFixed(1)) }));
process.exitCode = failures === 0 ? 0 : 1;
