import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { ghzPath, runGhz } from "../origin-ghz.ts";
import type { Scenario, ScenarioContext } from "../scenario.ts";

const run = promisify(execFile);
const GHZ_MODULE = "github.com/bojand/ghz/cmd/ghz@v0.120.0";

/**
 * The origin's native gRPC (HTTP/2) driven by ghz v0.120.0, the tool the published studies used,
 * so our origin figures sit beside theirs measured the same way. Installs ghz from the Go module
 * proxy when `go` is present and it is missing; otherwise skips with a note.
 */
export const scenario: Scenario = {
  name: "ghz",
  async run(ctx) {
    if (!(await ensureGhz(ctx))) return;
    const origin = await ctx.fixtures.origin();
    const scan = await ctx.fixtures.scan();
    const clients = ctx.quick ? 16 : 256;
    const out = (await runGhz(origin.url, {
      clients,
      requests: ctx.quick ? 2_000 : 20_000,
      tip: scan.sealedTip,
    })) as Record<string, { rps: number; p50Ms: number; p99Ms: number; errors: number; count: number }>;
    for (const [method, r] of Object.entries(out)) {
      const key = `origin.ghz.${method[0]!.toLowerCase()}${method.slice(1)}`;
      ctx.report.figures[`${key}.rps`] = r.rps;
      ctx.report.figures[`${key}.p50Ms`] = r.p50Ms;
      ctx.report.figures[`${key}.p99Ms`] = r.p99Ms;
      ctx.report.figures[`${key}.errors`] = r.errors;
      ctx.report.rows.push({
        scenario: "origin gRPC (ghz)",
        metric: `${method}, ${clients} clients/connections: req/s`,
        value: r.rps,
        note: `p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms, ${r.errors} errors of ${r.count}`,
      });
      ctx.log(`ghz ${method} ×${clients}: ${r.rps} req/s, p50 ${r.p50Ms} ms, ${r.errors} errors`);
    }
  },
};

async function ensureGhz(ctx: ScenarioContext): Promise<boolean> {
  if (ghzPath()) return true;
  // The quick smoke run (CI) does not download and build ghz; the full suite does.
  if (ctx.quick) {
    ctx.report.notes.push(
      "ghz skipped in --quick mode: not installed (the full run installs it with go install)",
    );
    return false;
  }
  try {
    ctx.log(`installing ghz: go install ${GHZ_MODULE}`);
    const go = existsSync("/usr/local/go/bin/go") ? "/usr/local/go/bin/go" : "go";
    await run(go, ["install", GHZ_MODULE], { timeout: 600_000 });
  } catch (err) {
    ctx.report.notes.push(
      `ghz skipped: not installed and \`go install\` failed or no go (${String(err).slice(0, 200)})`,
    );
    return false;
  }
  return ghzPath() !== undefined;
}
