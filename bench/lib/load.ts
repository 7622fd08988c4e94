import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { latencySummary } from "./stats.ts";

const run = promisify(execFile);

export interface LoadRequest {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  bodyBase64?: string;
  /** Blocks this request returns (static baseline: counted on success instead of frames). */
  blocks?: number;
}

export interface LoadSpec {
  baseUrl: string;
  /** Requests are taken round-robin from a per-client offset, so clients spread over them. */
  requests: LoadRequest[];
  clients: number;
  /** Closed loop for this long… */
  durationMs?: number;
  /** …or this many requests per client. */
  requestsPerClient?: number;
  /** Parse gRPC-web/Connect frames: count blocks and check the end-of-stream status. */
  countFrames?: boolean;
  /** Requests each client makes first, untimed (connections, caches), before the measured loop. */
  warmup?: number;
}

export interface LoadChildResult {
  requests: number;
  errors: number;
  bytes: number;
  frames: number;
  latenciesMs: number[];
  errorSamples: string[];
  /** Errors by cause (RPC, HTTP or stream status, the message's start). */
  errorCauses: Record<string, number>;
  /** Blocks of requests that declare `blocks`, pro rata of bytes received (frames counted apart). */
  blocks: number;
  /** Epoch ms when the measured loop started and ended in the child (spawn time excluded). */
  startedAt: number;
  endedAt: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  bytes: number;
  frames: number;
  /** frames when counted, otherwise the declared blocks of successful requests. */
  blocks: number;
  /** From the first child's measured start to the last child's end (process spawn excluded). */
  elapsedSec: number;
  p50Ms: number;
  p99Ms: number;
  errorSamples: string[];
  errorCauses: Record<string, number>;
}

const childScript = new URL("./load-child.ts", import.meta.url).pathname;

/** Runs the load in separate processes (≤ 4), so the generator's CPU is never the server's. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const processes = Math.min(4, spec.clients);
  const parts = await Promise.all(
    Array.from({ length: processes }, (_, p) => {
      const clients = Math.floor(spec.clients / processes) + (p < spec.clients % processes ? 1 : 0);
      const clientOffset = p * Math.ceil(spec.clients / processes);
      return run(process.execPath, [childScript, JSON.stringify({ ...spec, clients, clientOffset })], {
        maxBuffer: 256 * 1024 * 1024,
      }).then(({ stdout }) => JSON.parse(stdout) as LoadChildResult);
    }),
  );
  const elapsedSec =
    (Math.max(...parts.map((p) => p.endedAt)) - Math.min(...parts.map((p) => p.startedAt))) / 1000;
  const frames = parts.reduce((a, p) => a + p.frames, 0);
  const latencies = parts.flatMap((p) => p.latenciesMs);
  const { p50Ms, p99Ms } = latencySummary(latencies);
  return {
    requests: parts.reduce((a, p) => a + p.requests, 0),
    errors: parts.reduce((a, p) => a + p.errors, 0),
    bytes: parts.reduce((a, p) => a + p.bytes, 0),
    frames,
    blocks: spec.countFrames ? frames : parts.reduce((a, p) => a + p.blocks, 0),
    elapsedSec,
    p50Ms,
    p99Ms,
    errorSamples: parts.flatMap((p) => p.errorSamples).slice(0, 5),
    errorCauses: sumCauses(parts.map((p) => p.errorCauses)),
  };
}

/** Error counts by cause, summed over load processes (or a server's stream and unary loads). */
export function sumCauses(all: Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const causes of all) for (const [k, n] of Object.entries(causes)) out[k] = (out[k] ?? 0) + n;
  return out;
}
