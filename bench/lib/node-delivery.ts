import { processCpuSeconds } from "./proc-cpu.ts";

/** One JSON-RPC call of a batch. */
export type NodeCall = { method: string; params: unknown[] };

/**
 * What a node hands out alone, fetched the way the indexer fetches (origin/index/fetch-pipeline.ts):
 * heights 0..tip, `concurrency` JSON-RPC batches of `chunk` blocks in flight, each block asking
 * `calls(h)`. Wall seconds and the node's CPU seconds — the limit an indexer's rate is read against
 * (`index.vsNodeDelivery`, `index.zebrad.vsNodeDelivery`).
 */
export async function deliverBlocks(o: {
  url: string;
  pid: number;
  tip: number;
  concurrency: number;
  chunk: number;
  calls: (h: number) => NodeCall[];
}): Promise<{ seconds: number; nodeCpuSec: number; bytes: number }> {
  let next = 0;
  let bytes = 0;
  const cpu0 = processCpuSeconds(o.pid);
  const started = performance.now();
  const worker = async () => {
    while (next <= o.tip) {
      const from = next;
      const to = Math.min(o.tip, from + o.chunk - 1);
      next = to + 1;
      const body: (NodeCall & { jsonrpc: string; id: number })[] = [];
      for (let h = from; h <= to; h++)
        for (const c of o.calls(h)) body.push({ jsonrpc: "2.0", id: body.length, ...c });
      const res = await fetch(o.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      bytes += text.length;
      const answers = JSON.parse(text) as { result?: unknown; error?: unknown }[];
      if (!Array.isArray(answers) || answers.length !== body.length || answers.some((a) => a.error))
        throw new Error(`node batch ${from}..${to}: unexpected answer (HTTP ${res.status})`);
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  return {
    seconds: (performance.now() - started) / 1000,
    nodeCpuSec: processCpuSeconds(o.pid) - cpu0,
    bytes,
  };
}

/** Raw blocks only (`getblock h 0`): what a node delivers at the least. */
export const rawGetblock = (h: number): NodeCall[] => [{ method: "getblock", params: [String(h), 0] }];

/** Every call the indexer makes per block (origin/node/blocks.ts): getblockhash, getblock 0 and 1. */
export const indexerCalls = (h: number): NodeCall[] => [
  { method: "getblockhash", params: [h] },
  { method: "getblock", params: [String(h), 0] },
  { method: "getblock", params: [String(h), 1] },
];
