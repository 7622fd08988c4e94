import type { CompactTx } from "../../proto/index.ts";
import { parseTransaction, toCompactTx } from "../chain/index.ts";

/**
 * A mempool transaction as a CompactTx with every component. A mempool tx is never a coinbase,
 * so its vin is kept (toCompactTx drops vin only at block index 0, the coinbase position); the
 * index is 0 since the tx has no block position yet.
 */
export function mempoolCompactTx(raw: Uint8Array): CompactTx {
  const tx = parseTransaction(raw);
  const compact = toCompactTx({ ...tx, index: 1 });
  compact.index = 0n;
  return compact;
}
