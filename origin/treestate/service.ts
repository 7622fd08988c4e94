import {
  createTreeStateReader,
  readSubtreeRoots,
  type StoredSubtreeRoot,
  type SubtreeQuery,
  type TreeStateView,
} from "../../proto/treestate/index.ts";
import type { BlobStore } from "../store/index.ts";
import type { TailTreeState } from "./producer.ts";

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
  /**
   * Like `tail`, with heights whose Ironwood tree is non-empty too: their Ironwood part comes from
   * `ironwood` (the node stays Ironwood's source, origin/trees/README.md). Asked before `tail`.
   */
  tailView?: (height: number) => TailTreeState | undefined | Promise<TailTreeState | undefined>;
  ironwood?: (height: number) => Promise<string>;
  /**
   * Called for a height found neither in the tail nor in storage, before the caller falls back to
   * the node: throw to refuse (a synthetic chain's node tree states are placeholders).
   */
  missing?: (height: number) => void;
}

/** The origin's reader of stored tree states: the same code as the edge's, over the BlobStore. */
export function createTreeStateService(o: TreeStateServiceOptions): TreeStateService {
  const read = (key: string, range?: { offset: number; length: number }) => o.store.get(key, range);
  const reader = createTreeStateReader({ read, network: o.network });
  const fromTail = async (height: number): Promise<TreeStateView | undefined> => {
    const t = await o.tailView?.(height);
    if (t === undefined) return o.tail?.(height);
    if (t.ironwoodSize === 0) return t.view;
    return o.ironwood ? { ...t.view, ironwoodTree: await o.ironwood(height) } : undefined;
  };
  return {
    async treeState(height) {
      const found = (await fromTail(height)) ?? (await reader.at(o.rangeSize, height));
      if (found === undefined) o.missing?.(height);
      return found;
    },
    subtreeRoots: (q) => readSubtreeRoots(read, o.network, q),
  };
}
