import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { BenchReport } from "./lib/results.ts";
import { writeReport } from "./lib/results.ts";
import type { Scenario } from "./scenario.ts";

// `npm run bench` runs every scenario (minutes); `npm run bench -- --quick` is the smoke version CI
// runs so the harness never rots; `--only a,b` picks scenarios.
const scenarios: Record<string, () => Promise<{ scenario: Scenario }>> = {
  "static-baseline": () => import("./scenarios/static-baseline.ts"),
};

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { quick: { type: "boolean", default: false }, only: { type: "string" } },
  });
  const quick = values.quick === true;
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
  let failed = 0;
  try {
    for (const [name, load] of Object.entries(scenarios)) {
      if (only && !only.includes(name)) continue;
      const { scenario } = await load();
      const started = performance.now();
      process.stderr.write(`bench: ${name}…\n`);
      try {
        await scenario.run({ quick, report, tmp, repoRoot, log: (m) => process.stderr.write(`  ${m}\n`) });
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
    rmSync(tmp, { recursive: true, force: true });
  }
  const dir = writeReport(report, quick);
  process.stdout.write(`bench: results in ${dir}\n${JSON.stringify(report.figures, null, 2)}\n`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
