import { equalBytes, toHex } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import type { SealedBlockInput } from "../../proto/range/index.ts";
import type { BlockHistory } from "../history/block-history.ts";

/**
 * A block as the indexer holds it: identity, chain metadata and each projection's protobuf bytes;
 * with node-free history on, also the node's raw bytes and what history needs of them
 * (origin/history), kept until the block is sealed. Blocks restored from the tail log have neither:
 * the sealer fetches them again.
 */
export type IndexedBlock = SealedBlockInput & { raw?: Uint8Array; history?: BlockHistory };

/**
 * The unfinalized tail in memory: consecutive blocks, each chaining to the one before by prevHash.
 * Sealed blocks leave it once the head points past them; a reorg cuts it back to the fork point.
 */
export interface Tail {
  /** Lowest and highest held heights; undefined when empty. */
  first(): IndexedBlock | undefined;
  last(): IndexedBlock | undefined;
  get(height: number): IndexedBlock | undefined;
  heightOfHash(wireHash: Uint8Array): number | undefined;
  /** Appends the next block; chain-break when it does not extend the last one. */
  append(block: IndexedBlock): void;
  /** Drops every block above `height` (reorg); returns how many were dropped. */
  truncateAbove(height: number): number;
  /** Drops every block at or below `height` (sealed and published). */
  dropThrough(height: number): void;
  /** Blocks `from..to` inclusive (all must be held). */
  slice(from: number, to: number): IndexedBlock[];
  size(): number;
}

const hashKey = toHex;

export function createTail(): Tail {
  let blocks: IndexedBlock[] = [];
  let base = 0; // height of blocks[0]
  const byHash = new Map<string, number>();

  const get = (height: number): IndexedBlock | undefined =>
    Number.isInteger(height) ? blocks[height - base] : undefined;

  return {
    first: () => blocks[0],
    last: () => blocks[blocks.length - 1],
    get,
    heightOfHash: (wireHash) => byHash.get(hashKey(wireHash)),
    append(block) {
      const last = blocks[blocks.length - 1];
      if (last !== undefined) {
        if (block.height !== last.height + 1 || !equalBytes(block.wirePrevHash, last.wireHash)) {
          throw new LightedgeError(
            "chain-break",
            "tail.append",
            `block ${block.height} does not extend tail tip ${last.height}`,
          );
        }
      } else {
        base = block.height;
      }
      blocks.push(block);
      byHash.set(hashKey(block.wireHash), block.height);
    },
    truncateAbove(height) {
      const keep = Math.max(0, Math.min(blocks.length, height - base + 1));
      const dropped = blocks.splice(keep);
      for (const block of dropped) byHash.delete(hashKey(block.wireHash));
      return dropped.length;
    },
    dropThrough(height) {
      const count = Math.max(0, Math.min(blocks.length, height - base + 1));
      if (count === 0) return;
      for (const block of blocks.slice(0, count)) byHash.delete(hashKey(block.wireHash));
      blocks = blocks.slice(count);
      base += count;
    },
    slice(from, to) {
      const out = blocks.slice(from - base, to - base + 1);
      if (out.length !== to - from + 1 || out[0]?.height !== from) {
        throw new LightedgeError("internal", "tail.slice", `tail does not hold ${from}..${to}`);
      }
      return out;
    },
    size: () => blocks.length,
  };
}
