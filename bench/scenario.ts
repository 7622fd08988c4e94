import type { EdgeRuntimeName } from "./lib/edge-fixture.ts";
import type { Fixtures } from "./lib/fixtures.ts";
import type { BenchReport } from "./lib/results.ts";

/** Sizes a run uses; `--quick` shrinks every one so CI exercises each scenario in minutes. */
export interface BenchSettings {
  /** Synthetic chain length indexed from the dev node. */
  blocks: number;
  rangeSize: number;
  /** GetBlockRange sizes of the range scenario (capped at the sealed chain). */
  rangeSizes: number[];
  /** Closed-loop seconds per concurrency level. */
  levelSec: number;
  /** Client counts per request size of the concurrency scenario. */
  levels: { r10k: number[]; r100: number[] };
  /** Sequential calls per unary RPC (after warm-up). */
  calls: number;
  /** Seconds of the soak scenario (`--soak-seconds`; 600 by default). */
  soakSec: number;
  /** Local runtimes the edge is measured under, side by side: `edge.*` wrangler, `edgeMiniflare.*`. */
  edgeRuntimes: EdgeRuntimeName[];
  /** Where Miniflare's edge reads the store (`--edge-store public-url|r2`; lib/fixtures.ts). */
  edgeStore: "public-url" | "r2";
  /**
   * Tree states of every sealed range after indexing (`lightedge backfill-trees`), so GetTreeState
   * is served from storage; `--no-trees-backfill` skips it (hours at 200,000 dev-chain blocks).
   */
  treesBackfill: boolean;
}

export interface ScenarioContext {
  quick: boolean;
  settings: BenchSettings;
  report: BenchReport;
  /** A fresh temporary directory for this run. */
  tmp: string;
  /** Absolute path of the repository root. */
  repoRoot: string;
  /** The shared stack (dev node, store, origin, edge, static baseline), started on first use. */
  fixtures: Fixtures;
  log(message: string): void;
}

/** One bench scenario; it adds figures, rows, charts and notes to the shared report. */
export interface Scenario {
  name: string;
  run(ctx: ScenarioContext): Promise<void>;
}
