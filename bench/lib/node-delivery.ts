import { execFile } from "node:child_process";
import http from "node:http";
import { promisify } from "node:util";
import { processCpuSeconds } from "./proc-cpu.ts";

const run = promisify(execFile);

/** One JSON-RPC call of a batch. */
export type NodeCall = { method: string; params: unknown[] };

export interface DeliveryOptions {
  url: string;
  /** The node's process (its CPU is read from /proc). */
  pid: number;
  tip: number;
  concurrency: number;
  chunk: number;
}

/** Wall seconds of the whole pass, CPU seconds of the node and of the fetching client, bytes read. */
export interface Delivery {
  seconds: number;
  nodeCpuSec: number;
  clientCpuSec: number;
  bytes: number;
}

const childScript = new URL("./node-delivery-child.ts", import.meta.url).pathname;

/**
 * `deliverBlocks` in a process of its own, as the benches' load generators run: the client's
 * garbage collector then marks only its own small heap. In the bench runner, next to the store
 * scan's tables (tens of MB), each 50-block batch's buffers set off full GCs of that heap: the
 * client cost ≈ 1.0 ms per raw block instead of ≈ 0.3 and the "node alone" rate came out about
 * halved, flattering `index.vsNodeDelivery`.
 */
export async function deliverBlocksApart(
  o: DeliveryOptions & { calls: keyof typeof CALLS },
): Promise<Delivery> {
  const { stdout } = await run(process.execPath, [childScript, JSON.stringify(o)], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as Delivery;
}

/**
 * What a node hands out alone, fetched the way the indexer fetches (origin/index/fetch-pipeline.ts):
 * heights 0..tip, `concurrency` JSON-RPC batches of `chunk` blocks in flight over keep-alive
 * connections, each block asking `calls(h)`. Wall seconds, the node's CPU seconds and this
 * client's — the limit an indexer's rate is read against (`index.vsNodeDelivery`,
 * `index.zebrad.vsNodeDelivery`).
 *
 * The client does as little as it can while still checking every answer (`answerCount`): it runs
 * on the same cores as the node, so its own CPU lowers the rate it reports. With `fetch`, the whole
 * body as one string and `JSON.parse` of every block's hex, it used more CPU than the dev node it
 * measured (≈ 1.2 ms vs ≈ 0.9 ms per raw block). Benches run it in a process of its own
 * (`deliverBlocksApart`).
 */
export async function deliverBlocks(
  o: DeliveryOptions & { calls: (h: number, lastOfBatch: boolean) => NodeCall[] },
): Promise<Delivery> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.concurrency });
  let next = 0;
  let bytes = 0;
  const cpu0 = processCpuSeconds(o.pid);
  const client0 = process.cpuUsage();
  const started = performance.now();
  const worker = async () => {
    while (next <= o.tip) {
      const from = next;
      const to = Math.min(o.tip, from + o.chunk - 1);
      next = to + 1;
      const body: (NodeCall & { jsonrpc: string; id: number })[] = [];
      for (let h = from; h <= to; h++)
        for (const c of o.calls(h, h === to)) body.push({ jsonrpc: "2.0", id: body.length, ...c });
      const answer = await post(agent, o.url, JSON.stringify(body));
      bytes += answer.body.length;
      if (answer.status !== 200 || answerCount(answer.body) !== body.length)
        throw new Error(`node batch ${from}..${to}: unexpected answer (HTTP ${answer.status})`);
    }
  };
  try {
    await Promise.all(Array.from({ length: o.concurrency }, worker));
  } finally {
    agent.destroy();
  }
  const client = process.cpuUsage(client0);
  return {
    seconds: (performance.now() - started) / 1000,
    nodeCpuSec: processCpuSeconds(o.pid) - cpu0,
    clientCpuSec: (client.user + client.system) / 1e6,
    bytes,
  };
}

function post(agent: http.Agent, url: string, body: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        agent,
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const RESULT = Buffer.from('"result":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** String results at least this long are skipped unread (block hex: ~140 KB on the dev chain). */
const SKIP_MIN = 4096;

/**
 * How many answers of a JSON-RPC batch body carry a result (−1 when it is not a JSON array of
 * answers, or any answer is an error). Long string results without escapes — block hex — are left
 * out before `JSON.parse`, which otherwise copies each into a string of its own; every other byte
 * of the body is parsed.
 */
export function answerCount(body: Buffer): number {
  const parts: string[] = [];
  let from = 0;
  for (let at = body.indexOf(RESULT); at >= 0; at = body.indexOf(RESULT, at + 1)) {
    const start = at + RESULT.length;
    const end = body.indexOf(QUOTE, start);
    if (end < 0) break;
    if (end - start < SKIP_MIN) continue;
    // A `\"` may hide the real end: then the string is parsed whole. (Searched within the span
    // only: from `start` on, a body of 50 blocks would be scanned again for each.)
    if (body.subarray(start, end).indexOf(BACKSLASH) >= 0) continue;
    parts.push(body.toString("utf8", from, start));
    from = end;
    at = end;
  }
  parts.push(body.toString("utf8", from));
  let answers: unknown;
  try {
    answers = JSON.parse(parts.join(""));
  } catch {
    return -1;
  }
  if (!Array.isArray(answers)) return -1;
  for (const a of answers) {
    const answer = a as { result?: unknown; error?: unknown } | null;
    if (typeof answer !== "object" || answer === null || answer.error || !("result" in answer)) return -1;
  }
  return answers.length;
}

/** The call sets by name (what `deliverBlocksApart` passes to its process). */
export const CALLS = {
  raw: (h: number) => rawGetblock(h),
  index: (h: number, lastOfBatch: boolean) => indexerCalls(h, lastOfBatch),
} as const;

/** Raw blocks only (`getblock h 0`): what a node delivers at the least. */
export const rawGetblock = (h: number): NodeCall[] => [{ method: "getblock", params: [String(h), 0] }];

/**
 * Every call the indexer makes per block in sync (origin/node/blocks.ts `fetchRawBlocks`): the raw
 * block by height, and for the last block of a batch its verbose answer (hash and tree sizes).
 */
export const indexerCalls = (h: number, lastOfBatch: boolean): NodeCall[] => [
  { method: "getblock", params: [String(h), 0] },
  ...(lastOfBatch ? [{ method: "getblock", params: [String(h), 1] }] : []),
];
