import {
  createTreeStateReader,
  readSubtreeRoots,
  type StoredSubtreeRoot,
  type SubtreeQuery,
  type TreeStateView,
} from "../../proto/treestate/index.ts";
import type { BlobStore } from "../store/index.ts";

export interface TreeStateService {
  /** The stored tree state after `height`, or undefined when not stored yet (fall back to the node). */
  treeState(height: number): Promise<TreeStateView | undefined>;
  /** Our stored subtree roots, or undefined when a needed chunk is not stored (fall back). */
  subtreeRoots(q: SubtreeQuery): Promise<StoredSubtreeRoot[] | undefined>;
}

export interface TreeStateServiceOptions {
  store: BlobStore;
  /** lightedge network name (e.g. "mainnet"). */
  network: string;
  rangeSize: number;
  /** Tail heights the producer holds in memory (above the sealed tip), when given. */
  tail?: (height: number) => TreeStateView | undefined;
}

/** The origin's reader of stored tree states: the same code as the edge's, over the BlobStore. */
export function createTreeStateService(o: TreeStateServiceOptions): TreeStateService {
  const read = (key: string, range?: { offset: number; length: number }) => o.store.get(key, range);
  const reader = createTreeStateReader({ read, network: o.network });
  return {
    async treeState(height) {
      return o.tail?.(height) ?? (await reader.at(o.rangeSize, height));
    },
    subtreeRoots: (q) => readSubtreeRoots(read, o.network, q),
  };
}
