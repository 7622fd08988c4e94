// The request fuzzers at scale (the tests run a few thousand cases; this runs millions):
//   node bench/fuzz-requests.ts [--cases 1000000] [--seed 1] [--concurrency 8] [--devnode-cases 100000]
// Starts a dev node, an indexer and the origin (origin/serve/testing.ts), fuzzes every origin
// route and protocol (test/robustness/fuzz-requests.ts), then the dev node's JSON-RPC and control
// API in a process of its own (test/robustness/fuzz-devnode.ts). Prints findings (deduplicated)
// and a JSON summary; exits 1 when the origin had any finding.
import { parseArgs } from "node:util";
import { clientFor, startStack } from "../origin/serve/testing.ts";
import { startDevnodeProcess } from "../test/robustness/devnode-process.ts";
import { describeDevnodeFinding, runDevnodeFuzz } from "../test/robustness/fuzz-devnode.ts";
import { describeFinding, runRequestFuzz } from "../test/robustness/fuzz-requests.ts";

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "1000000" },
    seed: { type: "string", default: "1" },
    concurrency: { type: "string", default: "8" },
    "devnode-cases": { type: "string", default: "100000" },
  },
});
const cases = Number(values.cases);
const seed = Number(values.seed);

const stack = await startStack({ blocks: 60, seed: "fuzz-bench" });
await stack.control("mempool", { count: 5 });
const tip = stack.indexer.view.tip()!.height;
const started = performance.now();
const origin = await runRequestFuzz({
  url: stack.server.url,
  cases,
  seed,
  tip,
  concurrency: Number(values.concurrency),
  progress: (done, findings) => {
    const rate = done / ((performance.now() - started) / 1000);
    process.stderr.write(`origin: ${done}/${cases} cases, ${findings} findings, ${rate.toFixed(0)} req/s\n`);
  },
});
const originSeconds = (performance.now() - started) / 1000;
const stillServing = (await clientFor("grpc", stack.server.url).getLatestBlock({})).height === BigInt(tip);
await stack.close();
const unique = new Map<string, string>();
for (const f of origin.findings)
  unique.set(`${f.kind} ${f.detail.slice(0, 60)} ${f.case.path}`, describeFinding(f));
for (const line of unique.values()) process.stdout.write(`origin finding: ${line.slice(0, 400)}\n`);

const devnodeCases = Number(values["devnode-cases"]);
const devnode: Record<string, number> = {};
for (const control of [false, true]) {
  const dev = await startDevnodeProcess(60, "fuzz-bench-devnode");
  try {
    const r = await runDevnodeFuzz({
      url: dev.url,
      cases: devnodeCases,
      seed,
      tip: 59,
      control,
      timeoutMs: 5000,
    });
    devnode[control ? "controlFindings" : "jsonRpcFindings"] = r.findings.length;
    for (const f of r.findings.slice(0, 20))
      process.stdout.write(`devnode finding: ${describeDevnodeFinding(f)}\n`);
  } finally {
    await dev.stop();
  }
}

const summary = {
  fuzz: {
    origin: {
      cases,
      seed,
      answered: origin.answered,
      findings: origin.findings.length,
      byKind: Object.fromEntries(
        [...new Set(origin.findings.map((f) => f.kind))].map((k) => [
          k,
          origin.findings.filter((f) => f.kind === k).length,
        ]),
      ),
      seconds: Number(originSeconds.toFixed(1)),
      requestsPerSecond: Math.round(cases / originSeconds),
      stillServing,
    },
    devnode: { cases: devnodeCases, ...devnode },
  },
};
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
process.exitCode = origin.findings.length === 0 && stillServing ? 0 : 1;
