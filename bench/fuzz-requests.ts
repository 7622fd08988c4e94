// The request fuzzers at scale (the tests run a few thousand cases; this runs millions):
//   node bench/fuzz-requests.ts [--cases 1000000] [--seed 1] [--concurrency 8] [--devnode-cases 100000]
//                               [--edge-cases 100000] [--object-cases 20000] [--differential-cases 20000]
// Starts a dev node, an indexer and the origin (origin/serve/testing.ts), fuzzes every origin
// route and protocol (test/robustness/fuzz-requests.ts); then the edge as `npm start` runs it
// (wrangler dev's workerd in front of its own origin, test/support/wallet-system.ts) with the same
// cases over HTTP/1.1, and its plain-HTTP downloads checked against the store's files
// (test/robustness/fuzz-objects.ts), and valid reads compared with its origin's answers message for
// message (test/robustness/fuzz-differential.ts, gRPC-web and Connect); then the dev node's JSON-RPC and control API in a process of its own
// (test/robustness/fuzz-devnode.ts). Prints findings (deduplicated) and a JSON summary; exits 1
// when the origin or the edge had any finding.

import { join } from "node:path";
import { parseArgs } from "node:util";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { clientFor, startStack } from "../origin/serve/testing.ts";
import { startDevnodeProcess } from "../test/robustness/devnode-process.ts";
import { describeDevnodeFinding, runDevnodeFuzz } from "../test/robustness/fuzz-devnode.ts";
import {
  describeDifferentialFinding,
  readChainFacts,
  runDifferentialFuzz,
} from "../test/robustness/fuzz-differential.ts";
import { describeObjectFinding, runObjectFuzz } from "../test/robustness/fuzz-objects.ts";
import { describeFinding, type FuzzRunResult, runRequestFuzz } from "../test/robustness/fuzz-requests.ts";
import { startWalletSystem } from "../test/support/wallet-system.ts";

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "1000000" },
    seed: { type: "string", default: "1" },
    concurrency: { type: "string", default: "8" },
    "devnode-cases": { type: "string", default: "100000" },
    "edge-cases": { type: "string", default: "100000" },
    "object-cases": { type: "string", default: "20000" },
    "differential-cases": { type: "string", default: "20000" },
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
/** Findings once per kind, detail and path. */
function printFindings(server: string, result: FuzzRunResult): void {
  const unique = new Map<string, string>();
  for (const f of result.findings)
    unique.set(`${f.kind} ${f.detail.slice(0, 60)} ${f.case.path}`, describeFinding(f));
  for (const line of unique.values()) process.stdout.write(`${server} finding: ${line.slice(0, 400)}\n`);
}

/** A fuzz run's summary figures. */
function summarize(result: FuzzRunResult, seconds: number, stillServing: boolean) {
  const byKind: Record<string, number> = {};
  for (const f of result.findings) byKind[f.kind] = (byKind[f.kind] ?? 0) + 1;
  return {
    cases: result.cases,
    seed,
    answered: result.answered,
    findings: result.findings.length,
    byKind,
    seconds: Number(seconds.toFixed(1)),
    requestsPerSecond: Math.round(result.cases / seconds),
    stillServing,
  };
}

printFindings("origin", origin);

// The edge (HTTP/1.1 only under workerd here: native gRPC cases go over HTTP/1.1, and it must
// refuse them with an HTTP status) in front of an origin of its own, sealed ranges and tail.
const edgeCases = Number(values["edge-cases"]);
let edgeSummary:
  | (ReturnType<typeof summarize> & {
      downloads: { cases: number; answered: number; findings: number };
      differential: { cases: number; findings: number };
    })
  | undefined;
if (edgeCases > 0) {
  const system = await startWalletSystem({
    chain: { synthetic: { blocks: 60, seed: "fuzz-bench-edge" } },
    rangeSize: 10,
    sealDepth: 12,
  });
  try {
    const edgeTip = await system.settle(120_000);
    await system.control("mempool", { count: 5 });
    const server = system.servers.find((s) => s.name === "edge")!;
    const started = performance.now();
    const edge = await runRequestFuzz({
      url: server.url,
      cases: edgeCases,
      seed,
      tip: edgeTip,
      concurrency: Number(values.concurrency),
      h2: false,
      progress: (done, findings) => {
        const rate = done / ((performance.now() - started) / 1000);
        process.stderr.write(
          `edge: ${done}/${edgeCases} cases, ${findings} findings, ${rate.toFixed(0)} req/s\n`,
        );
      },
    });
    const seconds = (performance.now() - started) / 1000;
    const objects = await runObjectFuzz({
      url: server.url,
      storeDir: join(system.all.dataDir, "store"),
      cases: Number(values["object-cases"]),
      seed,
      concurrency: Number(values.concurrency),
    });
    for (const f of objects.findings.slice(0, 20))
      process.stdout.write(`edge download finding: ${describeObjectFinding(f)}\n`);
    const reference = system.servers.find((s) => s.name === "origin")!;
    const chain = await readChainFacts(system.client(reference), system.network);
    let differentialFindings = 0;
    for (const transport of [
      (baseUrl: string) => createGrpcWebTransport({ baseUrl, httpVersion: "1.1" }),
      (baseUrl: string) => createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: true }),
    ]) {
      const d = await runDifferentialFuzz({
        edge: transport(server.url),
        reference: transport(reference.url),
        chain,
        cases: Math.ceil(Number(values["differential-cases"]) / 2),
        seed,
        concurrency: Number(values.concurrency),
      });
      differentialFindings += d.findings.length;
      for (const f of d.findings.slice(0, 20))
        process.stdout.write(`edge differential finding: ${describeDifferentialFinding(f).slice(0, 400)}\n`);
    }
    const serving = Number((await system.client(server).getLatestBlock({})).height) === edgeTip;
    printFindings("edge", edge);
    edgeSummary = {
      ...summarize(edge, seconds, serving),
      downloads: { cases: objects.cases, answered: objects.answered, findings: objects.findings.length },
      differential: {
        cases: 2 * Math.ceil(Number(values["differential-cases"]) / 2),
        findings: differentialFindings,
      },
    };
  } finally {
    await system.close();
  }
}

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
    origin: summarize(origin, originSeconds, stillServing),
    ...(edgeSummary === undefined ? {} : { edge: edgeSummary }),
    devnode: { cases: devnodeCases, ...devnode },
  },
};
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
const edgeOk =
  edgeSummary === undefined ||
  (edgeSummary.findings === 0 &&
    edgeSummary.downloads.findings === 0 &&
    edgeSummary.differential.findings === 0 &&
    edgeSummary.stillServing);
process.exitCode = origin.findings.length === 0 && stillServing && edgeOk ? 0 : 1;
