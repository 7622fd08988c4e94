import type { ServiceImpl } from "@connectrpc/connect";
import type { CompactTxStreamer } from "../../proto/index.ts";
import { getBlockRange } from "./block-range.ts";
import { getBlock, getLatestBlock } from "./blocks.ts";
import { createServe, type OriginServiceOptions } from "./context.ts";
import { createLightdInfo, createPing } from "./lightd-info.ts";
import { getMempoolStream, getMempoolTx } from "./mempool.ts";
import { mempoolCompactTx } from "./mempool-compact.ts";
import { createMempool } from "./mempool-snapshot.ts";
import { getSubtreeRoots } from "./subtrees.ts";
import { getTaddressBalance, getTaddressBalanceStream, getTaddressTransactions } from "./taddress.ts";
import { getTransaction, sendTransaction } from "./transactions.ts";
import { createTreeStates } from "./tree-states.ts";
import { addressUtxos } from "./utxos.ts";

type Impl = ServiceImpl<typeof CompactTxStreamer>;

/**
 * The one CompactTxStreamer implementation, served over gRPC, gRPC-web and Connect alike. Each
 * handler validates and calls a port; the router's one interceptor maps every error
 * (proto/wire/error-interceptor.ts, installed in handler.ts).
 */
export function createOriginService(options: OriginServiceOptions): Impl {
  const s = createServe(options);
  const mempool = createMempool(s);
  const trees = createTreeStates(s);
  const lightdInfo = createLightdInfo(s);
  const ping = createPing(s);
  const compactTx = options.compactTx ?? mempoolCompactTx;
  return {
    getLatestBlock: async () => getLatestBlock(s),
    getBlock: (id, ctx) => getBlock(s, "GetBlock", id, ctx),
    getBlockNullifiers: (id, ctx) => getBlock(s, "GetBlockNullifiers", id, ctx),
    getBlockRange: (r, ctx) => getBlockRange(s, "GetBlockRange", r, ctx),
    getBlockRangeNullifiers: (r, ctx) => getBlockRange(s, "GetBlockRangeNullifiers", r, ctx),
    getTransaction: (f, ctx) => getTransaction(s, f, ctx),
    sendTransaction: (tx, ctx) => sendTransaction(s, tx, ctx, mempool.invalidate),
    getTaddressTxids: (f, ctx) => getTaddressTransactions(s, "GetTaddressTxids", f, ctx),
    getTaddressTransactions: (f, ctx) => getTaddressTransactions(s, "GetTaddressTransactions", f, ctx),
    getTaddressBalance: (l, ctx) => getTaddressBalance(s, "GetTaddressBalance", l.addresses, ctx),
    getTaddressBalanceStream: (reqs, ctx) => getTaddressBalanceStream(s, reqs, ctx),
    getMempoolTx: (r, ctx) => getMempoolTx(mempool, compactTx, r, ctx),
    getMempoolStream: (_r, ctx) => getMempoolStream(s, mempool, ctx),
    getTreeState: (id, ctx) => trees.getTreeState(id, ctx),
    getLatestTreeState: (_r, ctx) => trees.getLatestTreeState(ctx),
    getSubtreeRoots: (a, ctx) => getSubtreeRoots(s, a, ctx),
    getAddressUtxos: async (a, ctx) => ({
      addressUtxos: await addressUtxos(s, "GetAddressUtxos", a, ctx),
    }),
    getAddressUtxosStream: async function* (a, ctx) {
      yield* await addressUtxos(s, "GetAddressUtxosStream", a, ctx);
    },
    getLightdInfo: (_r, ctx) => lightdInfo(ctx),
    ping: (d) => ping(d),
  };
}
