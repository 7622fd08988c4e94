import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { displayHex } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import {
  type BlockID,
  type RawTransaction,
  RawTransactionSchema,
  type SendResponse,
  SendResponseSchema,
  type TxFilter,
} from "../../proto/index.ts";
import { checkTxid, noTransactionAt } from "../../proto/wire/transactions.ts";
import type { RawTransactionResult } from "../node/ports.ts";
import { resolveBlockId } from "./blocks.ts";
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
 * GetTransaction by txid (wire order, as TxFilter.hash says), or — with no txid — by block and
 * index (`TxFilter.block` by height or hash, `index` the transaction's position in it), which
 * lightwalletd refuses and lightedge answers, here from the node and at the edge from storage,
 * alike. Any node failure except unavailability is NOT_FOUND (LWD).
 */
export async function getTransaction(
  s: Serve,
  filter: TxFilter,
  ctx: HandlerContext,
): Promise<RawTransaction> {
  if (filter.hash.length === 0 && filter.block !== undefined)
    return transactionInBlock(s, filter.block, filter.index, ctx);
  return transactionByTxid(s, displayHex(checkTxid(filter.hash)), ctx);
}

async function transactionByTxid(s: Serve, txid: string, ctx: HandlerContext): Promise<RawTransaction> {
  const rpc = "GetTransaction";
  try {
    return rawTransaction(
      await s.callNode(ctx, "getrawtransaction", (signal) => s.node.rawTransaction(txid, signal)),
    );
  } catch (err) {
    throw notFound(err, `${rpc}: transaction ${txid} not found`);
  }
}

/** A node failure as GetTransaction reports it: NotFound unless the node is unavailable (or we failed). */
function notFound(err: unknown, message: string): unknown {
  if (err instanceof LightedgeError && (err.kind === "unavailable" || err.kind === "internal")) return err;
  return new LightedgeError("not-found", "GetTransaction", message, { cause: err });
}

/**
 * The index-th transaction of a block of the served chain: `getblock <height> 1` for its txids,
 * then the transaction by txid. The block is named as GetBlock names it (a hash wins over the
 * height; OutOfRange above the tip) except that a hash is found in either byte order, as the edge
 * finds sealed ones. An index past the block's transactions is NotFound.
 */
export async function transactionInBlock(
  s: Serve,
  block: BlockID,
  index: bigint,
  ctx: HandlerContext,
): Promise<RawTransaction> {
  const rpc = "GetTransaction";
  const height = await resolveBlockId(s, rpc, block);
  const txids = await s
    .callNode(ctx, "getblock", (signal) => s.node.blockTxids(height, signal))
    .catch((err: unknown) => {
      throw notFound(err, `${rpc}: block ${height} not found`);
    });
  if (index >= BigInt(txids.length)) throw noTransactionAt(height, index);
  return transactionByTxid(s, txids[Number(index)]!, ctx);
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
