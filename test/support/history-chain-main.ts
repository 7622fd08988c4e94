// One chain with node-free history for the edge's history tests, in a process of its own (started
// by history-chains.ts): its dev node in a child process, a real indexer sealing with history into
// a directory store, and a real origin in front of them. Serves, once built:
//   GET  /info            the chain's HistoryChainInfo (its transactions and addresses included)
//   GET  /objects/<key>   an object of the store
//   POST /reorg?depth=d   replaces the dev node's last d blocks, answers once the origin follows
// and prints "history chain <name> serving on <url>".
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { HistoryChainInfo } from "../../edge/history/chain-info.ts";
import { parseBlock } from "../../origin/chain/index.ts";
import { tempDir } from "../../origin/index/testing.ts";
import { createOriginServer } from "../../origin/serve/origin-server.ts";
import { createDirectoryStore } from "../../origin/store/index.ts";
import { displayHex, toHex } from "../../proto/bytes.ts";
import { addressKeyOfScript, rawBlocks, rawBlocksKey, taddressOfKey } from "../../proto/history/index.ts";
import { decodeHead, headKey } from "../../proto/range/index.ts";
import { chainDir } from "./chain.ts";
import { HISTORY_CHAINS } from "./history-chains.ts";
import { testIndexer } from "./test-indexer.ts";
import { TEST_ORIGIN_SECRET } from "./test-origin.ts";

const name = process.argv[2]!;
const spec = HISTORY_CHAINS[name];
if (spec === undefined) throw new Error(`no history chain ${name}`);
const cli = fileURLToPath(new URL("../../origin/cli/main.ts", import.meta.url));

/** The dev node, as `lightedge devnode` in a child process. */
async function startDevNode(): Promise<{ url: string; child: ChildProcess }> {
  const args = spec!.synthetic
    ? [
        "--synthetic",
        String(spec!.synthetic.blocks),
        "--seed",
        spec!.synthetic.seed,
        "--transparent",
        "heavy",
      ]
    : [
        "--corpus",
        chainDir,
        "--network",
        spec!.network,
        "--from",
        String(spec!.corpus!.from),
        "--to",
        String(spec!.corpus!.to),
      ];
  const child = spawn(process.execPath, [cli, "devnode", "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (d: string) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`dev node exited with ${code}: ${out}`)));
  });
  return { url, child };
}

const dev = await startDevNode();
const devUrl = dev.url;

async function rpc<T>(method: string, params: unknown[]): Promise<T> {
  const res = await fetch(devUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

async function control<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(new URL(`control/${path}`, devUrl), {
    method: body === undefined ? "GET" : "POST",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as T;
}

/** Until every header is hashed (the served tip is the chain's tip). */
async function hashed(): Promise<void> {
  for (;;) {
    const state = await control<{ tip: number; servedTip: number }>("state");
    if (state.servedTip === state.tip) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

await hashed();
if (spec.corpus) {
  await control("mine", { blocks: spec.corpus.mined });
  await hashed();
}
// The dev node's address and transaction index: built by the first address request (a scan of
// the whole chain), here rather than under the first test's deadline.
await rpc("getaddressbalance", [{ addresses: [taddressOfKey(new Uint8Array(21), spec.network)] }]);

const storeDir = tempDir(`lightedge-history-${name}-store-`);
const dataDir = tempDir(`lightedge-history-${name}-data-`);
const store = createDirectoryStore(storeDir.path);
const indexer = testIndexer(devUrl, {
  store,
  dataDir: dataDir.path,
  network: spec.network,
  rangeSize: spec.rangeSize,
  sealDepth: spec.sealDepth,
  fromHeight: spec.corpus?.from ?? 0,
  hashIndexEpochRanges: spec.epochRanges,
  history: true,
  tailRecordsMax: spec.tailRecordsMax,
});
await indexer.indexer.start();
await indexer.indexer.synced();
const origin = await createOriginServer({
  chain: indexer.indexer.view,
  node: indexer.node,
  network: spec.network,
  history: indexer.indexer.history,
  secrets: [TEST_ORIGIN_SECRET],
  log: (rpcName, err) => console.error(`history chain ${name} origin:`, rpcName, err),
  listen: { host: "127.0.0.1", port: 0 },
});

/** What a block holds for the info: its txids (wire, hex) and the t-addresses its outputs pay. */
interface BlockFacts {
  txids: string[];
  paid: string[];
}

/** Sealed blocks never change: parsed once. */
const sealedFacts = new Map<number, BlockFacts>();

function factsOf(height: number, raw: Uint8Array): BlockFacts {
  const block = parseBlock(raw, { strictV6: false });
  const paid: string[] = [];
  // zebra indexes no genesis output
  if (height !== 0)
    for (const tx of block.txs)
      for (const out of tx.vout) {
        const key = addressKeyOfScript(out.scriptPubKey);
        if (key !== undefined) paid.push(taddressOfKey(key, spec!.network));
      }
  return { txids: block.txs.map((tx) => toHex(tx.wireTxid)), paid };
}

async function info(): Promise<HistoryChainInfo> {
  const head = decodeHead((await store.get(headKey(spec!.network)))!);
  const sealedTip = head.tip!.height;
  const tip = indexer.indexer.lastBlock()!.height;
  for (let index = head.firstHeight / spec!.rangeSize; index * spec!.rangeSize <= sealedTip; index++) {
    const first = index * spec!.rangeSize;
    if (sealedFacts.has(first)) continue;
    const raw = (await store.get(rawBlocksKey(spec!.network, spec!.rangeSize, index)))!;
    let height = first;
    for (const block of rawBlocks(raw)) {
      sealedFacts.set(height, factsOf(height, block));
      height++;
    }
  }
  const txs: HistoryChainInfo["txs"] = [];
  const paid = new Map<string, number>();
  for (let height = head.firstHeight; height <= tip; height++) {
    const facts =
      sealedFacts.get(height) ??
      factsOf(height, Buffer.from(await rpc<string>("getblock", [String(height), 0]), "hex"));
    facts.txids.forEach((txid, index) => {
      txs.push({ txid, height, index });
    });
    for (const address of facts.paid) paid.set(address, (paid.get(address) ?? 0) + 1);
  }
  return {
    name,
    network: spec!.network,
    url: serving,
    origin: origin.url,
    keys: (await store.list("v1/")).sort(),
    rangeSize: spec!.rangeSize,
    firstHeight: head.firstHeight,
    sealedTip,
    tip,
    txs,
    addresses: [...paid.keys()].sort(),
    busiest: [...paid]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([address]) => address),
  };
}

/** Until the origin serves the dev node's tip, hash and all. */
async function followed(): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    const best = await rpc<string>("getbestblockhash", []);
    const served = indexer.indexer.lastBlock();
    if (served !== undefined && displayHex(served.wireHash) === best) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the origin did not follow the dev node");
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://chain");
  const answer = async (): Promise<string | Buffer | null> => {
    if (url.pathname === "/info") return JSON.stringify(await info());
    if (url.pathname === "/reorg" && req.method === "POST") {
      await control("reorg", { depth: Number(url.searchParams.get("depth") ?? "1") });
      await hashed();
      await followed();
      return JSON.stringify(await info());
    }
    if (url.pathname.startsWith("/objects/")) {
      const bytes = await store.get(decodeURIComponent(url.pathname.slice("/objects/".length)));
      return bytes === null ? null : Buffer.from(bytes);
    }
    return null;
  };
  answer().then(
    (body) => {
      if (body === null) res.writeHead(404).end();
      else
        res
          .writeHead(200, {
            "content-type": typeof body === "string" ? "application/json" : "application/octet-stream",
          })
          .end(body);
    },
    (err: unknown) => {
      console.error(`history chain ${name}:`, err);
      res.writeHead(500, { "content-type": "text/plain" }).end(String(err));
    },
  );
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const serving = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

let stopping = false;
async function stop(): Promise<never> {
  if (!stopping) {
    stopping = true;
    server.closeAllConnections();
    server.close();
    await origin.close().catch(() => {});
    await indexer.stop().catch(() => {});
    dev.child.kill("SIGKILL");
    storeDir.remove();
    dataDir.remove();
  }
  process.exit(0);
}
process.once("SIGTERM", () => void stop());
process.once("SIGINT", () => void stop());
// The test run that started this process is gone: so is this chain.
const parent = process.ppid;
setInterval(() => {
  try {
    process.kill(parent, 0);
  } catch {
    void stop();
  }
}, 1000).unref();
process.stdout.write(`history chain ${name} serving on ${serving}\n`);
