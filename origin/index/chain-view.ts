/**
 * The read side of the indexer: what the origin server (and anything else in-process) uses to
 * answer block RPCs. Heights at or below `sealedTip()` come from sealed ranges in the store;
 * heights above come from the in-memory tail. Every stream checks prevHash continuity across
 * blocks and across the seam, and throws `chain-break` when a reorg cuts through it (protocol.md:
 * a prevHash discontinuity is ABORTED).
 *
 * Byte order: every hash here is a `wireHash` (internal order, as CompactBlock.hash carries it).
 */
import type { Projection } from "../../proto/range/keys.ts";

export type { Projection };

/** Note commitment tree sizes after a block (CompactBlock.chainMetadata). */
export interface BlockTreeSizes {
  sapling: number;
  orchard: number;
  ironwood: number;
}

/** The newest block served. */
export interface TipInfo {
  height: number;
  wireHash: Uint8Array;
  /** Block header time (Unix seconds). */
  time: number;
}

/** Per-block metadata (from the tail or a sealed range's metadata object). */
export interface BlockMeta {
  height: number;
  wireHash: Uint8Array;
  prevWireHash: Uint8Array;
  time: number;
  /** Known for tail blocks; sealed ranges may not store them (then undefined). */
  treeSizes?: BlockTreeSizes;
}

export interface BlockFramesOptions {
  /** Stops the stream early (client went away). */
  signal?: AbortSignal;
  /**
   * `blockFrames` may yield consecutive sealed frames of an ascending stream together: one chunk of
   * whole frames per ranged read, as stored. For a writer that needs only the bytes (the fast
   * path), a yield per range instead of per block: an async generator's yield is an allocation and
   * a promise turn, ≈ 1,000 of them per range otherwise.
   */
  runs?: boolean;
  /**
   * With `runs`: the buffer each sealed run is read into, given its length (the fast path's
   * BufferPool, origin/store/buffer-pool.ts). Each such run is yielded once, whole, as a view of
   * that buffer, and the view reads it no more: the consumer owns it from the yield on.
   */
  into?(length: number): Uint8Array;
}

/** Where the served chain is. */
export interface ChainTip {
  /** The newest block held; undefined until the first block is indexed or loaded. */
  tip(): TipInfo | undefined;
  /**
   * Why the tail is withheld, or undefined: a reorg reached sealed ranges, so the tail is on an
   * abandoned branch. Meanwhile heights above `sealedTip()` answer Unavailable with this reason
   * and the tip must not be advertised (GetLatestBlock, GetLightdInfo answer Unavailable); sealed
   * heights are still served.
   */
  halted?(): string | undefined;
  /** Highest height held in sealed ranges (per the store's head); -1 when nothing is sealed. */
  sealedTip(): number;
  /** Lowest height served (the indexer's start height); blocks below are not-found. */
  floor(): number;
  /** Called after every tip change (new block or reorg); returns an unsubscribe function. */
  onTip(listener: (tip: TipInfo) => void): () => void;
}

/** One served block of a projection: identity plus its ready frame (flag + length + protobuf). */
export interface ChainBlock {
  height: number;
  wireHash: Uint8Array;
  wirePrevHash: Uint8Array;
  frame: Uint8Array;
}

/** Block contents. */
export interface ChainBlocks {
  /**
   * Like `blockFrames`, one block at a time with its identity (for pool filtering and GetBlock).
   * Same order, errors and continuity checks.
   */
  blocks(
    projection: Projection,
    from: number,
    to: number,
    options?: BlockFramesOptions,
  ): AsyncIterable<ChainBlock>;
  /**
   * Framed CompactBlocks (proto/frame.ts: flag 0 + 4-byte BE length + protobuf) of `projection`,
   * heights `from..to` inclusive: ascending when from ≤ to, descending otherwise (LWD PR#355).
   * Sealed heights come as the stored frames, byte for byte. Throws (before the first frame when
   * it can tell): `above-tip` when a height is above `tip()`, `not-found` below `floor()`,
   * `chain-break` when consecutive blocks do not chain (reorg mid-stream), `corrupt` for a stored
   * object that fails its checks, `unavailable` when the store cannot be read.
   */
  blockFrames(
    projection: Projection,
    from: number,
    to: number,
    options?: BlockFramesOptions,
  ): AsyncIterable<Uint8Array>;
  /** Metadata of the served block at `height`, or undefined outside floor()..tip(). */
  blockMeta(height: number): Promise<BlockMeta | undefined>;
  /** Height of the served block with this wire hash, or undefined when it is not on the served chain. */
  heightOfHash(wireHash: Uint8Array): Promise<number | undefined>;
}

/** Everything the server reads from the indexer. */
export interface ChainView extends ChainTip, ChainBlocks {}
