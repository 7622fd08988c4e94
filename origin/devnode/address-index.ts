import { displayHex } from "../../proto/bytes.ts";
import { parseBlock } from "../chain/index.ts";
import { scriptAddress } from "./address.ts";
import { blockRandom } from "./prng.ts";
import { COINBASE_VALUE, coinbaseShape, scripts } from "./synthetic-block.ts";
import { buildTxWithId } from "./tx-builder.ts";
import type { DevBlock, DevChain } from "./types.ts";

export interface Utxo {
  address: string;
  txid: string;
  outputIndex: number;
  script: string;
  satoshis: number;
  height: number;
}

/** Address data for getaddresstxids / getaddressbalance / getaddressutxos, up to `tip`. */
export interface DevAddressIndex {
  txids(addresses: string[], start: number, end: number): string[];
  balance(addresses: string[], tip: number): { balance: number; received: number };
  utxos(addresses: string[], tip: number): Utxo[];
}

/**
 * Synthetic chains: only coinbases pay the known addresses (height % 3 picks which), and they are
 * never spent, so every answer is computed from heights without scanning blocks.
 */
export function syntheticAddressIndex(chain: DevChain): DevAddressIndex {
  const addresses = scripts.map((s) => scriptAddress(s, chain.network)!);
  const heightsOf = (list: string[], start: number, end: number) => {
    const ks = addresses.map((a, k) => (list.includes(a) ? k : -1)).filter((k) => k >= 0);
    const out: number[] = [];
    for (let h = Math.max(start, chain.base, 1); h <= end; h++) if (ks.includes(h % 3)) out.push(h);
    return out;
  };
  const coinbaseTxid = (h: number) =>
    displayHex(buildTxWithId(coinbaseShape(h), blockRandom("", h, 0)).wireTxid);
  return {
    txids: (list, start, end) => heightsOf(list, start, end).map(coinbaseTxid),
    balance(list, tip) {
      const n = heightsOf(list, 0, tip).length * COINBASE_VALUE;
      return { balance: n, received: n };
    },
    utxos: (list, tip) =>
      heightsOf(list, 0, tip).map((h) => ({
        address: addresses[h % 3]!,
        txid: coinbaseTxid(h),
        outputIndex: 0,
        script: Buffer.from(scripts[h % 3]!).toString("hex"),
        satoshis: COINBASE_VALUE,
        height: h,
      })),
  };
}

/** Corpus runs: a scan of the real blocks' transparent outputs and spends (a few hundred blocks). */
export function scannedAddressIndex(blocks: DevBlock[], network: DevChain["network"]): DevAddressIndex {
  const outputs: Utxo[] = [];
  const spent = new Set<string>();
  for (const b of blocks) {
    for (const tx of parseBlock(b.raw, { strictV6: false }).txs) {
      const txid = displayHex(tx.wireTxid);
      for (const i of tx.vin) spent.add(`${displayHex(i.wirePrevoutTxid)}:${i.prevoutIndex}`);
      tx.vout.forEach((o, n) => {
        const address = scriptAddress(o.scriptPubKey, network);
        if (!address) return;
        const satoshis = o.valueHigh * 2 ** 32 + o.valueLow;
        outputs.push({
          address,
          txid,
          outputIndex: n,
          script: Buffer.from(o.scriptPubKey).toString("hex"),
          satoshis,
          height: b.height,
        });
      });
    }
  }
  const mine = (list: string[], tip: number) =>
    outputs.filter((o) => list.includes(o.address) && o.height <= tip);
  return {
    txids(list, start, end) {
      const seen = new Set<string>();
      return outputs
        .filter((o) => list.includes(o.address) && o.height >= start && o.height <= end)
        .map((o) => o.txid)
        .filter((t) => !seen.has(t) && seen.add(t));
    },
    balance(list, tip) {
      const all = mine(list, tip);
      const received = all.reduce((s, o) => s + o.satoshis, 0);
      const unspent = all
        .filter((o) => !spent.has(`${o.txid}:${o.outputIndex}`))
        .reduce((s, o) => s + o.satoshis, 0);
      return { balance: unspent, received };
    },
    utxos: (list, tip) => mine(list, tip).filter((o) => !spent.has(`${o.txid}:${o.outputIndex}`)),
  };
}
