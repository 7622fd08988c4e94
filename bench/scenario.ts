import type { BenchReport } from "./lib/results.ts";

export interface ScenarioContext {
  quick: boolean;
  report: BenchReport;
  /** A fresh temporary directory for this run. */
  tmp: string;
  /** Absolute path of the repository root. */
  repoRoot: string;
  log(message: string): void;
}

/** One bench scenario; it adds figures, rows, charts and notes to the shared report. */
export interface Scenario {
  name: string;
  run(ctx: ScenarioContext): Promise<void>;
}
