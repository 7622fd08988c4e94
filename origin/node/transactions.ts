import { NodeRpcError } from "./errors.ts";
import { arr, hash, hexBytes, int, obj } from "./parse.ts";
import type { SendResult, TransactionGateway } from "./ports.ts";
import type { RpcCaller } from "./rpc.ts";

/** The transaction role: a transaction by txid, a block's txids, sending one, the mempool's txids. */
export function transactionMethods(rpc: RpcCaller): TransactionGateway {
  return {
    async rawTransaction(displayTxid, signal) {
      const r = obj(
        "getrawtransaction",
        await rpc.call("getrawtransaction", [displayTxid, 1], signal),
        "result",
      );
      const height =
        r.height === undefined || r.height === null
          ? undefined
          : int("getrawtransaction", r.height, "height");
      return { raw: hexBytes("getrawtransaction", r.hex, "hex"), height };
    },
    async blockTxids(height, signal) {
      const m = "getblock";
      const block = obj(m, await rpc.call(m, [String(height), 1], signal), "result");
      return arr(m, block.tx, "tx").map((t) =>
        hash(m, typeof t === "string" ? t : (t as { txid?: unknown } | null)?.txid, "tx[]"),
      );
    },
    sendRawTransaction: (raw, signal) => send(rpc, raw, signal),
    async rawMempool(signal) {
      return arr("getrawmempool", await rpc.call("getrawmempool", [], signal), "result").map((t) =>
        hash("getrawmempool", t, "txid"),
      );
    },
  };
}

async function send(rpc: RpcCaller, raw: Uint8Array, signal?: AbortSignal): Promise<SendResult> {
  try {
    const txid = await rpc.call("sendrawtransaction", [Buffer.from(raw).toString("hex")], signal);
    return { txid: hash("sendrawtransaction", txid, "result") };
  } catch (err) {
    // A node verdict on the tx is an answer (SendResponse.errorCode/errorMessage), not a failure.
    if (err instanceof NodeRpcError && err.failure === "node-error")
      return { rejected: { code: err.code ?? 0, message: err.message } };
    throw err;
  }
}
