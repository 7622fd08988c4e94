import type { ParsedBlock } from "../chain/index.ts";

/**
 * What node-free history needs of one block (proto/range-format.md §Node-free history): where each
 * transaction sits in the raw block, every output paying a t-address, and every transparent input
 * (whose spent output's address is known only once it is looked up among earlier outputs). Pure:
 * computed once from the parse the indexer does anyway.
 */
export interface BlockHistory {
  height: number;
  /** The raw block's length in bytes (its frame in the raw-block object is 5 bytes longer). */
  rawLength: number;
  txs: TxSpan[];
  outputs: AddressOutput[];
  inputs: TransparentInput[];
}

/** A transaction's place in its raw block. */
export interface TxSpan {
  wireTxid: Uint8Array;
  /** Offset of its first byte in the raw block. */
  offset: number;
  length: number;
}

/** An output whose script is a t-address (P2PKH or P2SH). */
export interface AddressOutput {
  /** Position of its transaction in the block. */
  txIndex: number;
  /** Its index in the transaction's outputs. */
  n: number;
  /** The address key (proto/range-format.md §Transparent address index, Addresses). */
  key: Uint8Array;
  /** Zatoshi. At most 21·10^6·10^8 < 2^53: a number is exact. */
  value: number;
}

/** A transparent input of a non-coinbase transaction: the outpoint it spends. */
export interface TransparentInput {
  txIndex: number;
  /** Its index in the transaction's inputs. */
  n: number;
  wirePrevTxid: Uint8Array;
  prevN: number;
}

/**
 * The history of a parsed block. `keyOf` maps a scriptPubKey to its address key, or undefined for
 * scripts no t-address encodes. The genesis block's outputs are not addressable: consensus makes
 * them unspendable and zebrad leaves them out of its address index, so balances and unspent
 * outputs read from the store are the node's. Byte fields are copied: the parse's fields are
 * views into the raw block, which the caller may drop once the block is sealed.
 */
export function blockHistory(
  block: ParsedBlock,
  keyOf: (script: Uint8Array) => Uint8Array | undefined,
): BlockHistory {
  const txs: TxSpan[] = [];
  const outputs: AddressOutput[] = [];
  const inputs: TransparentInput[] = [];
  for (const tx of block.txs) {
    txs.push({ wireTxid: tx.wireTxid.slice(), offset: tx.offset, length: tx.raw.length });
    if (block.height !== 0)
      tx.vout.forEach((out, n) => {
        const key = keyOf(out.scriptPubKey);
        if (key !== undefined)
          outputs.push({ txIndex: tx.index, n, key, value: out.valueHigh * 2 ** 32 + out.valueLow });
      });
    // The coinbase's one input spends nothing (a null prevout carrying the BIP34 height).
    if (tx.index === 0) continue;
    tx.vin.forEach((input, n) => {
      inputs.push({
        txIndex: tx.index,
        n,
        wirePrevTxid: input.wirePrevoutTxid.slice(),
        prevN: input.prevoutIndex,
      });
    });
  }
  return { height: block.height, rawLength: block.size, txs, outputs, inputs };
}
