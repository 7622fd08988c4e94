import { displayHex } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { ChainBlocks, type ChainBlocksOptions, Forks, wireOf } from "./chain-blocks.ts";
import { HeightTable } from "./height-table.ts";
import type { ChainEvent, DevBlock, DevChain, DevTreeSizes, IndexedTx } from "./types.ts";
import type { Era } from "./upgrades.ts";

export interface ChainOptions extends ChainBlocksOptions {
  /** Synthetic chain: heights 0..blocks-1. */
  blocks?: number;
}

/**
 * The dev node's chain. Header hashes chain sequentially (each header holds its parent's hash), so
 * block h's hash needs every synthetic block up to h generated once: the chain hashes forward
 * into a HeightTable (`hashed()` is how far), and block bodies are regenerated on demand from
 * (seed, height, branch) by ChainBlocks, never kept here. `mine` appends heights, `reorg` puts
 * the last ones on a new branch and forgets their hashes; both notify subscribers.
 */
export function createDevChain(o: ChainOptions): DevChain {
  return new Chain(o);
}

class Chain implements DevChain {
  readonly network: ChainOptions["network"];
  readonly synthetic: boolean;
  readonly base: number;
  private tipHeight: number;
  /** Heights below it have their hash and tree sizes in `table`. */
  private known: number;
  private readonly table: HeightTable;
  private readonly forks = new Forks();
  private readonly blocks: ChainBlocks;
  private readonly listeners: ((e: ChainEvent) => void)[] = [];

  constructor(o: ChainOptions) {
    this.network = o.network;
    this.synthetic = o.fixed === undefined;
    this.base = o.fixed?.from ?? 0;
    this.tipHeight = o.fixed ? o.fixed.to : this.base + (o.blocks ?? 1) - 1;
    this.known = this.base;
    this.table = new HeightTable(this.base, Math.max(1024, this.tipHeight - this.base + 1));
    this.blocks = new ChainBlocks(o, this.table, this.forks);
  }

  tip(): number {
    return this.tipHeight;
  }

  hashed(): number {
    return this.known - 1;
  }

  advance(budgetMs: number): boolean {
    const end = performance.now() + budgetMs;
    while (this.known <= this.tipHeight && performance.now() < end) this.hashNext();
    return this.known > this.tipHeight;
  }

  hashAt(h: number): string {
    this.checkHeight(h);
    this.hashThrough(h);
    return displayHex(this.table.wireHash(h));
  }

  heightOf(displayHash: string): number | undefined {
    if (!/^[0-9a-f]{64}$/.test(displayHash)) return undefined;
    this.hashThrough(this.tipHeight);
    const h = this.table.heightOf(wireOf(displayHash));
    return h === undefined || h > this.tipHeight ? undefined : h;
  }

  block(h: number): DevBlock {
    this.checkHeight(h);
    this.hashThrough(h - 1);
    const b = this.blocks.block(h);
    if (this.known === h) {
      this.table.record(h, wireOf(b.displayHash), b.treeSizes);
      this.known++;
    }
    return b;
  }

  indexedTxs(h: number): IndexedTx[] {
    this.checkHeight(h);
    return this.blocks.indexedTxs(h);
  }

  treeSizesAt(h: number): DevTreeSizes {
    this.checkHeight(h);
    this.hashThrough(h);
    return this.table.treeSizes(h);
  }

  mine(k: number, mempool: Uint8Array[] = [], perBlock = Number.POSITIVE_INFINITY): number {
    const per = Math.max(1, Number.isFinite(perBlock) ? Math.floor(perBlock) : mempool.length);
    const count = Math.max(k, Math.ceil(mempool.length / per));
    if (count === 0) return 0;
    const from = this.tipHeight + 1;
    if (!this.eraAt(from).sapling)
      throw new LightedgeError(
        "bad-request",
        "devnode.mine",
        `devnode: cannot mine at ${from}: the dev node builds no blocks before Sapling activation`,
      );
    const added = new Map<number, Uint8Array[]>();
    for (let i = 0; i * per < mempool.length; i++) added.set(from + i, mempool.slice(i * per, (i + 1) * per));
    for (const [h, txs] of added) this.forks.stage(h, txs);
    this.tipHeight += count;
    this.emit({ kind: "mine", from, to: this.tipHeight, extras: [...added] });
    return count;
  }

  reorg(d: number): void {
    const from = Math.max(this.base + 1, this.tipHeight - d + 1);
    const branch = this.forks.fork(from, this.tipHeight);
    this.table.forget(from, this.known);
    this.known = Math.min(this.known, from);
    this.emit({ kind: "reorg", from, to: this.tipHeight, branch });
  }

  eraAt(height: number): Era {
    return this.blocks.eraAt(height);
  }

  subscribe(listener: (e: ChainEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Records the next height's hash and tree sizes. */
  private hashNext(): void {
    const h = this.known++;
    const { wireHash, treeSizes } = this.blocks.summary(h);
    this.table.record(h, wireHash, treeSizes);
  }

  private hashThrough(h: number): void {
    while (this.known <= h) this.hashNext();
  }

  private checkHeight(h: number): void {
    if (!Number.isSafeInteger(h) || h < this.base || h > this.tipHeight)
      throw new RangeError(`height ${h} outside ${this.base}..${this.tipHeight}`);
  }

  private emit(e: ChainEvent): void {
    for (const l of this.listeners) l(e);
  }
}
