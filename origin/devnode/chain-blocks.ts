import { type ParsedTx, parseBlock, parseTransaction, treeGrowth, treeSizesBefore } from "../chain/index.ts";
import { buildHeader, headerHash } from "./header.ts";
import type { HeightTable } from "./height-table.ts";
import { blockEra, syntheticBody } from "./synthetic-block.ts";
import type { Traffic, TransparentMode } from "./transparent-traffic.ts";
import type { DevBlock, DevTreeSizes, IndexedTx, Network } from "./types.ts";
import type { Era } from "./upgrades.ts";

/** Real blocks a chain starts with (a corpus run); synthetic blocks may follow or replace them. */
export interface FixedBlocks {
  from: number;
  to: number;
  /** Raw bytes, display hash, display txids, time and tree sizes after the block. */
  get(height: number): DevBlock;
}

export interface ChainBlocksOptions {
  network: Network;
  seed: string;
  fixed?: FixedBlocks;
  /** Time of height 0 (synthetic); 75 s spacing (post-Blossom target). */
  genesisTime?: number;
  /** Synthetic blocks carry heavy transparent traffic (transparent-traffic.ts); default none. */
  transparent?: TransparentMode;
}

const SPACING = 75;
const zero = Buffer.alloc(32);

/**
 * What mining and reorgs change: the branch each height is on (0 = the original chain; each
 * reorg a new number) and the transactions mined into heights.
 */
export class Forks {
  private readonly branchOf = new Map<number, number>();
  private readonly staged = new Map<number, Uint8Array[]>();
  private branches = 0;

  branchAt(height: number): number {
    return this.branchOf.get(height) ?? 0;
  }

  extrasAt(height: number): Uint8Array[] {
    return this.staged.get(height) ?? [];
  }

  /** Mines `txs` into `height`. */
  stage(height: number, txs: Uint8Array[]): void {
    this.staged.set(height, txs);
  }

  /** Puts heights from..to on a new branch without their mined transactions; returns its number. */
  fork(from: number, to: number): number {
    this.branches++;
    for (let h = from; h <= to; h++) {
      this.branchOf.set(h, this.branches);
      this.staged.delete(h);
    }
    return this.branches;
  }
}

/**
 * The blocks of a dev chain: a corpus run's real blocks where the chain has not forked from them,
 * else synthetic blocks regenerated from (seed, height, branch, mined transactions), their headers
 * chained onto the parent hashes `table` holds.
 */
export class ChainBlocks {
  private readonly o: ChainBlocksOptions;
  private readonly table: HeightTable;
  private readonly forks: Forks;
  private readonly base: number;
  private readonly genesisTime: number;
  private readonly traffic: Traffic | undefined;

  constructor(o: ChainBlocksOptions, table: HeightTable, forks: Forks) {
    this.o = o;
    this.table = table;
    this.forks = forks;
    this.base = o.fixed?.from ?? 0;
    this.genesisTime = o.genesisTime ?? 1_700_000_000;
    this.traffic = o.transparent === "heavy" ? { branchAt: (h) => forks.branchAt(h) } : undefined;
  }

  eraAt(height: number): Era {
    return blockEra(this.o.network, this.o.fixed === undefined, height);
  }

  /** Block h's hash and the tree sizes after it (start-up hashing: no block bytes kept, no hex). */
  summary(h: number): { wireHash: Buffer; treeSizes: DevTreeSizes } {
    if (this.isFixed(h)) {
      const b = this.o.fixed!.get(h);
      return { wireHash: wireOf(b.displayHash), treeSizes: b.treeSizes };
    }
    const { wireHash, treeSizes } = this.build(h);
    return { wireHash, treeSizes };
  }

  /** Block h as served; its parent's hash must be in `table`. */
  block(h: number): DevBlock {
    if (this.isFixed(h)) return this.o.fixed!.get(h);
    const { body, header, wireHash, treeSizes } = this.build(h);
    body.block.set(header, 0); // syntheticBody left HEADER_BYTES of room for it
    return {
      height: h,
      displayHash: flatDisplayHex(wireHash),
      prevDisplayHash: h === this.base ? "0".repeat(64) : flatDisplayHex(this.prevWire(h)),
      time: this.timeAt(h),
      raw: body.block,
      txids: body.wireTxids.map(flatDisplayHex),
      treeSizes,
    };
  }

  /** Block h's txids and transparent parts (synthetic: from the generated shapes, no header, no parse). */
  indexedTxs(h: number): IndexedTx[] {
    if (this.isFixed(h)) return parsedTxs(this.o.fixed!.get(h).raw);
    const body = this.body(h);
    return body.wireTxids.map((wireTxid, i) => {
      const shape = body.shapes[i];
      if (shape) return { wireTxid, vin: shape.vin, vout: shape.vout };
      return { ...transparentParts(parseTransaction(body.txs[i]!, { strictV6: false })), wireTxid };
    });
  }

  private isFixed(h: number): boolean {
    const fixed = this.o.fixed;
    return fixed !== undefined && h <= fixed.to && this.forks.branchAt(h) === 0;
  }

  private timeAt(h: number): number {
    return this.isFixed(h) ? this.o.fixed!.get(h).time : this.genesisTime + h * SPACING;
  }

  private prevWire(h: number): Buffer {
    if (h !== this.base) return this.table.wireHash(h - 1);
    return this.isFixed(h) ? wireOf(this.o.fixed!.get(h).prevDisplayHash) : zero;
  }

  private sizesBefore(h: number): DevTreeSizes {
    if (h !== this.base) return this.table.treeSizes(h - 1);
    return this.isFixed(h) ? sizesBeforeBlock(this.o.fixed!.get(h)) : { sapling: 0, orchard: 0, ironwood: 0 };
  }

  /** Synthetic block h's transactions (its branch, mined transactions and traffic). */
  private body(h: number) {
    const branch = this.forks.branchAt(h);
    return syntheticBody(this.o.seed, h, branch, this.forks.extrasAt(h), this.eraAt(h), this.traffic);
  }

  /** Header, txids and tree sizes of synthetic block h (the block bytes are in body.block). */
  private build(h: number) {
    const body = this.body(h);
    const added = body.added;
    for (const t of this.forks.extrasAt(h)) addCounts(added, t);
    const header = buildHeader({
      wirePrevHash: this.prevWire(h),
      wireMerkleRoot: body.wireMerkleRoot,
      time: this.timeAt(h),
      height: h,
    });
    const prev = this.sizesBefore(h);
    const treeSizes = {
      sapling: prev.sapling + added.sapling,
      orchard: prev.orchard + added.orchard,
      ironwood: prev.ironwood + added.ironwood,
    };
    return { body, header, wireHash: headerHash(header), treeSizes };
  }
}

function transparentParts(tx: ParsedTx): Omit<IndexedTx, "wireTxid"> {
  return {
    vin: tx.vin.map((i) => ({ wirePrevTxid: i.wirePrevoutTxid, index: i.prevoutIndex })),
    vout: tx.vout.map((o) => ({ value: o.valueHigh * 2 ** 32 + o.valueLow, script: o.scriptPubKey })),
  };
}

/** A raw block's transactions for indexes (txids computed by the parser). */
function parsedTxs(raw: Uint8Array): IndexedTx[] {
  return parseBlock(raw, { strictV6: false }).txs.map((tx) => ({
    ...transparentParts(tx),
    wireTxid: tx.wireTxid,
  }));
}

/**
 * Display hex as one flat string. The node keeps up to 200,000 served txids (node-state.ts), and
 * `displayHex` builds its string by `+=` of 2-character pieces: a rope of ~28 heap objects, ~900
 * bytes per txid, so a full index held ~180 MB that every major GC marked again — at 50,000
 * blocks the dev node's GC threads used more CPU than serving itself. Flat: ~120 bytes, one object.
 */
export function flatDisplayHex(wire: Uint8Array): string {
  return Buffer.from(wire).reverse().toString("hex");
}

export function wireOf(displayHash: string): Buffer {
  return Buffer.from(displayHash, "hex").reverse();
}

function sizesBeforeBlock(b: DevBlock): DevTreeSizes {
  return treeSizesBefore(b.treeSizes, parseBlock(b.raw, { strictV6: false }).txs);
}

function addCounts(added: DevTreeSizes, raw: Uint8Array): void {
  const more = treeGrowth([parseTransaction(raw, { strictV6: false })]);
  added.sapling += more.sapling;
  added.orchard += more.orchard;
  added.ironwood += more.ironwood;
}
