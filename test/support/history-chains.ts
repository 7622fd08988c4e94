import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

/**
 * Chains with node-free history for the edge's history tests (edge/history/*.test.ts). Each is a
 * process of its own (history-chain-main.ts: a real indexer sealing with `history: true` into a
 * directory store, a real origin in front of it) with its dev node in another process, as a node
 * and an origin run in production: a busy dev node (synthetic blocks are generated per request)
 * or the test runner's own work never stalls the origin the edge is timing. The edge global
 * setup's fixture server starts a chain on the first request for it, so workers test runs that do
 * not need them do not pay for them.
 */

export interface HistoryChainSpec {
  network: "mainnet" | "testnet" | "regtest";
  /** A synthetic chain with heavy transparent traffic… */
  synthetic?: { blocks: number; seed: string };
  /** …or a corpus run, with `mined` blocks mined on top (the origin's tail). */
  corpus?: { from: number; to: number; mined: number };
  rangeSize: number;
  sealDepth: number;
  epochRanges: number;
  /** The origin's TailAddresses cap (origin/index/indexer.ts TAIL_RECORDS_MAX unless set). */
  tailRecordsMax?: number;
}

/** The chains the edge tests use, by name. */
export const HISTORY_CHAINS: Record<string, HistoryChainSpec> = {
  // 2,000 blocks of heavy transparent traffic: both index levels, hundreds of addresses with
  // hundreds of transactions, spends of outputs 0–1,000 blocks old.
  heavy: {
    network: "regtest",
    synthetic: { blocks: 2_000, seed: "edge-history" },
    rangeSize: 20,
    sealDepth: 10,
    epochRanges: 8,
  },
  // Real transparent spends (mainnet 663150–663250), 30 mined blocks on top.
  mainnet: {
    network: "mainnet",
    corpus: { from: 663150, to: 663250, mined: 30 },
    rangeSize: 10,
    sealDepth: 20,
    epochRanges: 4,
  },
  testnet: {
    network: "testnet",
    corpus: { from: 1028400, to: 1028600, mined: 20 },
    rangeSize: 10,
    sealDepth: 15,
    epochRanges: 4,
  },
  // The mainnet corpus again, its origin answering TailAddresses with at most 20 records: the
  // edge asks it for the whole answer past that (edge/history/lagging-levels.test.ts).
  capped: {
    network: "mainnet",
    corpus: { from: 663150, to: 663250, mined: 30 },
    rangeSize: 10,
    sealDepth: 20,
    epochRanges: 4,
    tailRecordsMax: 20,
  },
  // Its own chain for reorgs in the tail, so no other test file sees the chain change under it.
  reorg: {
    network: "regtest",
    synthetic: { blocks: 400, seed: "edge-history-reorg" },
    rangeSize: 10,
    sealDepth: 12,
    epochRanges: 4,
  },
};

const chainMain = fileURLToPath(new URL("./history-chain-main.ts", import.meta.url));

/** Starts a chain's process; resolves with its URL once it serves. */
function startChain(name: string): { url: Promise<string>; child: ChildProcess } {
  const child = spawn(process.execPath, [chainMain, name], { stdio: ["ignore", "pipe", "inherit"] });
  const url = new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (d: string) => {
      out += d;
      const m = /history chain \S+ serving on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`history chain ${name} exited with ${code}: ${out}`)));
  });
  url.catch(() => {});
  return { url, child };
}

/**
 * The fixture server: `GET /chains/<name>` starts the chain (once) and answers its
 * HistoryChainInfo, as its process says it now is.
 */
export async function startHistoryFixtureServer(): Promise<{ url: string; close(): Promise<void> }> {
  const started = new Map<string, { url: Promise<string>; child: ChildProcess }>();
  const server: Server = createServer((req, res) => {
    const name = /^\/chains\/([a-z]+)$/.exec(req.url ?? "")?.[1];
    if (name === undefined || HISTORY_CHAINS[name] === undefined) {
      res.writeHead(404).end();
      return;
    }
    let chain = started.get(name);
    if (chain === undefined) {
      chain = startChain(name);
      started.set(name, chain);
    }
    chain.url
      .then((url) => fetch(`${url}/info`))
      .then(async (info) => {
        res.writeHead(info.status, { "content-type": "application/json" });
        res.end(await info.text());
      })
      .catch((err: unknown) => {
        res.writeHead(500, { "content-type": "text/plain" }).end(String(err));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(
        [...started.values()].map(({ child }) => {
          if (child.exitCode !== null || child.signalCode !== null) return undefined;
          const exited = new Promise((r) => child.once("exit", r));
          child.kill("SIGTERM");
          return exited;
        }),
      );
    },
  };
}
