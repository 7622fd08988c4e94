// Tree hashing and tree-state serving costs. `node bench/trees-hash.ts` (~40 s);
// `--subtree` also times one full 2^16-leaf subtree per pool on two worker threads (~30 s more).
// Hash rates and append costs are measured side by side, alternating, against the all-bigint
// hashers the WebAssembly kernels replaced (`*Bigint*` keys; `*Speedup` = bigint time / new time).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  appendLeaves,
  createFrontierTracker,
  createSubtreeWorkers,
  type Frontier,
  frontierFromLegacy,
  hasherFor,
  type MerkleHasher,
  NODE_MODULUS,
  type TreePool,
} from "../origin/trees/index.ts";
import { createOrchardBigintHasher } from "../origin/trees/orchard-hasher-bigint.ts";
import { createSaplingBigintHasher } from "../origin/trees/sapling-hasher-bigint.ts";
import { bigintToLeBytes, leBytesToBigint } from "../proto/bytes.ts";
import {
  decodeTreeStateRange,
  encodeTreeStateRange,
  parseFinalState,
  treeStateAt,
} from "../proto/treestate/index.ts";
import { chainDir, hasChain } from "../test/support/chain.ts";

const leaves = (n: number, seed: bigint) =>
  Array.from({ length: n }, (_, i) => bigintToLeBytes(((BigInt(i) + 1n) * seed) % (1n << 250n)));
// CPU time of this thread (ms), not wall time: the bench machine is shared, and per-core cost is
// what matters for capacity planning.
const time = (f: () => void) => {
  const t = process.cpuUsage();
  f();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
};
const results: Record<string, unknown> = {};

// Ironwood uses the Orchard hasher itself (origin/trees/hashers.ts): two hash families to measure.
const POOLS: ("sapling" | "orchard")[] = ["sapling", "orchard"];
const baseline: Record<"sapling" | "orchard", MerkleHasher> = {
  sapling: createSaplingBigintHasher(),
  orchard: createOrchardBigintHasher(),
};
const ratio = (base: number, now: number) => Number((base / now).toFixed(2));

/** A 2^12-leaf subtree root, level by level as computeSubtreeRoot does: 4,095 hashes. */
const subtree = (h: MerkleHasher, row: bigint[]) => {
  for (let l = 0; row.length > 1; l++)
    row = h.hashLevel(
      l,
      row.filter((_, i) => i % 2 === 0),
      row.filter((_, i) => i % 2 === 1),
    );
};
for (const pool of POOLS) {
  results[`${pool}TableBuildMs`] = Math.round(time(() => hasherFor(pool).emptyRoot(0)));
  results[`${pool}BigintTableBuildMs`] = Math.round(time(() => baseline[pool].emptyRoot(0)));
  const n = 4096;
  const row = leaves(n, 0x9e3779b97f4a7c15n).map(leBytesToBigint);
  let [now, base] = [0, 0];
  for (let round = 0; round < 3; round++) {
    base += time(() => subtree(baseline[pool], row));
    now += time(() => subtree(hasherFor(pool), row));
  }
  results[`${pool}HashesPerSecond`] = Math.round(((3 * (n - 1)) / now) * 1000);
  results[`${pool}BigintHashesPerSecond`] = Math.round(((3 * (n - 1)) / base) * 1000);
  results[`${pool}HashSpeedup`] = ratio(base, now);
  results[`${pool}Subtree2e16EstimateS`] = Number(((now * 65535) / (3 * (n - 1)) / 1000).toFixed(1));
}

// Frontier append per block, from the real 2,000,000 frontiers when the corpus is present.
const start = hasChain
  ? JSON.parse(readFileSync(join(chainDir, "rpc/zebrad-mainnet/z_gettreestate-2000000.json"), "utf8")).result
  : undefined;
const finalState = (pool: TreePool) => start?.[pool].commitments.finalState ?? "000000";
const tracker = createFrontierTracker({ sapling: finalState("sapling"), orchard: finalState("orchard") });
const blocks = 200;
const perBlock = Array.from({ length: blocks }, (_, b) => ({
  saplingCmus: leaves(2 + (b % 4), BigInt(b + 7) * 0x1234567n),
  orchardCmxs: leaves(2 * (b % 3), BigInt(b + 11) * 0x7654321n),
}));
const appendTimes = perBlock.map((c) => time(() => tracker.appendBlock(c))).sort((a, b) => a - b);
results.appendBlockP50Ms = Number(appendTimes[blocks >> 1]!.toFixed(3));
results.appendBlockP99Ms = Number(appendTimes[Math.floor(blocks * 0.99)]!.toFixed(3));
results.appendBlockLeaves = "2–5 Sapling + 0–4 Orchard per block";
// The same blocks through appendLeaves, new and bigint hashers alternating block by block.
const frontiers = (h: (p: "sapling" | "orchard") => MerkleHasher) =>
  Object.fromEntries(
    POOLS.map((p) => [p, frontierFromLegacy(h(p), parseFinalState(finalState(p)), NODE_MODULUS[p])]),
  ) as Record<"sapling" | "orchard", Frontier>;
const sides = [
  { h: hasherFor, f: frontiers(hasherFor), ms: [] as number[] },
  { h: (p: "sapling" | "orchard") => baseline[p], f: frontiers((p) => baseline[p]), ms: [] as number[] },
];
for (const c of perBlock) {
  for (const side of sides) {
    const cms = { sapling: c.saplingCmus.map(leBytesToBigint), orchard: c.orchardCmxs.map(leBytesToBigint) };
    side.ms.push(
      time(() => {
        for (const p of POOLS) side.f[p] = appendLeaves(side.h(p), side.f[p], cms[p]);
      }),
    );
  }
}
const p50 = (ms: number[]) => ms.sort((a, b) => a - b)[ms.length >> 1]!;
results.appendLeavesP50Ms = Number(p50(sides[0]!.ms).toFixed(3));
results.appendLeavesBigintP50Ms = Number(p50(sides[1]!.ms).toFixed(3));
results.appendSpeedup = ratio(p50(sides[1]!.ms), p50(sides[0]!.ms));
results.appendRootsAgree = POOLS.every(
  (p) => sides[0]!.f[p].pending.join() === sides[1]!.f[p].pending.join(),
);

// Stored record size and lookup cost on a 1,000-block range shaped like mainnet 2,000,000+.
const range = [];
for (let h = 0; h < 1000; h++) {
  tracker.appendBlock(perBlock[h % blocks]!);
  const s = tracker.snapshot();
  range.push({
    height: 2_000_000 + h,
    wireHash: new Uint8Array(32).fill(h & 0xff),
    time: h,
    sapling: s.sapling,
    orchard: s.orchard,
  });
}
const bytes = encodeTreeStateRange({ network: "main", blocks: range });
results.rangeBytesPerBlock = Math.round(bytes.length / 1000);
const decoded = decodeTreeStateRange(bytes);
const lookups = Array.from({ length: 2000 }, (_, i) =>
  time(() => treeStateAt(decoded, 2_000_000 + ((i * 7919) % 1000))),
).sort((a, b) => a - b);
results.treeStateAtP50Ms = Number(lookups[1000]!.toFixed(4));
results.treeStateAtP99Ms = Number(lookups[1980]!.toFixed(4));
if (hasChain) {
  const cp = JSON.parse(readFileSync(join(chainDir, "treestate/mainnet/3444780.json"), "utf8"));
  const one = encodeTreeStateRange({
    network: "main",
    blocks: [
      {
        height: 1,
        wireHash: new Uint8Array(32),
        time: 0,
        sapling: parseFinalState(cp.saplingTree),
        orchard: parseFinalState(cp.orchardTree),
        ironwood: parseFinalState(cp.ironwoodTree),
      },
    ],
  });
  results.mainnetTipRecordBytes = one.length - 80 - 48;
}

if (process.argv.includes("--subtree")) {
  const workers = createSubtreeWorkers(2);
  const t = performance.now();
  const [s, o] = await Promise.all([
    workers.computeSubtreeRoot("sapling", leaves(65536, 3n)),
    workers.computeSubtreeRoot("orchard", leaves(65536, 5n)),
  ]);
  results.subtree2e16BothPoolsParallelS = Number(((performance.now() - t) / 1000).toFixed(1));
  results.subtreeRootsComputed = Boolean(s && o);
  await workers.close();
}
console.log(JSON.stringify(results, null, 2));
