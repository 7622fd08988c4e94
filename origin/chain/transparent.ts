import type { Reader } from "./reader.ts";
import type { TxIn, TxOut } from "./types.ts";

// Smallest encodings: an input is prevout 36 + script length 1 + sequence 4; an output value 8 + 1.
const MIN_TX_IN = 41;
const MIN_TX_OUT = 9;

/** Bitcoin-style transparent inputs (tx_in_count, tx_in[]). */
export function readTxIns(r: Reader): TxIn[] {
  const n = r.count(MIN_TX_IN, "tx_in");
  const vin: TxIn[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const wirePrevoutTxid = r.bytes(32, "prevout txid");
    const prevoutIndex = r.u32("prevout index");
    const scriptSig = r.varBytes("scriptSig");
    const sequence = r.u32("sequence");
    vin[i] = { wirePrevoutTxid, prevoutIndex, scriptSig, sequence };
  }
  return vin;
}

/** Bitcoin-style transparent outputs (tx_out_count, tx_out[]). */
export function readTxOuts(r: Reader): TxOut[] {
  const n = r.count(MIN_TX_OUT, "tx_out");
  const vout: TxOut[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const valueLow = r.u32("value");
    const valueHigh = r.u32("value");
    const scriptPubKey = r.varBytes("scriptPubKey");
    vout[i] = { valueLow, valueHigh, scriptPubKey };
  }
  return vout;
}
