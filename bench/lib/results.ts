import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { barChartSvg, formatNumber } from "./svg-chart.ts";

export interface BenchReport {
  /** Stable dotted names → numbers (the contract of latest.json, e.g. "edge.range10k.blocksPerSec"). */
  figures: Record<string, number>;
  /** Human-readable rows for the Markdown table. */
  rows: { scenario: string; metric: string; value: number; baseline?: number; note?: string }[];
  charts: { file: string; title: string; unit: string; bars: { label: string; value: number }[] }[];
  notes: string[];
  machine: Record<string, string | number>;
}

const resultsRoot = new URL("../results/", import.meta.url).pathname;

/** Writes results/<timestamp>/{results.json,README.md,*.svg} and results/latest.json. */
export function writeReport(report: BenchReport, quick: boolean): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const dir = join(resultsRoot, `${stamp}${quick ? "-quick" : ""}`);
  mkdirSync(dir, { recursive: true });
  const json = { createdAt: new Date().toISOString(), quick, machine: report.machine, ...report.figures };
  writeFileSync(
    join(dir, "results.json"),
    `${JSON.stringify({ ...json, rows: report.rows, notes: report.notes }, null, 2)}\n`,
  );
  writeFileSync(join(resultsRoot, "latest.json"), `${JSON.stringify(json, null, 2)}\n`);
  for (const c of report.charts) writeFileSync(join(dir, c.file), barChartSvg(c.title, c.unit, c.bars));
  writeFileSync(join(dir, "README.md"), markdown(report, quick));
  return dir;
}

function markdown(report: BenchReport, quick: boolean): string {
  const lines = [
    `# lightedge bench ${quick ? "(quick)" : ""}`,
    "",
    `Machine: ${Object.entries(report.machine)
      .map(([k, v]) => `${k}=${v}`)
      .join(", ")}`,
    "",
    "| scenario | metric | value | baseline (same run) | note |",
    "|---|---|---:|---:|---|",
    ...report.rows.map(
      (r) =>
        `| ${r.scenario} | ${r.metric} | ${formatNumber(r.value)} | ${r.baseline === undefined ? "" : formatNumber(r.baseline)} | ${r.note ?? ""} |`,
    ),
    "",
    "## Key figures (latest.json)",
    "",
    ...Object.entries(report.figures).map(([k, v]) => `- \`${k}\`: ${formatNumber(v)}`),
    "",
    ...report.charts.map((c) => `![${c.title}](${c.file})`),
    "",
    ...(report.notes.length ? ["## Notes", "", ...report.notes.map((n) => `- ${n}`)] : []),
    "",
  ];
  return lines.join("\n");
}
