import { compareBytes, toHex } from "../../proto/bytes.ts";
import type { BlockHistory } from "./block-history.ts";
import type { AddressRow, SealedOutput } from "./history-db.ts";

/**
 * The address records of blocks no range holds yet (the indexer's tail), for some addresses: what
 * the origin reports to the edge above its sealed tip (TailAddresses), so the edge's answers
 * include the tail. A tail input may spend a sealed output (found through `sealedOutput`) or an
 * output earlier in the tail; records of tail blocks carry offset and length 0 (no raw-block
 * object holds them yet).
 *
 * Every balance and unspent-output call at the edge asks for them, and resolving a block's inputs
 * costs a database lookup each (hundreds per block on a busy chain, a hundred blocks of tail): so
 * each block's records, for every address, are computed once and kept with the block
 * (`TailActivity`), and a call only picks its addresses out of them. A block's records depend on
 * the block and the chain below it only; a reorg replaces the block objects, never a kept entry.
 */

/** What one tail block adds, by address key (hex): its records in the block's order. */
type BlockRecords = Map<string, AddressRow[]>;

const outpoint = (wireTxid: Uint8Array, n: number) => `${toHex(wireTxid)}:${n}`;

/** The outputs to addresses of `b`, by outpoint. */
function addOutputs(b: BlockHistory, into: Map<string, SealedOutput>): void {
  for (const o of b.outputs)
    into.set(outpoint(b.txs[o.txIndex]!.wireTxid, o.n), {
      key: o.key,
      value: o.value,
      height: b.height,
      txIndex: o.txIndex,
      n: o.n,
    });
}

/** The records of every address in one block; `outputOf` finds the outputs its inputs spend. */
function blockRecords(
  b: BlockHistory,
  outputOf: (wireTxid: Uint8Array, n: number) => SealedOutput | undefined,
): BlockRecords {
  const out: BlockRecords = new Map();
  const push = (row: AddressRow) => {
    const key = toHex(row.key);
    const rows = out.get(key);
    if (rows === undefined) out.set(key, [row]);
    else rows.push(row);
  };
  const base = (key: Uint8Array, txIndex: number) => ({
    key,
    height: b.height,
    txIndex,
    wireTxid: b.txs[txIndex]!.wireTxid,
    offset: 0,
    length: 0,
  });
  for (const o of b.outputs)
    push({
      ...base(o.key, o.txIndex),
      kind: 0,
      n: o.n,
      value: o.value,
      outHeight: 0,
      outTxIndex: 0,
      outN: 0,
    });
  for (const i of b.inputs) {
    const spent = outputOf(i.wirePrevTxid, i.prevN);
    if (spent === undefined) continue;
    push({
      ...base(spent.key, i.txIndex),
      kind: 1,
      n: i.n,
      value: spent.value,
      outHeight: spent.height,
      outTxIndex: spent.txIndex,
      outN: spent.n,
    });
  }
  return out;
}

/** A level's order: address, then height, position, kind, index. */
function levelOrder(a: AddressRow, b: AddressRow): number {
  return (
    compareBytes(a.key, b.key) || a.height - b.height || a.txIndex - b.txIndex || a.kind - b.kind || a.n - b.n
  );
}

/** The tail's records per block, each block's computed on first request and kept with the block. */
export class TailActivity {
  readonly #kept = new WeakMap<BlockHistory, BlockRecords>();

  /**
   * The records of `keys` in `blocks` (the tail, consecutive, oldest first), in a level's order.
   * `sealedOutput` finds outputs below the tail (the history database).
   */
  records(
    blocks: readonly BlockHistory[],
    keys: readonly Uint8Array[],
    sealedOutput: (wireTxid: Uint8Array, n: number) => SealedOutput | undefined,
  ): AddressRow[] {
    const wanted = new Set(keys.map(toHex));
    // Outputs of the tail below the block being computed: built only when a block is not kept.
    let tailOutputs: Map<string, SealedOutput> | undefined;
    const out: AddressRow[] = [];
    blocks.forEach((b, k) => {
      let records = this.#kept.get(b);
      if (records === undefined) {
        if (tailOutputs === undefined) {
          tailOutputs = new Map();
          for (const below of blocks.slice(0, k)) addOutputs(below, tailOutputs);
        }
        const earlier = tailOutputs;
        // Outputs of this block too: a later transaction of a block may spend an earlier one's.
        addOutputs(b, earlier);
        records = blockRecords(b, (txid, n) => earlier.get(outpoint(txid, n)) ?? sealedOutput(txid, n));
        this.#kept.set(b, records);
      } else if (tailOutputs !== undefined) addOutputs(b, tailOutputs);
      if (wanted.size <= records.size) {
        for (const key of wanted) {
          const rows = records.get(key);
          if (rows !== undefined) out.push(...rows);
        }
      } else for (const [key, rows] of records) if (wanted.has(key)) out.push(...rows);
    });
    return out.sort(levelOrder);
  }
}

/** The records of `keys` in `blocks`, computed afresh (TailActivity without keeping anything). */
export function tailRecords(
  blocks: readonly BlockHistory[],
  keys: readonly Uint8Array[],
  sealedOutput: (wireTxid: Uint8Array, n: number) => SealedOutput | undefined,
): AddressRow[] {
  return new TailActivity().records(blocks, keys, sealedOutput);
}
