import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { EdgeRuntimeName } from "./lib/edge-fixture.ts";
import { createFixtures } from "./lib/fixtures.ts";
import type { BenchReport } from "./lib/results.ts";
import { writeReport } from "./lib/results.ts";
import type { BenchSettings, Scenario } from "./scenario.ts";

// `npm run bench` runs every scenario (minutes); `npm run bench -- --quick` is the smoke version CI
// runs so the harness never rots; `--only a,b` picks scenarios. Sizes can be scaled down for a
// slow machine: `--blocks N` (chain length), `--seconds S` (per concurrency level), `--levels
// 1,16,256` (client counts). `--edge-runtime wrangler|miniflare|both` picks the local runtimes the edge
// runs under side by side (default: both; --quick: wrangler only, to keep CI short); `edge.*` keys
// always mean wrangler dev, `edgeMiniflare.*` Miniflare alone (bench/edge-runtimes.ts), reading the
// store from a separate server process (`--edge-store public-url`, default: the Worker's own cost)
// or the R2 simulator inside its workerd (`--edge-store r2`).
// `--only soak [--soak-seconds S]`: the 10-minute memory soak, which runs only when named.
// Exits non-zero only when the harness fails, never on a missed target.
const scenarios: Record<string, () => Promise<{ scenario: Scenario }>> = {
  "static-baseline": () => import("./scenarios/static-baseline.ts"),
  index: () => import("./scenarios/index-chain.ts"),
  latency: () => import("./scenarios/latency.ts"),
  "range-sizes": () => import("./scenarios/range-sizes.ts"),
  concurrency: () => import("./scenarios/concurrency.ts"),
  "wallet-download": () => import("./scenarios/wallet-download.ts"),
  efficiency: () => import("./scenarios/efficiency.ts"),
  ghz: () => import("./scenarios/ghz.ts"),
  soak: () => import("./scenarios/soak.ts"),
  // Mainnet at full height (bench/scale/).
  scale: () => import("./scenarios/scale.ts"),
  // A real zebrad on Regtest (scripts/ensure-zebrad.sh): index rate vs the node's raw delivery.
  "zebrad-index": () => import("./scenarios/zebrad-index.ts"),
  "wallet-sync": () => import("./scenarios/wallet-sync.ts"),
  nodefree: () => import("./scenarios/nodefree.ts"),
};

/** Scenarios that run only when named with --only (never in the default run or --quick). */
const OPT_IN: ReadonlySet<string> = new Set(["soak", "scale", "zebrad-index"]);

// A real wallet (the Rust harness in test/wallet) syncing from the edge and the origin: minutes of
// scanning, so the full run only; `--only wallet-sync` picks it in any run.
const FULL_RUN_ONLY: ReadonlySet<string> = new Set(["wallet-sync"]);

const FULL: BenchSettings = {
  blocks: 200_000,
  rangeSize: 1000,
  rangeSizes: [10, 100, 1000, 10_000, 100_000],
  levelSec: 20,
  levels: { r10k: [1, 4, 16, 64, 128, 256], r100: [1, 4, 16, 64, 128, 256] },
  calls: 500,
  soakSec: 600,
  edgeRuntimes: ["wrangler", "miniflare"],
  edgeStore: "public-url",
  treesBackfill: true,
};

// Quick: a 3,000-block chain in 100-block ranges; requests capped at the sealed chain.
const QUICK: BenchSettings = {
  blocks: 3000,
  rangeSize: 100,
  rangeSizes: [10, 100, 1000, 10_000],
  levelSec: 2,
  levels: { r10k: [1, 4], r100: [1, 16, 256] },
  calls: 100,
  soakSec: 600,
  edgeRuntimes: ["wrangler"],
  edgeStore: "public-url",
  treesBackfill: true,
};

const EDGE_RUNTIMES: Record<string, EdgeRuntimeName[]> = {
  wrangler: ["wrangler"],
  miniflare: ["miniflare"],
  both: ["wrangler", "miniflare"],
};

function settingsFrom(values: {
  quick?: boolean;
  blocks?: string;
  seconds?: string;
  levels?: string;
  "edge-runtime"?: string;
  "edge-store"?: string;
  "soak-seconds"?: string;
  "no-trees-backfill"?: boolean;
}) {
  const s = structuredClone(values.quick ? QUICK : FULL);
  const runtime = values["edge-runtime"];
  if (runtime !== undefined) {
    const runtimes = Object.hasOwn(EDGE_RUNTIMES, runtime) ? EDGE_RUNTIMES[runtime] : undefined;
    if (!runtimes) throw new Error(`bad --edge-runtime ${runtime} (wrangler, miniflare or both)`);
    s.edgeRuntimes = runtimes;
  }
  const store = values["edge-store"];
  if (store !== undefined) {
    if (store !== "public-url" && store !== "r2")
      throw new Error(`bad --edge-store ${store} (public-url or r2)`);
    s.edgeStore = store;
  }
  if (values.blocks) s.blocks = Number(values.blocks);
  if (values.seconds) s.levelSec = Number(values.seconds);
  if (values["soak-seconds"]) s.soakSec = Number(values["soak-seconds"]);
  if (values["no-trees-backfill"]) s.treesBackfill = false;
  if (values.levels) {
    const levels = values.levels.split(",").map(Number);
    s.levels = { r10k: levels, r100: levels };
  }
  return Object.freeze(s);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      only: { type: "string" },
      blocks: { type: "string" },
      seconds: { type: "string" },
      levels: { type: "string" },
      "edge-runtime": { type: "string" },
      "edge-store": { type: "string" },
      "soak-seconds": { type: "string" },
      "no-trees-backfill": { type: "boolean" },
      // Read by scenarios/scale.ts: payload scale of the generated store (default 0.02) and its height.
      "payload-scale": { type: "string" },
      "scale-to": { type: "string" },
      // … and ranges per bundle (default the format's, proto/range/bundles.ts; "off": none).
      "bundle-ranges": { type: "string" },
      // Read by scenarios/zebrad-index.ts: Regtest blocks zebrad mines (default 20,000).
      "zebrad-blocks": { type: "string" },
    },
  });
  const quick = values.quick === true;
  const settings = settingsFrom(values);
  const only = values.only?.split(",");
  const report: BenchReport = {
    figures: {},
    rows: [],
    charts: [],
    notes: [],
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? "?",
      memGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
    },
  };
  const tmp = mkdtempSync(join(tmpdir(), "lightedge-bench-"));
  const repoRoot = fileURLToPath(new URL("../", import.meta.url));
  const log = (m: string) => process.stderr.write(`  ${m}\n`);
  const fixtures = createFixtures({ repoRoot, tmp, quick, ...settings, log });
  report.machine.chainBlocks = settings.blocks;
  report.machine.levelSec = settings.levelSec;
  report.machine.edgeRuntimes = settings.edgeRuntimes.join("+");
  report.machine.edgeStore = settings.edgeStore;
  let failed = 0;
  try {
    for (const [name, load] of Object.entries(scenarios)) {
      if (only ? !only.includes(name) : OPT_IN.has(name)) continue;
      if (quick && !only && FULL_RUN_ONLY.has(name)) continue;
      const { scenario } = await load();
      const started = performance.now();
      process.stderr.write(`bench: ${name}…\n`);
      try {
        await scenario.run({ quick, settings, report, tmp, repoRoot, fixtures, log });
      } catch (err) {
        failed++;
        report.notes.push(`${name} failed: ${err instanceof Error ? err.message : String(err)}`);
        process.stderr.write(
          `bench: ${name} FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
        );
      }
      process.stderr.write(`bench: ${name} took ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    }
  } finally {
    await fixtures.dispose();
    rmSync(tmp, { recursive: true, force: true });
  }
  const dir = writeReport(report, quick);
  process.stdout.write(`bench: results in ${dir}\n${JSON.stringify(report.figures, null, 2)}\n`);
  return failed === 0 ? 0 : 1;
}

process.exit(await main());
