import { LightedgeError } from "../../proto/errors.ts";
import { ALL_POOLS, type PoolSet, SHIELDED_POOLS } from "../../proto/pools.ts";
import type { CompactOptions } from "./compact.ts";
import { type Alloc, encodeBlock } from "./encode-block.ts";
import type { Shape } from "./encode-shape.ts";
import type { ParsedBlock, TreeSizes } from "./types.ts";

/** The three stored projections of a block, as canonical unframed CompactBlock protobuf bytes. */
export interface BlockProjections {
  /** GetBlock: every tx, every pool, tree sizes. */
  full: Uint8Array;
  /** GetBlockRange with empty poolTypes (Sapling + Orchard + Ironwood; txs left empty dropped). */
  shielded: Uint8Array;
  /**
   * GetBlockRangeNullifiers with empty poolTypes: the shielded projection pruned to nullifiers,
   * tree sizes zeroed (chainMetadata present, empty). GetBlockNullifiers differs (it keeps every
   * tx): derive it with `nullifiersOnly` from "full".
   */
  nullifiers: Uint8Array;
}

export const FULL_SHAPE: Shape = Object.freeze({ pools: ALL_POOLS, nullifiers: false, dropEmpty: false });
export const SHIELDED_SHAPE: Shape = Object.freeze({
  pools: SHIELDED_POOLS,
  nullifiers: false,
  dropEmpty: true,
});
export const NULLIFIERS_SHAPE: Shape = Object.freeze({
  pools: SHIELDED_POOLS,
  nullifiers: true,
  dropEmpty: true,
});

/** Tree sizes are uint32 in ChainMetadata; anything else is a caller bug worth a clear error. */
export function checkTreeSizes(sizes: TreeSizes | undefined): void {
  if (sizes === undefined) return;
  for (const v of [sizes.sapling, sizes.orchard, sizes.ironwood]) {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) {
      throw new LightedgeError("bad-request", "chain-project", `tree size ${v} is not a uint32`);
    }
  }
}

/**
 * The indexer's hot path: all three stored projections, encoded directly from the parse. `alloc`
 * as encodeBlock takes it (each projection gets a fresh buffer by default).
 */
export function projectBlock(block: ParsedBlock, treeSizes?: TreeSizes, alloc?: Alloc): BlockProjections {
  checkTreeSizes(treeSizes);
  return {
    full: encodeBlock(block, FULL_SHAPE, treeSizes, false, alloc),
    shielded: encodeBlock(block, SHIELDED_SHAPE, treeSizes, false, alloc),
    nullifiers: encodeBlock(block, NULLIFIERS_SHAPE, treeSizes, false, alloc),
  };
}

/** Shape for a `toCompactBlock`-style projection request. */
export function shapeFor(projection: "full" | "nullifiers" | PoolSet, nullifiers = false): Shape {
  if (projection === "nullifiers") return NULLIFIERS_SHAPE;
  if (projection === "full") return nullifiers ? { ...FULL_SHAPE, nullifiers } : FULL_SHAPE;
  return { pools: projection, nullifiers, dropEmpty: true };
}

/** Bytes of `toBinary(CompactBlockSchema, toCompactBlock(block, options))`, without the messages. */
export function compactBlockBytes(block: ParsedBlock, options: CompactOptions): Uint8Array {
  checkTreeSizes(options.treeSizes);
  return encodeBlock(
    block,
    shapeFor(options.projection, options.nullifiers),
    options.treeSizes,
    options.zeroTxids,
  );
}
