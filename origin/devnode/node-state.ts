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
  txHeights: RecentTxids;
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

/**
 * Display txid → height of the most recently served or mined blocks, at most `limit` txids; serving
 * a block again makes its txids the newest. Eviction keeps one Map iterator that moves on from the
 * oldest entry. A fresh `keys().next()` per eviction (as before) starts at the table's first slot
 * and steps over every slot deleted since V8 last compacted the table (hundreds of thousands at this
 * limit): once full — after ~40,000 blocks of a synthetic chain, ~5 txids each — that scan made an
 * eviction ~44× the cost of an insert (node-state.test.ts), ~1 ms per served block, and a delivery
 * pass after indexing 200,000 blocks started full.
 */
export class RecentTxids {
  readonly #heights = new Map<string, number>();
  readonly #limit: number;
  /** Where the oldest entry is: every entry it has passed was evicted or moved to the end. */
  #oldest: MapIterator<string>;

  constructor(limit = txIndexLimit) {
    this.#limit = limit;
    this.#oldest = this.#heights.keys();
  }

  get size(): number {
    return this.#heights.size;
  }

  get(txid: string): number | undefined {
    return this.#heights.get(txid);
  }

  has(txid: string): boolean {
    return this.#heights.has(txid);
  }

  /** Txids in insertion order, oldest first (tests). */
  keys(): string[] {
    return [...this.#heights.keys()];
  }

  remember(height: number, txids: readonly string[]): void {
    for (const t of txids) {
      this.#heights.delete(t);
      this.#heights.set(t, height);
    }
    while (this.#heights.size > this.#limit) {
      // A Map iterator visits entries added after it was made, so it only ends on an empty map.
      let next = this.#oldest.next();
      if (next.done) {
        this.#oldest = this.#heights.keys();
        next = this.#oldest.next();
      }
      this.#heights.delete(next.value!);
    }
  }
}

export function rememberTxids(state: NodeState, height: number, txids: string[]): void {
  state.txHeights.remember(height, txids);
}
