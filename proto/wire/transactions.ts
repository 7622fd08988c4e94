import { LightedgeError } from "../errors.ts";

/**
 * GetTransaction's request checks and answers that the origin (node-backed) and the edge (from
 * storage) must word alike: a client sees the same status and message from either.
 */

const RPC = "GetTransaction";

/** TxFilter.hash, when no block is named: a txid of 32 bytes (wire order). */
export function checkTxid(hash: Uint8Array): Uint8Array {
  if (hash.length !== 32) throw new LightedgeError("bad-request", RPC, `${RPC}: a txid has 32 bytes`);
  return hash;
}

/** An index past the block's transactions (by block and index): NotFound. */
export function noTransactionAt(height: number, index: bigint): LightedgeError {
  return new LightedgeError("not-found", RPC, `${RPC}: block ${height} has no transaction ${index}`);
}
