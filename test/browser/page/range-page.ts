// Bundled with esbuild and loaded by a real Chromium: a browser wallet's view of the edge, through
// connect-web's gRPC-web transport (what WebZjs-style clients speak), with no proxy in between.
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { CompactTxStreamer } from "../../../proto/index.ts";

export interface PageBlock {
  height: number;
  hash: string;
  prevHash: string;
}

export interface PageResult {
  blocks: PageBlock[];
  /** Problems the page itself found in the chain (empty when heights and prevHashes chain). */
  problems: string[];
  latestHeight: number;
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

async function syncRange(baseUrl: string, start: number, end: number): Promise<PageResult> {
  const client = createClient(CompactTxStreamer, createGrpcWebTransport({ baseUrl }));
  const latest = await client.getLatestBlock({});
  const blocks: PageBlock[] = [];
  const problems: string[] = [];
  for await (const b of client.getBlockRange({
    start: { height: BigInt(start) },
    end: { height: BigInt(end) },
  })) {
    const block = { height: Number(b.height), hash: hex(b.hash), prevHash: hex(b.prevHash) };
    const prev = blocks[blocks.length - 1];
    if (prev !== undefined && (block.height !== prev.height + 1 || block.prevHash !== prev.hash)) {
      problems.push(`block ${block.height} does not follow ${prev.height}`);
    }
    blocks.push(block);
  }
  return { blocks, problems, latestHeight: Number(latest.height) };
}

(globalThis as unknown as { syncRange: typeof syncRange }).syncRange = syncRange;
