// ghz (github.com/bojand/ghz) against the origin, when installed: an independent gRPC load
// generator (Go, grpc-go client) to cross-check bench/origin-rpc.ts's own figures.
// Install: go install github.com/bojand/ghz/cmd/ghz@v0.120.0  (lands in ~/go/bin)
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const protoDir = new URL("../proto/walletrpc/", import.meta.url).pathname;

export function ghzPath(): string | undefined {
  const candidates = [process.env.GHZ, join(homedir(), "go/bin/ghz"), "/usr/local/bin/ghz"];
  return candidates.find((p): p is string => p !== undefined && existsSync(p));
}

export async function ghzAvailable(): Promise<boolean> {
  return ghzPath() !== undefined;
}

/** Runs ghz for GetLatestBlock and GetBlock with `clients` workers on as many connections. */
export async function runGhz(url: string, o: { clients: number; requests: number; tip: number }) {
  const target = new URL(url).host;
  const out: Record<string, unknown> = {};
  const calls: [string, string][] = [
    ["GetLatestBlock", "{}"],
    ["GetBlock", JSON.stringify({ height: String(Math.floor(o.tip / 2)) })],
  ];
  for (const [method, data] of calls) {
    const { stdout } = await run(
      ghzPath()!,
      [
        "--insecure",
        "--proto",
        join(protoDir, "service.proto"),
        "--import-paths",
        protoDir,
        "--call",
        `cash.z.wallet.sdk.rpc.CompactTxStreamer.${method}`,
        "-d",
        data,
        "-c",
        String(o.clients),
        "--connections",
        String(o.clients),
        "-n",
        String(o.requests),
        "--format",
        "json",
        target,
      ],
      { maxBuffer: 1 << 28 },
    );
    const r = JSON.parse(stdout) as {
      count: number;
      rps: number;
      latencyDistribution?: { percentage: number; latency: number }[];
      errorDistribution?: Record<string, number>;
      statusCodeDistribution?: Record<string, number>;
    };
    const pct = (p: number) => (r.latencyDistribution?.find((d) => d.percentage === p)?.latency ?? 0) / 1e6;
    out[method] = {
      count: r.count,
      rps: Math.round(r.rps),
      p50Ms: pct(50),
      p99Ms: pct(99),
      statusCodes: r.statusCodeDistribution,
      // A fixed count (-n), not a duration: with -z ghz cuts the in-flight calls at the deadline
      // and reports each as Unavailable, one per connection, which says nothing about the server.
      errors: Object.values(r.errorDistribution ?? {}).reduce((a, n) => a + n, 0),
      errorSample: Object.keys(r.errorDistribution ?? {})[0],
    };
  }
  return out;
}
