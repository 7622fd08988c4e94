import { compareBytes, toHex } from "../../proto/bytes.ts";
import type { BlockHistory } from "./block-history.ts";
import type { AddressRow, SealedOutput } from "./history-db.ts";

/**
 * The address records of blocks no range holds yet (the indexer's tail), for some addresses: what
 * the origin reports to the edge above its sealed tip (TailAddresses), so the edge's answers
 * include the tail. A tail input may spend a sealed output (found through `sealedOutput`) or an
 * output earlier in the tail; records of tail blocks carry offset and length 0 (no raw-block
 * object holds them yet). Pure: the sealed outputs come through a function.
 */
export function tailRecords(
  blocks: readonly BlockHistory[],
  keys: readonly Uint8Array[],
  sealedOutput: (wireTxid: Uint8Array, n: number) => SealedOutput | undefined,
): AddressRow[] {
  const wanted = new Set(keys.map(toHex));
  const tailOutputs = new Map<string, SealedOutput>();
  const out: AddressRow[] = [];
  for (const b of blocks) {
    const row = (key: Uint8Array, txIndex: number): Omit<AddressRow, "kind" | "n" | "value"> => ({
      key,
      height: b.height,
      txIndex,
      wireTxid: b.txs[txIndex]!.wireTxid,
      offset: 0,
      length: 0,
      outHeight: 0,
      outTxIndex: 0,
      outN: 0,
    });
    for (const o of b.outputs) {
      if (!wanted.has(toHex(o.key))) continue;
      const output = { key: o.key, value: o.value, height: b.height, txIndex: o.txIndex, n: o.n };
      tailOutputs.set(`${toHex(b.txs[o.txIndex]!.wireTxid)}:${o.n}`, output);
      out.push({ ...row(o.key, o.txIndex), kind: 0, n: o.n, value: o.value });
    }
    for (const i of b.inputs) {
      const spent =
        tailOutputs.get(`${toHex(i.wirePrevTxid)}:${i.prevN}`) ?? sealedOutput(i.wirePrevTxid, i.prevN);
      if (spent === undefined || !wanted.has(toHex(spent.key))) continue;
      out.push({
        ...row(spent.key, i.txIndex),
        kind: 1,
        n: i.n,
        value: spent.value,
        outHeight: spent.height,
        outTxIndex: spent.txIndex,
        outN: spent.n,
      });
    }
  }
  // A level's order: address, then height, position, kind, index.
  return out.sort(
    (a, b) =>
      compareBytes(a.key, b.key) ||
      a.height - b.height ||
      a.txIndex - b.txIndex ||
      a.kind - b.kind ||
      a.n - b.n,
  );
}
