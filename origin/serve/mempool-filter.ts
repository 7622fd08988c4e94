import { toHex } from "../../proto/bytes.ts";

/**
 * Indices of the transactions a wallet asked to leave out. A suffix (of the wire-order txid, i.e.
 * a prefix of the display hex once reversed — lightwalletd `MempoolFilter`) excludes the one
 * transaction it matches; a suffix matching two or more transactions excludes none of them,
 * since the wallet cannot have meant both. Indexed by suffix length so 20,000 suffixes against a
 * large mempool stay linear.
 */
export function excludedIndices(
  wireTxids: readonly Uint8Array[],
  suffixes: readonly Uint8Array[],
): Set<number> {
  const lengths = new Set(suffixes.map((s) => s.length));
  const byTail = new Map<string, number[]>();
  for (const length of lengths) {
    wireTxids.forEach((txid, index) => {
      if (txid.length < length) return;
      const key = `${length}:${toHex(txid.subarray(txid.length - length))}`;
      const list = byTail.get(key);
      if (list === undefined) byTail.set(key, [index]);
      else list.push(index);
    });
  }
  const excluded = new Set<number>();
  for (const suffix of suffixes) {
    const matches = byTail.get(`${suffix.length}:${toHex(suffix)}`);
    if (matches?.length === 1) excluded.add(matches[0]!);
  }
  return excluded;
}
