import { displayHex, leBytesToBigint } from "../../proto/bytes.ts";
import { computeTxid, parseTransaction } from "../chain/index.ts";
import type { NodeState } from "./node-state.ts";
import { JUBJUB_BASE, PALLAS_P } from "./points.ts";
import { RpcFault } from "./rpc-error.ts";
import { txNotValidAt } from "./upgrades.ts";

/**
 * Admits a raw transaction into the dev node's mempool (sendrawtransaction and
 * POST /control/mempool {"hex":[…]}): it must parse (−22 "TX decode failed", as zcashd/zebrad) and
 * be valid by version and consensus branch id in the next block (−26, zebrad's "rejected" code),
 * so a mined block follows its height's rules. Proofs and signatures are not verified. A synthetic
 * chain activates every upgrade at height 1, so there a v5 transaction may carry the branch id of
 * any upgrade from NU5 on (a wallet configured for a local network may target any of them); a
 * corpus chain wants exactly the next height's.
 */
export function admitTransaction(state: NodeState, raw: Uint8Array): string {
  let tx: ReturnType<typeof parseTransaction>;
  try {
    tx = parseTransaction(raw, { strictV6: false });
  } catch {
    throw new RpcFault(-22, "TX decode failed");
  }
  // Consensus: cmu and cmx are canonical field elements (protocol spec §4.5 and §4.6); the tree
  // worker could not hash anything else.
  const canonical = (cm: Uint8Array, p: bigint) => leBytesToBigint(cm) < p;
  if (
    !tx.sapling.outputs.every((o) => canonical(o.cmu, JUBJUB_BASE)) ||
    ![...(tx.orchard?.actions ?? []), ...(tx.ironwood?.actions ?? [])].every((a) =>
      canonical(a.cmx, PALLAS_P),
    )
  )
    throw new RpcFault(-26, "transaction rejected: a note commitment is not a canonical field element");
  const next = state.chain.tip() + 1;
  const why = txNotValidAt(state.chain.eraAt(next), tx, state.chain.synthetic);
  if (why !== undefined) throw new RpcFault(-26, `transaction rejected for block ${next}: ${why}`);
  const txid = displayHex(computeTxid(raw, { strictV6: false }));
  if (state.mempool.has(txid)) throw new RpcFault(-26, "txn-already-in-mempool");
  if (inChain(state, txid)) throw new RpcFault(-27, "transaction already in block chain");
  state.mempool.set(txid, raw);
  return txid;
}

/**
 * Whether a mined block up to the tip holds `txid`: by the heights of recently served blocks (a
 * reorg may have replaced that block since), else by what the address index has scanned (never a
 * scan here: a sendrawtransaction does not wait for one).
 */
function inChain(state: NodeState, txid: string): boolean {
  const recent = state.txHeights.get(txid);
  if (
    recent !== undefined &&
    recent <= state.tip() &&
    state.blocks.get(state.chain, recent).txids.includes(txid)
  )
    return true;
  const at = state.addresses.scannedLocation(txid);
  return at !== undefined && at.height <= state.chain.tip();
}
