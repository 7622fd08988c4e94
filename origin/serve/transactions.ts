import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { displayHex } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import {
  type RawTransaction,
  RawTransactionSchema,
  type SendResponse,
  SendResponseSchema,
  type TxFilter,
} from "../../proto/index.ts";
import type { RawTransactionResult } from "../node/ports.ts";
import type { Serve } from "./context.ts";

/** SendTransaction bodies above this are refused (lightwalletd: 2,000,000 bytes, the block size). */
export const MAX_SEND_BYTES = 2_000_000;

/** RawTransaction.height for a transaction mined on a fork that is not the main chain. */
export const OFF_MAIN_CHAIN_HEIGHT = 0xffff_ffff_ffff_ffffn;

/** Node height → RawTransaction.height: absent = mempool (0), −1 = off the main chain (2^64−1). */
export function rawTransaction(result: RawTransactionResult): RawTransaction {
  const height =
    result.height === undefined ? 0n : result.height < 0 ? OFF_MAIN_CHAIN_HEIGHT : BigInt(result.height);
  return create(RawTransactionSchema, { data: result.raw, height });
}

/**
 * GetTransaction by txid (wire order, as TxFilter.hash says). The block+index form is not
 * offered (lightwalletd neither). Any node failure except unavailability is NOT_FOUND (LWD).
 */
export async function getTransaction(
  s: Serve,
  filter: TxFilter,
  ctx: HandlerContext,
): Promise<RawTransaction> {
  const rpc = "GetTransaction";
  if (filter.hash.length === 0 && filter.block !== undefined) {
    throw new LightedgeError(
      "bad-request",
      rpc,
      `${rpc}: lookup by block and index is not supported, give the txid`,
    );
  }
  if (filter.hash.length !== 32) throw new LightedgeError("bad-request", rpc, `${rpc}: a txid has 32 bytes`);
  const txid = displayHex(filter.hash);
  try {
    return rawTransaction(
      await s.callNode(ctx, "getrawtransaction", (signal) => s.node.rawTransaction(txid, signal)),
    );
  } catch (err) {
    if (err instanceof LightedgeError && (err.kind === "unavailable" || err.kind === "internal")) throw err;
    throw new LightedgeError("not-found", rpc, `${rpc}: transaction ${txid} not found`, { cause: err });
  }
}

/**
 * SendTransaction: the node's rejection comes back inside SendResponse (errorCode, errorMessage)
 * rather than as a status, as lightwalletd does; on success errorMessage carries the txid.
 */
export async function sendTransaction(
  s: Serve,
  tx: RawTransaction,
  ctx: HandlerContext,
  onSent: () => void,
): Promise<SendResponse> {
  const rpc = "SendTransaction";
  if (tx.data.length === 0) throw new LightedgeError("bad-request", rpc, `${rpc}: empty transaction`);
  if (tx.data.length > MAX_SEND_BYTES) {
    throw new LightedgeError("bad-request", rpc, `${rpc}: transaction larger than ${MAX_SEND_BYTES} bytes`);
  }
  const result = await s.callNode(ctx, "sendrawtransaction", (signal) =>
    s.node.sendRawTransaction(tx.data, signal),
  );
  if ("rejected" in result) {
    return create(SendResponseSchema, {
      errorCode: result.rejected.code,
      errorMessage: result.rejected.message,
    });
  }
  onSent();
  return create(SendResponseSchema, { errorCode: 0, errorMessage: result.txid });
}
