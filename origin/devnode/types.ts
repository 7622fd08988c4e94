import type { Network } from "./address.ts";
import type { Era } from "./upgrades.ts";

export type { Network };

export interface DevTreeSizes {
  sapling: number;
  orchard: number;
  ironwood: number;
}

/** One served block. Hashes and txids display order. */
export interface DevBlock {
  height: number;
  displayHash: string;
  prevDisplayHash: string;
  time: number;
  raw: Buffer;
  txids: string[];
  /** Tree sizes after this block. */
  treeSizes: DevTreeSizes;
}

/** A transaction as the address and transaction index reads it: txid and transparent parts. */
export interface IndexedTx {
  wireTxid: Uint8Array;
  /** Outpoints spent (a coinbase's null prevout included). */
  vin: readonly { wirePrevTxid: Uint8Array; index: number }[];
  /** Outputs: value in zatoshi, scriptPubKey. */
  vout: readonly { value: number; script: Uint8Array }[];
}

/** The chain a dev node serves; the JSON-RPC layer reads it, the control API changes it. */
export interface DevChain {
  readonly network: Network;
  readonly synthetic: boolean;
  /** Lowest height served (corpus runs start mid-chain). */
  readonly base: number;
  tip(): number;
  /** Highest height whose hash is computed (hashing is sequential; see chain.ts). */
  hashed(): number;
  /** Hashes more blocks for about budgetMs; true once every block up to the tip is hashed. */
  advance(budgetMs: number): boolean;
  hashAt(height: number): string;
  heightOf(displayHash: string): number | undefined;
  block(height: number): DevBlock;
  /**
   * Block `height`'s transactions in block order, for indexes: synthetic blocks are generated
   * without their header (any height up to the tip, hashed or not) and read from their shapes, not
   * parsed; corpus blocks are parsed.
   */
  indexedTxs(height: number): IndexedTx[];
  /** Tree sizes after `height` (hashed heights only; cheap). */
  treeSizesAt(height: number): DevTreeSizes;
  /**
   * Appends k blocks; the first takes the `mempool` transactions, or `perBlock` of them go into
   * each new block (more blocks than k when needed). Returns how many blocks were appended.
   */
  mine(k: number, mempool?: Uint8Array[], perBlock?: number): number;
  /** Replaces the last d blocks with a new branch (new hashes from the fork point on). */
  reorg(d: number): void;
  /** What a block at `height` may hold (transaction versions, pools, branch id). */
  eraAt(height: number): Era;
  /** Called after every mine and reorg (tree states follow the chain with it). */
  subscribe(listener: (e: ChainEvent) => void): void;
}

/** A change of the chain: blocks appended (with staged transactions) or replaced from `from`. */
export type ChainEvent =
  | { kind: "mine"; from: number; to: number; extras: [number, Uint8Array[]][] }
  | { kind: "reorg"; from: number; to: number; branch: number };
