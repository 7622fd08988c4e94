import { LightedgeError } from "../errors.ts";
import { FORMAT_VERSION, rangeFolder, rangeIndexName } from "../range/keys.ts";

/**
 * Keys of the tree-state objects, next to the sealed ranges they describe (proto/range/keys.ts).
 * `.bin` for the same reason as the range objects: Cloudflare's CDN caches BIN files by default.
 */

/** `v1/<network>/r<size>/<index>.trees.bin`: the tree states after every block of range `index`. */
export function treeStateKey(network: string, rangeSize: number, index: number): string {
  if (!Number.isSafeInteger(index) || index < 0) {
    throw new LightedgeError("bad-request", "treestate-keys", `invalid range index ${index}`);
  }
  return `${rangeFolder(network, rangeSize)}${rangeIndexName(index)}.trees.bin`;
}

/** Subtree roots per stored chunk (a chunk object holds roots chunk × 256 … chunk × 256 + count − 1). */
export const SUBTREE_CHUNK = 256;

/**
 * `v1/<network>/subtrees/<pool>/<chunk>-<count>.bin`. A chunk object never changes: a chunk that
 * grows is written under a new key (its count), and a reader derives the count it needs from the
 * tree size at the sealed tip (completed subtrees = ⌊size / 2¹⁶⌋), so it never lists.
 */
export function subtreeChunkKey(network: string, pool: string, chunk: number, count: number): string {
  if (!/^[a-z]{1,16}$/.test(pool)) throw new LightedgeError("bad-request", "treestate-keys", "invalid pool");
  if (
    !Number.isSafeInteger(chunk) ||
    chunk < 0 ||
    !Number.isInteger(count) ||
    count < 1 ||
    count > SUBTREE_CHUNK
  ) {
    throw new LightedgeError("bad-request", "treestate-keys", `invalid subtree chunk ${chunk}/${count}`);
  }
  rangeFolder(network, 1); // validates the network name
  return `v${FORMAT_VERSION}/${network}/subtrees/${pool}/${String(chunk).padStart(6, "0")}-${String(count).padStart(3, "0")}.bin`;
}
