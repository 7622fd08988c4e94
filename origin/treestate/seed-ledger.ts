import {
  legacyTreeSize,
  parseFinalState,
  readSubtreeRoots,
  SUBTREE_CHUNK,
  SUBTREE_LEAF_COUNT,
} from "../../proto/treestate/index.ts";
import type { BlobStore } from "../store/index.ts";
import type { TreeStateStart } from "./producer.ts";
import type { SubtreeLedger } from "./subtree-ledger.ts";

/**
 * Loads the stored roots of the chunk each pool is filling, so the next completed subtree's chunk
 * object can be written whole after a restart (the ledger writes only chunks complete from their
 * start). Missing roots leave the chunk to the node fallback until a backfill writes it.
 */
export async function seedLedger(
  store: BlobStore,
  network: string,
  ledger: SubtreeLedger,
  start: TreeStateStart,
) {
  const read = (k: string, r?: { offset: number; length: number }) => store.get(k, r);
  for (const pool of ["sapling", "orchard"] as const) {
    const hex = start[pool];
    const treeSize = hex ? legacyTreeSize(parseFinalState(hex)) : 0;
    const completed = Math.floor(treeSize / SUBTREE_LEAF_COUNT);
    const startIndex = completed - (completed % SUBTREE_CHUNK);
    if (completed === startIndex) continue;
    const roots = await readSubtreeRoots(read, network, { pool, startIndex, maxEntries: 0, treeSize });
    for (const [i, root] of (roots ?? []).entries()) ledger.add(pool, startIndex + i, root);
  }
}
