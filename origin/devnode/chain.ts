import { displayHex } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { parseBlock, parseTransaction } from "../chain/index.ts";
import { buildHeader, headerHash } from "./header.ts";
import { blockEra, syntheticBody } from "./synthetic-block.ts";
import type { ChainEvent, DevBlock, DevChain, DevTreeSizes, Network } from "./types.ts";

/** Real blocks a chain starts with (a corpus run); synthetic blocks may follow or replace them. */
export interface FixedBlocks {
  from: number;
  to: number;
  /** Raw bytes, display hash, display txids, time and tree sizes after the block. */
  get(height: number): DevBlock;
}

export interface ChainOptions {
  network: Network;
  seed: string;
  /** Synthetic chain: heights 0..blocks-1. */
  blocks?: number;
  fixed?: FixedBlocks;
  /** Time of height 0 (synthetic); 75 s spacing (post-Blossom target). */
  genesisTime?: number;
}

const SPACING = 75;
const zero = Buffer.alloc(32);

/**
 * The dev node's chain. Header hashes chain sequentially (each header holds its parent's hash), so
 * block h's hash needs every synthetic block up to h generated once: `ensure` extends a dense
 * 32-byte-per-height hash table plus three Uint32 tree-size columns, and a 48-bit-prefix map
 * answers hash → height. Memory ≈ 90 bytes per block (3.5 M blocks ≈ 300 MB); block bodies are
 * regenerated on demand from (seed, height, branch) and never kept here.
 */
export function createDevChain(o: ChainOptions): DevChain {
  const base = o.fixed?.from ?? 0;
  let tip = o.fixed ? o.fixed.to : base + (o.blocks ?? 1) - 1;
  let capacity = Math.max(1024, tip - base + 1);
  let hashes = Buffer.alloc(32 * capacity);
  let sizes = new Uint32Array(3 * capacity);
  const byPrefix = new Map<number, number>();
  const branchOf = new Map<number, number>();
  const extras = new Map<number, Uint8Array[]>();
  let known = base; // heights < known have hash and sizes
  let branches = 0;
  const genesisTime = o.genesisTime ?? 1_700_000_000;
  const listeners: ((e: ChainEvent) => void)[] = [];
  const emit = (e: ChainEvent) => {
    for (const l of listeners) l(e);
  };
  const eraOf = (h: number) => blockEra(o.network, o.fixed === undefined, h);

  const isFixed = (h: number) => o.fixed !== undefined && h <= o.fixed.to && (branchOf.get(h) ?? 0) === 0;
  const timeAt = (h: number) => (isFixed(h) ? o.fixed!.get(h).time : genesisTime + h * SPACING);
  const prevWire = (h: number) =>
    h === base
      ? isFixed(h)
        ? wireOf(o.fixed!.get(h).prevDisplayHash)
        : zero
      : hashes.subarray(32 * (h - 1 - base), 32 * (h - base));
  const sizesBefore = (h: number): DevTreeSizes => {
    if (h === base) return isFixed(h) ? before(o.fixed!.get(h)) : { sapling: 0, orchard: 0, ironwood: 0 };
    const i = 3 * (h - 1 - base);
    return { sapling: sizes[i]!, orchard: sizes[i + 1]!, ironwood: sizes[i + 2]! };
  };
  function before(b: DevBlock): DevTreeSizes {
    const added = countAdded(b.raw);
    return {
      sapling: b.treeSizes.sapling - added.sapling,
      orchard: b.treeSizes.orchard - added.orchard,
      ironwood: b.treeSizes.ironwood - added.ironwood,
    };
  }

  function grow(): void {
    capacity *= 2;
    const h2 = Buffer.alloc(32 * capacity);
    hashes.copy(h2);
    hashes = h2;
    const s2 = new Uint32Array(3 * capacity);
    s2.set(sizes);
    sizes = s2;
  }

  /** Header, txids and tree sizes of synthetic block h (the block bytes are in body.block). */
  function build(h: number) {
    const extra = extras.get(h) ?? [];
    const body = syntheticBody(o.seed, h, branchOf.get(h) ?? 0, extra, eraOf(h));
    const added = body.added;
    for (const t of extra) addCounts(added, t);
    const header = buildHeader({
      wirePrevHash: prevWire(h),
      wireMerkleRoot: body.wireMerkleRoot,
      time: timeAt(h),
      height: h,
    });
    const prev = sizesBefore(h);
    const treeSizes = {
      sapling: prev.sapling + added.sapling,
      orchard: prev.orchard + added.orchard,
      ironwood: prev.ironwood + added.ironwood,
    };
    return { body, header, wireHash: headerHash(header), treeSizes };
  }

  function generate(h: number): DevBlock {
    if (isFixed(h)) return o.fixed!.get(h);
    const { body, header, wireHash, treeSizes } = build(h);
    body.block.set(header, 0); // syntheticBody left HEADER_BYTES of room for it
    return {
      height: h,
      displayHash: displayHex(wireHash),
      prevDisplayHash: h === base ? "0".repeat(64) : displayHex(prevWire(h)),
      time: timeAt(h),
      raw: body.block,
      txids: body.wireTxids.map(displayHex),
      treeSizes,
    };
  }

  function record(height: number, wire: Buffer, treeSizes: DevTreeSizes): void {
    const i = height - base;
    while (i >= capacity) grow();
    wire.copy(hashes, 32 * i);
    sizes[3 * i] = treeSizes.sapling;
    sizes[3 * i + 1] = treeSizes.orchard;
    sizes[3 * i + 2] = treeSizes.ironwood;
    byPrefix.set(wire.readUIntLE(0, 6), height);
  }

  /** Records block h's hash and tree sizes (start-up hashing: no block bytes kept, no hex). */
  function hashNext(): void {
    const h = known++;
    if (isFixed(h)) {
      const b = o.fixed!.get(h);
      record(h, wireOf(b.displayHash), b.treeSizes);
    } else {
      const { wireHash, treeSizes } = build(h);
      record(h, wireHash, treeSizes);
    }
  }

  function ensure(h: number): void {
    while (known <= h) hashNext();
  }

  function forget(from: number): void {
    for (let h = from; h < known; h++) {
      const key = hashes.readUIntLE(32 * (h - base), 6);
      if (byPrefix.get(key) === h) byPrefix.delete(key);
    }
    known = Math.min(known, from);
  }

  function checkHeight(h: number): void {
    if (!Number.isSafeInteger(h) || h < base || h > tip)
      throw new RangeError(`height ${h} outside ${base}..${tip}`);
  }

  return {
    network: o.network,
    synthetic: o.fixed === undefined,
    base,
    tip: () => tip,
    hashed: () => known - 1,
    advance(budgetMs) {
      const end = performance.now() + budgetMs;
      while (known <= tip && performance.now() < end) hashNext();
      return known > tip;
    },
    hashAt(h) {
      checkHeight(h);
      ensure(h);
      return displayHex(hashes.subarray(32 * (h - base), 32 * (h - base + 1)));
    },
    heightOf(displayHash) {
      if (!/^[0-9a-f]{64}$/.test(displayHash)) return undefined;
      ensure(tip);
      const wire = wireOf(displayHash);
      const h = byPrefix.get(wire.readUIntLE(0, 6));
      if (h === undefined || h > tip || !wire.equals(hashes.subarray(32 * (h - base), 32 * (h - base + 1))))
        return undefined;
      return h;
    },
    block(h) {
      checkHeight(h);
      ensure(h - 1);
      const b = generate(h);
      if (known === h) {
        record(h, wireOf(b.displayHash), b.treeSizes);
        known++;
      }
      return b;
    },
    treeSizesAt(h) {
      checkHeight(h);
      ensure(h);
      return sizesBefore(h + 1);
    },
    mine(k, mempool = [], perBlock = Number.POSITIVE_INFINITY) {
      const per = Math.max(1, Number.isFinite(perBlock) ? Math.floor(perBlock) : mempool.length);
      const blocks = Math.max(k, Math.ceil(mempool.length / per));
      if (blocks === 0) return 0;
      if (!eraOf(tip + 1).sapling)
        throw new LightedgeError(
          "bad-request",
          "devnode.mine",
          `devnode: cannot mine at ${tip + 1}: the dev node builds no blocks before Sapling activation`,
        );
      const added = new Map<number, Uint8Array[]>();
      for (let i = 0; i * per < mempool.length; i++)
        added.set(tip + 1 + i, mempool.slice(i * per, (i + 1) * per));
      for (const [h, txs] of added) extras.set(h, txs);
      const from = tip + 1;
      tip += blocks;
      emit({ kind: "mine", from, to: tip, extras: [...added] });
      return blocks;
    },
    reorg(d) {
      const from = Math.max(base + 1, tip - d + 1);
      branches++;
      for (let h = from; h <= tip; h++) {
        branchOf.set(h, branches);
        extras.delete(h);
      }
      forget(from);
      emit({ kind: "reorg", from, to: tip, branch: branches });
    },
    eraAt: eraOf,
    subscribe(listener) {
      listeners.push(listener);
    },
  };
}

function wireOf(displayHash: string): Buffer {
  return Buffer.from(displayHash, "hex").reverse();
}

function addCounts(added: DevTreeSizes, raw: Uint8Array): void {
  const tx = parseTransaction(raw, { strictV6: false });
  added.sapling += tx.sapling.outputs.length;
  added.orchard += tx.orchard?.actions.length ?? 0;
  added.ironwood += tx.ironwood?.actions.length ?? 0;
}

/** Note commitments a raw block adds (Sapling outputs, Orchard and Ironwood actions). */
export function countAdded(raw: Uint8Array): DevTreeSizes {
  const added = { sapling: 0, orchard: 0, ironwood: 0 };
  for (const tx of parseBlock(raw, { strictV6: false }).txs) {
    added.sapling += tx.sapling.outputs.length;
    added.orchard += tx.orchard?.actions.length ?? 0;
    added.ironwood += tx.ironwood?.actions.length ?? 0;
  }
  return added;
}
