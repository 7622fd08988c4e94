import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { displayHex } from "../../proto/bytes.ts";
import { blockHashAt } from "./range.ts";

/**
 * A JSON-RPC node standing in for the generated chain (bench/scale/range.ts), for `lightedge
 * origin` adopting a generated store: there is no 3.5 M-block node here. It answers what bootstrap
 * and tip following ask — getinfo, getblockchaininfo (its tip is the store's sealed tip: nothing to
 * fetch), getblockhash (the generator's own hashes, the real genesis at 0) — and "method not found"
 * to everything else, so nothing else can pass for the chain.
 */
export async function startScaleNode(o: {
  network: "mainnet";
  seed: string;
  tip: number;
}): Promise<{ url: string; calls: Map<string, number>; close(): Promise<void> }> {
  const calls = new Map<string, number>();
  const tipHash = displayHex(blockHashAt(o.network, o.seed, o.tip));
  const answer = (call: { id?: unknown; method?: string; params?: unknown[] }) => {
    const method = String(call.method);
    calls.set(method, (calls.get(method) ?? 0) + 1);
    const ok = (result: unknown) => ({ jsonrpc: "2.0", id: call.id, result, error: null });
    const fail = (code: number, message: string) => ({
      jsonrpc: "2.0",
      id: call.id,
      result: null,
      error: { code, message },
    });
    switch (method) {
      case "getinfo":
        return ok({ build: "scale-node", subversion: "/lightedge-scale-node/" });
      case "getblockchaininfo":
        return ok({
          chain: "main",
          blocks: o.tip,
          bestblockhash: tipHash,
          estimatedheight: o.tip,
          upgrades: { "76b809bb": { name: "Sapling", activationheight: 419_200, status: "active" } },
          consensus: { chaintip: "c8e71055", nextblock: "c8e71055" },
        });
      case "getblockhash": {
        const height = Number(call.params?.[0]);
        if (!Number.isInteger(height) || height < 0 || height > o.tip)
          return fail(-8, "Block height out of range");
        return ok(displayHex(blockHashAt(o.network, o.seed, height)));
      }
      default:
        return fail(-32601, `Method not found (the scale node serves only what bootstrap asks): ${method}`);
    }
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || "null");
      const out = Array.isArray(body) ? body.map(answer) : answer(body ?? {});
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(out));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
