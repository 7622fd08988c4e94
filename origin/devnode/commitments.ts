import { type ParsedTx, parseTransaction } from "../chain/index.ts";

/** Note commitments a block appends to each tree, in block order (32-byte LE field elements). */
export interface Commitments {
  sapling: Uint8Array[];
  orchard: Uint8Array[];
  ironwood: Uint8Array[];
}

export const POOLS = ["sapling", "orchard", "ironwood"] as const;
export type Pool = (typeof POOLS)[number];

export const noCommitments = (): Commitments => ({ sapling: [], orchard: [], ironwood: [] });

/** Appends a parsed transaction's commitments (copies: a block's buffer is not kept alive). */
export function addTxCommitments(into: Commitments, tx: ParsedTx): void {
  for (const o of tx.sapling.outputs) into.sapling.push(o.cmu.slice());
  for (const a of tx.orchard?.actions ?? []) into.orchard.push(a.cmx.slice());
  for (const a of tx.ironwood?.actions ?? []) into.ironwood.push(a.cmx.slice());
}

/** Commitments of raw transactions, in order. */
export function txsCommitments(
  raws: readonly Uint8Array[],
  into: Commitments = noCommitments(),
): Commitments {
  for (const raw of raws) addTxCommitments(into, parseTransaction(raw, { strictV6: false }));
  return into;
}
