import { fromHex } from "../../proto/bytes.ts";
import {
  legacyTreeSize,
  parseFinalState,
  readSubtreeRoots,
  SUBTREE_CHUNK,
  SUBTREE_LEAF_COUNT,
} from "../../proto/treestate/index.ts";
import type { TreeStateSource } from "../node/ports.ts";
import type { BlobStore } from "../store/index.ts";
import type { TreeStateStart } from "./producer.ts";
import type { SubtreeLedger } from "./subtree-ledger.ts";

/**
 * Loads the roots of the chunk each pool is filling, so the next completed subtree's chunk object
 * can be written whole (the ledger writes only chunks complete from their start): our stored ones
 * (after a restart), else — the subtrees completed before the origin's start, which it never
 * hashed — the node's z_getsubtreesbyindex roots, with completing hashes from its z_gettreestate.
 * Nothing when neither has them: that chunk is then left to the node fallback until a backfill.
 */
export async function seedLedger(
  store: BlobStore,
  network: string,
  ledger: SubtreeLedger,
  start: TreeStateStart,
  node?: TreeStateSource,
) {
  const read = (k: string, r?: { offset: number; length: number }) => store.get(k, r);
  for (const pool of ["sapling", "orchard", "ironwood"] as const) {
    const hex = start[pool];
    const treeSize = hex ? legacyTreeSize(parseFinalState(hex)) : 0;
    const completed = Math.floor(treeSize / SUBTREE_LEAF_COUNT);
    const startIndex = completed - (completed % SUBTREE_CHUNK);
    if (completed === startIndex) continue;
    const stored = await readSubtreeRoots(read, network, { pool, startIndex, maxEntries: 0, treeSize });
    if (stored !== undefined) {
      for (const [i, root] of stored.entries()) ledger.add(pool, startIndex + i, root);
      continue;
    }
    if (node === undefined) continue;
    try {
      const answer = await node.subtrees(pool, startIndex, completed - startIndex);
      if (answer.start_index !== startIndex || answer.subtrees.length !== completed - startIndex) continue;
      const roots = [];
      for (const s of answer.subtrees) {
        const state = await node.treeState(s.end_height);
        roots.push({
          root: fromHex(s.root, "treestate.seed-ledger"),
          completingHeight: s.end_height,
          completingWireHash: fromHex(state.hash, "treestate.seed-ledger").reverse(),
        });
      }
      roots.forEach((root, i) => {
        ledger.add(pool, startIndex + i, root);
      });
    } catch {
      // The node lacks them: the chunk stays unwritten, GetSubtreeRoots forwards the node's.
    }
  }
}
