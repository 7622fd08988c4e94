import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { toHex } from "../../proto/bytes.ts";
import { encodeFrame } from "../../proto/frame.ts";
import {
  addressDirectoryKey,
  addressRecordsKey,
  decodeAddressDirectory,
  decodeAddressRecords,
  decodeTxTable,
  entryAt,
  headHistoryLevels,
  recordsSpan,
  taddressOfKey,
  txTableKey,
  txWireId,
} from "../../proto/history/index.ts";
import {
  AddressListSchema,
  GetAddressUtxosArgSchema,
  TransparentAddressBlockFilterSchema,
  TxFilterSchema,
} from "../../proto/index.ts";
import { decodeHead, headKey } from "../../proto/range/index.ts";
import { buildChain } from "../lib/chain-fixture.ts";
import { EDGE_TIERS, seedEdgeState, startEdgeFixture } from "../lib/edge-fixture.ts";
import type { LoadRequest } from "../lib/load.ts";
import { runLoad } from "../lib/load.ts";
import { measure } from "../lib/measure.ts";
import { BENCH_ORIGIN_SECRET, startOriginFixture } from "../lib/origin-fixture.ts";
import { unaryRequest } from "../lib/rpc-requests.ts";
import { round, seededRandom } from "../lib/stats.ts";
import { scanStore } from "../lib/store-scan.ts";
import { spawnStoreServer } from "../lib/store-server.ts";
import type { Scenario, ScenarioContext } from "../scenario.ts";

/** Heavy transparent traffic (origin/devnode/transparent-traffic.ts): addresses of ~1 to ≥ 10,000 transactions. */
const BLOCKS = 12_000;
const QUICK_BLOCKS = 3_000;
const SERVICE = "/cash.z.wallet.sdk.rpc.CompactTxStreamer";
/** Closed-loop clients of the GetTransaction throughput probe (issue 20: ≥ 1,000 req/s). */
const CLIENTS = 16;
/** Address sizes the issue asks about (transactions touching the address). */
const SIZES = [1, 100, 10_000] as const;

interface Tier {
  name: string;
  baseUrl: string;
  pids: number[];
}

/** A server-streaming call over gRPC-web (frames counted, the end-of-stream status checked). */
function streamRequest(method: string, body: Uint8Array): LoadRequest {
  return {
    method: "POST",
    path: `${SERVICE}/${method}`,
    headers: { "content-type": "application/grpc-web+proto", "x-grpc-web": "1" },
    bodyBase64: Buffer.from(encodeFrame(body)).toString("base64"),
  };
}

/**
 * Node-free history (issue 20): GetTransaction and the transparent-address RPCs answered by the
 * edge from storage (Miniflare Worker-alone, and wrangler dev over local R2) beside the origin's
 * node-backed answers, in the same run, on a dev chain with heavy transparent traffic; storage per
 * object kind; and the node calls a wallet's restore of sealed history costs through each.
 */
export const scenario: Scenario = {
  name: "nodefree",
  async run(ctx) {
    const f = ctx.report.figures;
    const blocks = ctx.quick ? QUICK_BLOCKS : BLOCKS;
    const rangeSize = ctx.quick ? 100 : 1000;
    const dir = join(ctx.tmp, "nodefree");
    mkdirSync(dir, { recursive: true });
    const chain = await buildChain({
      repoRoot: ctx.repoRoot,
      tmp: ctx.tmp,
      dir,
      blocks,
      rangeSize,
      seed: "lightedge-nodefree",
      treesBackfill: false,
      devnodeArgs: ["--transparent", "heavy", "--warm-addresses"],
      log: ctx.log,
    });
    const stoppers: (() => Promise<void>)[] = [() => chain.devnode.stop()];
    try {
      const scan = scanStore(chain.storeDir, "regtest");
      const heights = scan.sealedTip - scan.firstHeight + 1;
      for (const [kind, bytes] of Object.entries(scan.historyBytes)) {
        f[`nodeFree.storage.${kind}.bytes`] = bytes;
        f[`nodeFree.storage.${kind}.bytesPerBlock`] = round(bytes / heights, 1);
      }
      f["nodeFree.index.blocksPerSec"] = round(blocks / chain.stats.seconds, 0);
      f["nodeFree.index.peakRssMiB"] = round(chain.stats.peakRssMiB, 0);
      const picks = pick(chain.storeDir, ctx);
      const origin = await startOriginFixture({
        repoRoot: ctx.repoRoot,
        devnodeUrl: chain.devnode.url,
        storeDir: chain.storeDir,
        dataDir: chain.dataDir,
        network: "regtest",
        rangeSize,
      });
      stoppers.push(() => origin.stop());
      const tiers: Tier[] = [{ name: "origin", baseUrl: origin.url, pids: [origin.pid, chain.devnode.pid] }];
      const store = await spawnStoreServer(chain.storeDir);
      stoppers.push(() => store.stop());
      const runtimes = ctx.settings.edgeRuntimes;
      const persist = runtimes.includes("wrangler")
        ? await seedEdgeState({ repoRoot: ctx.repoRoot, tmp: dir, scan, log: ctx.log })
        : join(dir, "no-r2-state");
      for (const runtime of runtimes) {
        const e = await startEdgeFixture({
          runtime,
          persist,
          networks: "regtest",
          originUrl: origin.url,
          originSecret: BENCH_ORIGIN_SECRET,
          storePublicUrl: runtime === "miniflare" ? store.url : undefined,
          log: ctx.log,
        });
        stoppers.push(() => e.stop());
        // Worker-alone under Miniflare: the edge's own process tree; wrangler dev: with its R2 simulator.
        tiers.push({ name: EDGE_TIERS[runtime], baseUrl: e.url, pids: [e.pid] });
      }
      for (const tier of tiers) await measureTier(ctx, tier, picks, scan.sealedTip);
      for (const tier of tiers) await restoreNodeCalls(ctx, tier, chain.devnode.url, picks, scan.sealedTip);
    } finally {
      for (const stop of stoppers.reverse()) await stop().catch(() => {});
    }
  },
};

interface Picks {
  txids: Uint8Array[];
  /** One address per size class: its t-address and the transactions touching it. */
  addresses: { size: number; address: string; transactions: number }[];
}

/** One address's requests: its balance, its UTXOs, its transactions from height 1 to the sealed tip. */
function addressRequests(
  address: string,
  sealedTip: number,
): { balance: LoadRequest; utxos: LoadRequest; transactions: LoadRequest } {
  return {
    balance: unaryRequest(
      "GetTaddressBalance",
      toBinary(AddressListSchema, create(AddressListSchema, { addresses: [address] })),
    ),
    utxos: unaryRequest(
      "GetAddressUtxos",
      toBinary(GetAddressUtxosArgSchema, create(GetAddressUtxosArgSchema, { addresses: [address] })),
    ),
    transactions: streamRequest(
      "GetTaddressTransactions",
      toBinary(
        TransparentAddressBlockFilterSchema,
        create(TransparentAddressBlockFilterSchema, {
          address,
          range: { start: { height: 1n }, end: { height: BigInt(sealedTip) } },
        }),
      ),
    ),
  };
}

/** `requests` in a closed loop at CLIENTS clients for min(5, --seconds) s: req/s, errors, server CPU. */
async function closedLoop(
  ctx: ScenarioContext,
  tier: Tier,
  requests: LoadRequest[],
): Promise<{ rps: number; errors: number; serverCpuMsPerReq: number }> {
  const seconds = Math.min(5, ctx.settings.levelSec);
  const loop = await measure(
    { baseUrl: tier.baseUrl, requests, clients: CLIENTS, warmup: 2, durationMs: seconds * 1000 },
    tier.pids,
  );
  return {
    rps: round(loop.requests / loop.elapsedSec, 0),
    errors: loop.errors,
    serverCpuMsPerReq: round((loop.serverCpuSec * 1000) / Math.max(loop.requests, 1)),
  };
}

/**
 * Sealed txids (seeded random, from the store's transaction tables) and, for each size the issue
 * names, the address whose sealed history is nearest to it (from the address index's directories
 * and records): read off the store's files, no node and no server involved.
 */
function pick(storeDir: string, ctx: ScenarioContext): Picks {
  const read = (key: string) => readFileSync(join(storeDir, key));
  const head = decodeHead(read(headKey("regtest")));
  const random = seededRandom(20);
  const txids: Uint8Array[] = [];
  const first = head.firstHeight / head.rangeSize;
  // 200: the load generator takes its requests on its command line (E2BIG beyond a few hundred).
  for (let i = 0; i < 200; i++) {
    const index = first + Math.floor(random() * head.rangeCount);
    const table = decodeTxTable(read(txTableKey("regtest", head.rangeSize, index)), {
      network: "regtest",
      rangeSize: head.rangeSize,
      index,
    });
    txids.push(txWireId(table, Math.floor(random() * table.txCount)));
  }
  // Transactions per address over the levels: distinct (height, position) among its records.
  const txs = new Map<string, Set<string>>();
  for (const level of headHistoryLevels(head) ?? []) {
    for (let shard = 0; shard < 2 ** level.taddr.bits; shard++) {
      const directory = decodeAddressDirectory(
        read(addressDirectoryKey(level.taddr, shard)),
        level.taddr,
        shard,
      );
      const records = read(addressRecordsKey(level.taddr, shard));
      for (let i = 0; i < directory.count; i++) {
        const entry = entryAt(directory, i);
        const span = recordsSpan(entry);
        const own = decodeAddressRecords(
          records.subarray(span.offset, span.offset + span.length),
          level.taddr,
          entry,
        );
        const key = toHex(entry.addressKey);
        const set = txs.get(key) ?? new Set<string>();
        for (const r of own) set.add(`${r.height}/${r.txIndex}`);
        txs.set(key, set);
      }
    }
  }
  const addresses = SIZES.map((size) => {
    let best: [string, number] = ["", Number.POSITIVE_INFINITY];
    for (const [key, set] of txs)
      if (Math.abs(Math.log(set.size / size)) < Math.abs(Math.log(best[1] / size))) best = [key, set.size];
    return {
      size,
      address: taddressOfKey(Buffer.from(best[0], "hex"), "regtest"),
      transactions: best[1],
    };
  });
  for (const a of addresses) ctx.log(`nodefree: address for ${a.size}: ${a.address} (${a.transactions} txs)`);
  return { txids, addresses };
}

async function measureTier(ctx: ScenarioContext, tier: Tier, picks: Picks, sealedTip: number): Promise<void> {
  const f = ctx.report.figures;
  const prefix = `nodeFree.${tier.name}`;
  const getTx = picks.txids.map((hash) =>
    unaryRequest("GetTransaction", toBinary(TxFilterSchema, create(TxFilterSchema, { hash }))),
  );
  const seq = await runLoad({
    baseUrl: tier.baseUrl,
    requests: getTx,
    clients: 1,
    warmup: 20,
    requestsPerClient: ctx.quick ? 200 : 1000,
  });
  f[`${prefix}.getTransaction.p50Ms`] = seq.p50Ms;
  f[`${prefix}.getTransaction.p99Ms`] = seq.p99Ms;
  f[`${prefix}.getTransaction.errors`] = seq.errors;
  const loop = await closedLoop(ctx, tier, getTx);
  f[`${prefix}.getTransaction.rps`] = loop.rps;
  f[`${prefix}.getTransaction.rpsErrors`] = loop.errors;
  f[`${prefix}.getTransaction.serverCpuMsPerReq`] = loop.serverCpuMsPerReq;
  ctx.report.rows.push({
    scenario: `nodefree ${tier.name}`,
    metric: "GetTransaction p50 ms / req/s ×16 (targets ≤ 5, ≥ 1,000)",
    value: seq.p50Ms,
    note: `p99 ${seq.p99Ms} ms; ${loop.rps} req/s at ${CLIENTS} clients; ${seq.errors + loop.errors} errors`,
  });
  if (tier.name !== "origin") {
    // The runtime's own ceiling in the same run: GET /healthz (no storage, no router) at the same
    // client count, so GetTransaction's req/s reads against what this machine lets a Worker do.
    const floor = await closedLoop(ctx, tier, [{ method: "GET", path: "/healthz", headers: {} }]);
    f[`${prefix}.healthz.rps`] = floor.rps;
    f[`${prefix}.healthz.serverCpuMsPerReq`] = floor.serverCpuMsPerReq;
    ctx.report.rows.push({
      scenario: `nodefree ${tier.name}`,
      metric: "GET /healthz req/s ×16 (the runtime's floor, same run)",
      value: floor.rps,
      note: `server CPU ${floor.serverCpuMsPerReq} ms/req`,
    });
  }
  for (const a of picks.addresses) {
    const asked = addressRequests(a.address, sealedTip);
    const calls: [string, LoadRequest, number][] = [
      ["getTaddressBalance", asked.balance, 50],
      ["getAddressUtxos", asked.utxos, 50],
      ["getTaddressTransactions", asked.transactions, a.size >= 10_000 ? 5 : 30],
    ];
    for (const [rpc, request, n] of calls) {
      const r = await runLoad({
        baseUrl: tier.baseUrl,
        requests: [request],
        clients: 1,
        warmup: 2,
        requestsPerClient: ctx.quick ? Math.min(n, 5) : n,
        countFrames: rpc === "getTaddressTransactions",
      });
      const key = `${prefix}.${rpc}.tx${a.size}`;
      f[`${key}.p50Ms`] = r.p50Ms;
      f[`${key}.errors`] = r.errors;
      if (r.errors > 0) ctx.report.notes.push(`${key}: ${r.errors} errors, e.g. ${r.errorSamples[0]}`);
      ctx.log(`${key}: p50 ${r.p50Ms} ms (${a.transactions} txs), ${r.errors} errors`);
    }
    ctx.report.rows.push({
      scenario: `nodefree ${tier.name}`,
      metric: `address of ${a.transactions} txs: balance / utxos / transactions p50 ms`,
      value: f[`${prefix}.getTaddressBalance.tx${a.size}.p50Ms`]!,
      note: `${f[`${prefix}.getAddressUtxos.tx${a.size}.p50Ms`]} / ${f[`${prefix}.getTaddressTransactions.tx${a.size}.p50Ms`]} ms`,
    });
  }
}

/** JSON-RPC calls the dev node has answered, per method (its control API). */
async function nodeCalls(devnodeUrl: string): Promise<Record<string, number>> {
  const res = await fetch(new URL("/control/state", devnodeUrl));
  return ((await res.json()) as { calls: Record<string, number> }).calls;
}

/** The node methods a wallet restoring sealed history can cause (transactions, addresses). */
const HISTORY_METHODS = ["getrawtransaction", "getaddresstxids", "getaddressbalance", "getaddressutxos"];

/**
 * A wallet's restore of sealed history through the tier: for each picked address its transactions
 * (to the sealed tip) and UTXOs, and 100 of the picked transactions. Counts the node calls it
 * caused (the methods only these RPCs use; the origin's tip polling is not counted).
 */
async function restoreNodeCalls(
  ctx: ScenarioContext,
  tier: Tier,
  devnodeUrl: string,
  picks: Picks,
  sealedTip: number,
): Promise<void> {
  const before = await nodeCalls(devnodeUrl);
  const requests: LoadRequest[] = [];
  for (const a of picks.addresses) {
    const asked = addressRequests(a.address, sealedTip);
    requests.push(asked.transactions, asked.utxos);
  }
  for (const hash of picks.txids.slice(0, 100))
    requests.push(unaryRequest("GetTransaction", toBinary(TxFilterSchema, create(TxFilterSchema, { hash }))));
  const r = await runLoad({
    baseUrl: tier.baseUrl,
    requests,
    clients: 1,
    requestsPerClient: requests.length,
  });
  const after = await nodeCalls(devnodeUrl);
  const calls = HISTORY_METHODS.reduce((n, m) => n + (after[m] ?? 0) - (before[m] ?? 0), 0);
  const key = `nodeFree.${tier.name}.nodeCallsPerRestore`;
  ctx.report.figures[key] = calls;
  ctx.report.rows.push({
    scenario: `nodefree ${tier.name}`,
    metric: "node calls per restore of sealed history (target → 0 at the edge)",
    value: calls,
    note: `${requests.length} requests (${picks.addresses.length} addresses, 100 transactions), ${r.errors} errors`,
  });
  ctx.log(`${key}: ${calls} (${r.errors} errors)`);
}
