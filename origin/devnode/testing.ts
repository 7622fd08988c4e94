import { createHash } from "node:crypto";
import { displayHex } from "../../proto/bytes.ts";
import { parseBlock } from "../chain/index.ts";
import { scriptAddress } from "./address.ts";
import type { Utxo } from "./address-index.ts";
import type { DevChain } from "./types.ts";

/**
 * Test support: zebrad's address semantics recomputed by brute force from the chain's served
 * bytes (`chain.block(h).raw`, parsed with origin/chain's parseBlock — not the index's
 * `indexedTxs`), with plain maps and strings, so the index is checked against an independent
 * implementation.
 */
export interface AddressReference {
  /** Every address paid by an output, in order of first appearance. */
  addresses: string[];
  /** Every output paying an address ("txid:n" → it), spent or not, in chain order. */
  outputs: Map<string, Utxo>;
  txids(addresses: string[], start: number, end: number): string[];
  utxos(addresses: string[]): Utxo[];
  balance(addresses: string[]): { balance: number; received: number };
  /** Spends of outputs paying an address, in chain order (outpoint "txid:n" → spending txid). */
  spends: Map<string, string>;
  /** Inputs whose outpoint is an earlier output of the chain that was already spent. */
  doubleSpends: number;
  /** Inputs spending an earlier output of the chain (any script). */
  realSpends: number;
  /**
   * Inputs of transparent-only, non-coinbase transactions (heavy traffic, the tests' own) that spend
   * no earlier unspent output of the chain.
   */
  danglingInputs: number;
  /** Every transaction of the chain: display txid → height. */
  heights: Map<string, number>;
}

export function addressReference(chain: DevChain, tip = chain.tip()): AddressReference {
  const outputs = new Map<string, Utxo>();
  const everyOutput = new Set<string>();
  const spends = new Map<string, string>();
  const txs: { txid: string; height: number; addresses: Set<string> }[] = [];
  const heights = new Map<string, number>();
  const addresses = new Set<string>();
  const spentAny = new Set<string>();
  let doubleSpends = 0;
  let realSpends = 0;
  let danglingInputs = 0;
  for (let h = chain.base; h <= tip; h++) {
    for (const [position, tx] of parseBlock(chain.block(h).raw, { strictV6: false }).txs.entries()) {
      const txid = displayHex(tx.wireTxid);
      heights.set(txid, h);
      const touched = new Set<string>();
      const transparentOnly =
        position > 0 &&
        tx.sapling.spends.length + tx.sapling.outputs.length === 0 &&
        !tx.orchard?.actions.length &&
        !tx.ironwood?.actions.length;
      if (h !== 0) {
        for (const i of tx.vin) {
          const key = `${displayHex(i.wirePrevoutTxid)}:${i.prevoutIndex}`;
          const real = everyOutput.has(key) && !spentAny.has(key);
          if (everyOutput.has(key) && spentAny.has(key)) doubleSpends++;
          if (real) realSpends++;
          else if (transparentOnly) danglingInputs++;
          spentAny.add(key);
          const o = outputs.get(key);
          if (o && !spends.has(key)) spends.set(key, txid);
          if (o) touched.add(o.address);
        }
        tx.vout.forEach((out, n) => {
          const key = `${txid}:${n}`;
          everyOutput.add(key);
          const address = scriptAddress(out.scriptPubKey, chain.network);
          if (!address) return;
          addresses.add(address);
          touched.add(address);
          outputs.set(key, {
            address,
            txid,
            outputIndex: n,
            script: Buffer.from(out.scriptPubKey).toString("hex"),
            satoshis: out.valueHigh * 2 ** 32 + out.valueLow,
            height: h,
          });
        });
      }
      txs.push({ txid, height: h, addresses: touched });
    }
  }
  const mine = (list: string[]) => [...outputs.entries()].filter(([, o]) => list.includes(o.address));
  return {
    addresses: [...addresses],
    outputs,
    txids: (list, start, end) =>
      txs
        .filter((t) => t.height >= start && t.height <= end && list.some((a) => t.addresses.has(a)))
        .map((t) => t.txid),
    utxos: (list) => mine(list).flatMap(([key, o]) => (spends.has(key) ? [] : [o])),
    balance(list) {
      let balance = 0;
      let received = 0;
      for (const [key, o] of mine(list)) {
        received += o.satoshis;
        if (!spends.has(key)) balance += o.satoshis;
      }
      return { balance, received };
    },
    spends,
    doubleSpends,
    realSpends,
    danglingInputs,
    heights,
  };
}

/** SHA-256 of blocks from..to's served bytes (regression guards on generated chains). */
export function blocksDigest(chain: DevChain, from = chain.base, to = chain.tip()): string {
  const h = createHash("sha256");
  for (let i = from; i <= to; i++) h.update(chain.block(i).raw);
  return h.digest("hex");
}
