// GetTreeState from stored tree-state objects: the edge under wrangler dev (workerd, local R2) and
// the origin's reader over a directory store, at random sealed heights; then one backfill subtree
// job. Usage: node bench/treestate-serve.ts [--ranges 20] [--calls 400] [--seconds 3] [--leaves 16384]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { startEdgeDev } from "../origin/main/edge-dev.ts";
import { createDirectoryStore } from "../origin/store/index.ts";
import { createTreeStateService, runSubtreeJob } from "../origin/treestate/index.ts";
import { fakeLegacy, fakeNode } from "../origin/treestate/testing.ts";
import { concatBytes, displayHex } from "../proto/bytes.ts";
import { BlockIDSchema, TreeStateSchema } from "../proto/index.ts";
import { encodeHead, headKey } from "../proto/range/index.ts";
import { encodeTreeStateRange, type TreeStateBlock, treeStateKey } from "../proto/treestate/index.ts";
import { seedLocalR2 } from "../test/support/seed-local-r2.ts";

const { values } = parseArgs({
  options: {
    ranges: { type: "string", default: "20" },
    calls: { type: "string", default: "400" },
    seconds: { type: "string", default: "3" },
    leaves: { type: "string", default: "16384" },
  },
});
const RANGES = Number(values.ranges);
const RANGE = 1000;
const FIRST = 3_000_000;
const TIP = FIRST + RANGES * RANGE - 1;

/** Mainnet-sized frontiers (≈ 70 M Sapling, 48 M Orchard leaves) growing a few leaves per block. */
function objects(): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (let r = 0; r < RANGES; r++) {
    const blocks: TreeStateBlock[] = [];
    for (let i = 0; i < RANGE; i++) {
      const h = FIRST + r * RANGE + i;
      blocks.push({
        height: h,
        wireHash: fakeNode(h),
        time: 1_700_000_000 + h,
        sapling: fakeLegacy(70_000_000 + 3 * (h - FIRST), h),
        orchard: fakeLegacy(48_000_000 + 2 * (h - FIRST), h + 7),
      });
    }
    out.set(
      treeStateKey("mainnet", RANGE, FIRST / RANGE + r),
      encodeTreeStateRange({ network: "main", blocks }),
    );
  }
  const lightdInfo = {
    chainName: "main",
    saplingActivationHeight: 419200,
    consensusBranchId: "c8e71055",
    blockHeight: TIP,
    estimatedHeight: TIP,
    upgradeName: "",
    upgradeHeight: 0,
    zcashdBuild: "",
    zcashdSubversion: "",
  };
  out.set(
    headKey("mainnet"),
    encodeHead({
      format: "lightedge-head",
      version: 1,
      network: "mainnet",
      rangeSize: RANGE,
      firstHeight: FIRST,
      rangeCount: RANGES,
      tip: { height: TIP, displayHash: displayHex(fakeNode(TIP)), time: 0 },
      updatedAt: new Date().toISOString(),
      lightdInfo,
    }),
  );
  return out;
}

const randomHeight = () => FIRST + Math.floor(Math.random() * RANGES * RANGE);
const pct = (xs: number[], p: number) =>
  xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

async function measure(name: string, call: (h: number) => Promise<void>) {
  for (let i = 0; i < 20; i++) await call(randomHeight()); // warm-up
  const times: number[] = [];
  for (let i = 0; i < Number(values.calls); i++) {
    const t0 = performance.now();
    await call(randomHeight());
    times.push(performance.now() - t0);
  }
  let done = 0;
  const until = performance.now() + Number(values.seconds) * 1000;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (performance.now() < until) {
        await call(randomHeight());
        done++;
      }
    }),
  );
  console.log(
    `${name.padEnd(16)} p50 ${pct(times, 0.5).toFixed(2)} ms  p99 ${pct(times, 0.99).toFixed(2)} ms  (${times.length} sequential)  ${(done / Number(values.seconds)).toFixed(0)} req/s (16 concurrent)`,
  );
}

const seed = objects();
const dir = mkdtempSync(join(tmpdir(), "lightedge-treestate-bench-"));
const store = createDirectoryStore(join(dir, "store"));
for (const [k, v] of seed) await store.put(k, v, { immutable: true });
await seedLocalR2(join(dir, "persist"), seed);
const edge = await startEdgeDev({ port: 0, persist: join(dir, "persist"), quiet: true });
console.log(
  `GetTreeState at random heights of ${RANGES} stored ranges of ${RANGE} blocks (${[...seed.values()].reduce((s, b) => s + b.length, 0) / RANGES / 1e6} MB per range object)`,
);
try {
  const url = `${edge.url}/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetTreeState`;
  await measure("edge", async (h) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/proto" },
      body: toBinary(BlockIDSchema, create(BlockIDSchema, { height: BigInt(h) })),
    });
    const state = fromBinary(TreeStateSchema, new Uint8Array(await res.arrayBuffer()));
    if (res.status !== 200 || Number(state.height) !== h) throw new Error(`edge: HTTP ${res.status} at ${h}`);
  });
  // Baseline in the same run: an RPC the edge answers from the cached head alone (no R2 read).
  await measure("edge-lightdinfo", async () => {
    const res = await fetch(url.replace("GetTreeState", "GetLightdInfo"), {
      method: "POST",
      headers: { "content-type": "application/proto" },
      body: new Uint8Array(0),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GetLightdInfo: HTTP ${res.status}`);
  });
  const service = createTreeStateService({ store, network: "mainnet", rangeSize: RANGE });
  await measure("origin", async (h) => {
    const view = await service.treeState(h);
    if (view?.height !== h) throw new Error(`origin: no tree state at ${h}`);
  });
} finally {
  await edge.stop();
  rmSync(dir, { recursive: true, force: true });
}
for (const pool of ["sapling", "orchard"] as const) {
  const n = Number(values.leaves);
  const leaves = concatBytes(Array.from({ length: n }, (_, i) => fakeNode(i)));
  const boundaries = Array.from({ length: Math.floor(n / 8) }, (_, i) => (i + 1) * 8); // 8 leaves per block
  runSubtreeJob({ pool, leaves: leaves.slice(0, 64 * 32), boundaries: [64] }); // build the hash tables first
  const t0 = performance.now();
  runSubtreeJob({ pool, leaves, boundaries });
  const s = (performance.now() - t0) / 1000;
  console.log(
    `backfill ${pool}: ${n} leaves in ${s.toFixed(2)} s on one core → ${((s * 65536) / n).toFixed(1)} s per 2^16-leaf subtree`,
  );
}
