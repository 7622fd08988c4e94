import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { CompactTxStreamer } from "../../proto/index.ts";
import { getBlockRange } from "./block-range.ts";
import { getBlock, getLatestBlock } from "./blocks.ts";
import { createServe, type OriginServiceOptions } from "./context.ts";
import { createLightdInfo, createPing } from "./lightd-info.ts";
import { getMempoolStream, getMempoolTx } from "./mempool.ts";
import { mempoolCompactTx } from "./mempool-compact.ts";
import { createMempool } from "./mempool-snapshot.ts";
import { guardStream, guardUnary } from "./rpc-errors.ts";
import { getSubtreeRoots } from "./subtrees.ts";
import { getTaddressBalance, getTaddressBalanceStream, getTaddressTransactions } from "./taddress.ts";
import { getTransaction, sendTransaction } from "./transactions.ts";
import { createTreeStates } from "./tree-states.ts";
import { addressUtxos } from "./utxos.ts";

type Impl = ServiceImpl<typeof CompactTxStreamer>;

/**
 * The one CompactTxStreamer implementation, served over gRPC, gRPC-web and Connect alike. Each
 * handler validates, calls a port, and maps every error through `toConnectError` (rpc-errors.ts).
 */
export function createOriginService(options: OriginServiceOptions): Impl {
  const s = createServe(options);
  const mempool = createMempool(s);
  const trees = createTreeStates(s);
  const lightdInfo = createLightdInfo(s);
  const ping = createPing(s);
  const compactTx = options.compactTx ?? mempoolCompactTx;
  const guard = { pushbackMs: s.pushbackMs, log: options.log, observer: options.observer };
  const u = <I, O>(rpc: string, h: (req: I, ctx: HandlerContext) => Promise<O>) => guardUnary(rpc, guard, h);
  const st = <I, O>(rpc: string, h: (req: I, ctx: HandlerContext) => AsyncIterable<O>) =>
    guardStream(rpc, guard, h);
  return {
    getLatestBlock: u("GetLatestBlock", async () => getLatestBlock(s)),
    getBlock: u("GetBlock", (id, ctx) => getBlock(s, "GetBlock", id, ctx)),
    getBlockNullifiers: u("GetBlockNullifiers", (id, ctx) => getBlock(s, "GetBlockNullifiers", id, ctx)),
    getBlockRange: st("GetBlockRange", (r, ctx) => getBlockRange(s, "GetBlockRange", r, ctx)),
    getBlockRangeNullifiers: st("GetBlockRangeNullifiers", (r, ctx) =>
      getBlockRange(s, "GetBlockRangeNullifiers", r, ctx),
    ),
    getTransaction: u("GetTransaction", (f, ctx) => getTransaction(s, f, ctx)),
    sendTransaction: u("SendTransaction", (tx, ctx) => sendTransaction(s, tx, ctx, mempool.invalidate)),
    getTaddressTxids: st("GetTaddressTxids", (f, ctx) =>
      getTaddressTransactions(s, "GetTaddressTxids", f, ctx),
    ),
    getTaddressTransactions: st("GetTaddressTransactions", (f, ctx) =>
      getTaddressTransactions(s, "GetTaddressTransactions", f, ctx),
    ),
    getTaddressBalance: u("GetTaddressBalance", (l, ctx) =>
      getTaddressBalance(s, "GetTaddressBalance", l.addresses, ctx),
    ),
    getTaddressBalanceStream: u("GetTaddressBalanceStream", (reqs, ctx) =>
      getTaddressBalanceStream(s, reqs, ctx),
    ),
    getMempoolTx: st("GetMempoolTx", (r, ctx) => getMempoolTx(mempool, compactTx, r, ctx)),
    getMempoolStream: st("GetMempoolStream", (_r, ctx) => getMempoolStream(s, mempool, ctx)),
    getTreeState: u("GetTreeState", (id, ctx) => trees.getTreeState(id, ctx)),
    getLatestTreeState: u("GetLatestTreeState", (_r, ctx) => trees.getLatestTreeState(ctx)),
    getSubtreeRoots: st("GetSubtreeRoots", (a, ctx) => getSubtreeRoots(s, a, ctx)),
    getAddressUtxos: u("GetAddressUtxos", async (a, ctx) => ({
      addressUtxos: await addressUtxos(s, "GetAddressUtxos", a, ctx),
    })),
    getAddressUtxosStream: st("GetAddressUtxosStream", async function* (a, ctx) {
      yield* await addressUtxos(s, "GetAddressUtxosStream", a, ctx);
    }),
    getLightdInfo: u("GetLightdInfo", (_r, ctx) => lightdInfo(ctx)),
    ping: u("Ping", (d) => ping(d)),
  };
}
