import { sha256d } from "./hashes.ts";

/**
 * Bitcoin-style merkle root over wire-order txids (an odd level duplicates its last node). The
 * CVE-2012-2459 duplicate-subtree ambiguity is harmless here: we only check a node-supplied root.
 */
export function merkleRoot(wireTxids: Uint8Array[]): Uint8Array {
  if (wireTxids.length === 0) throw new RangeError("merkle root of zero transactions");
  let level = wireTxids;
  const pair = new Uint8Array(64);
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      pair.set(level[i]!, 0);
      pair.set(level[i + 1] ?? level[i]!, 32);
      next.push(sha256d(pair));
    }
    level = next;
  }
  return level[0]!;
}
