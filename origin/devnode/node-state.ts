import type { DevAddressIndex } from "./address-index.ts";
import type { BlockCache } from "./blocks-rpc.ts";
import type { Pool } from "./commitments.ts";
import type { RealSubtree } from "./start-frontier.ts";
import type { TreeStates } from "./tree-host.ts";
import type { DevChain } from "./types.ts";

/** Corpus mode: what the dev node serves below the run and for subtrees completed before it. */
export interface CorpusServing {
  /** Real zebrad z_gettreestate results by height (served as they are below the run). */
  zebrad: Map<number, Record<string, unknown> & { hash?: unknown }>;
  /** Hash and time of block from − 1 (the start frontier's block). */
  startHash: string;
  startTime: number;
  /** Tree sizes after from − 1. */
  startSizes: Record<Pool, number>;
  /** The corpus's real subtree roots by index. */
  subtrees: Record<Pool, ReadonlyMap<number, RealSubtree>>;
}

/** Everything the JSON-RPC methods and the control API share. */
export interface NodeState {
  chain: DevChain;
  blocks: BlockCache;
  addresses: DevAddressIndex;
  /** Display txid → raw bytes, in arrival order. */
  mempool: Map<string, Uint8Array>;
  /** Display txid → height of recently served/mined blocks (bounded). */
  txHeights: Map<string, number>;
  /** Extra blocks added to estimatedheight (control: pretend the node is still syncing). */
  behind: number;
  /** JSON-RPC calls answered, per method (control /state): how often a server behind asked the node. */
  calls: Map<string, number>;
  /** Served tip: the chain tip once hashing has caught up (see chain.ts). */
  tip(): number;
  /** Note commitment trees (tree-host.ts). */
  trees: TreeStates;
  corpus?: CorpusServing;
}

const txIndexLimit = 200_000;

export function rememberTxids(state: NodeState, height: number, txids: string[]): void {
  for (const t of txids) {
    state.txHeights.delete(t);
    state.txHeights.set(t, height);
  }
  while (state.txHeights.size > txIndexLimit) state.txHeights.delete(state.txHeights.keys().next().value!);
}
