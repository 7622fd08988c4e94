import {
  encodeSubtreeRoots,
  type StoredSubtreeRoot,
  SUBTREE_CHUNK,
  type SubtreePool,
  subtreeChunkKey,
} from "../../proto/treestate/index.ts";

export interface StoredObjectWrite {
  key: string;
  bytes: Uint8Array;
}

/**
 * Subtree roots the origin computed (following the tip, or backfilled), per pool and index. A chunk
 * object is written only once every root from the chunk's start to its newest one is known: the
 * stored roots are always our own, never a gap the reader would have to notice.
 */
export interface SubtreeLedger {
  add(pool: SubtreePool, index: number, root: StoredSubtreeRoot): void;
  get(pool: SubtreePool, index: number): StoredSubtreeRoot | undefined;
  /** Chunk objects for the chunks holding `indexes`, where complete from the chunk start. */
  chunkObjects(network: string, pool: SubtreePool, indexes: readonly number[]): StoredObjectWrite[];
}

export function createSubtreeLedger(): SubtreeLedger {
  const roots: Record<SubtreePool, Map<number, StoredSubtreeRoot>> = {
    sapling: new Map(),
    orchard: new Map(),
    ironwood: new Map(),
  };
  return {
    add: (pool, index, root) => void roots[pool].set(index, root),
    get: (pool, index) => roots[pool].get(index),
    chunkObjects(network, pool, indexes) {
      const out: StoredObjectWrite[] = [];
      const byChunk = new Map<number, number>();
      for (const i of indexes) {
        const c = Math.floor(i / SUBTREE_CHUNK);
        byChunk.set(c, Math.max(byChunk.get(c) ?? -1, i));
      }
      for (const [c, last] of byChunk) {
        const list: StoredSubtreeRoot[] = [];
        for (let i = c * SUBTREE_CHUNK; i <= last; i++) {
          const r = roots[pool].get(i);
          if (r === undefined) break;
          list.push(r);
        }
        if (list.length !== last - c * SUBTREE_CHUNK + 1) continue;
        out.push({
          key: subtreeChunkKey(network, pool, c, list.length),
          bytes: encodeSubtreeRoots({ pool, firstIndex: c * SUBTREE_CHUNK, roots: list }),
        });
      }
      return out;
    },
  };
}
