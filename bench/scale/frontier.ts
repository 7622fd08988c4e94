import { createHash } from "node:crypto";
import { type LegacyTree, MAX_PARENTS } from "../../proto/treestate/index.ts";

/**
 * Synthetic frontier of a tree of `size` leaves: exactly the slots a real legacy tree of that size
 * has (compact-frontier.ts `slotsForSize`; frontier.test.ts holds them to it), each node a
 * canonical field element that is a pure function of (seed, pool, level, index) — so a node stays
 * the same until its subtree changes, as in a real tree, and consecutive blocks without new leaves
 * share one stored record.
 *
 * Node values are a 32-bit mixing hash (MurmurHash3's rounds and finaliser) of the pool's seed key
 * and the node's position, one word at a time: synthetic either way (not Merkle nodes), and ≈ 30×
 * cheaper than a SHA-256 call per node, which was a fifth of the generator's CPU in the spam era.
 * The maker keeps the last tree (a block without new leaves gets the very same object, which the
 * tree-state encoder then neither re-encodes nor compares) and the last node per level (sizes
 * grow within a range, so a level's node changes only when its subtree fills).
 */
export function frontierMaker(seed: string, pool: string): (size: number) => LegacyTree {
  const key = createHash("sha256").update(`lightedge-scale-tree|${seed}|${pool}`).digest().readInt32LE(0);
  const lastIndex = new Float64Array(MAX_PARENTS + 1).fill(-1);
  const lastNode: Uint8Array[] = [];
  const node = (level: number, index: number): Uint8Array => {
    if (lastIndex[level] === index) return lastNode[level]!;
    const v = nodeValue(key, level, index);
    lastIndex[level] = index;
    lastNode[level] = v;
    return v;
  };
  let lastSize = -1;
  let lastTree: LegacyTree = { parents: [] };
  const make = (size: number): LegacyTree => {
    if (!Number.isInteger(size) || size < 0 || size > 0xffff_ffff) throw new Error(`tree size ${size}`);
    if (size === 0) return { parents: [] };
    // The slots of compact-frontier.ts `slotsForSize`, from the bits of `rest` (< 2³¹) directly:
    // parent i is present iff bit i is set, and it is node `rest >>> i` of level i + 1.
    const leaves = size % 2 === 0 ? 2 : 1;
    const rest = (size - leaves) / 2;
    const parents: (Uint8Array | undefined)[] = [];
    for (let level = 0; level < MAX_PARENTS && rest >>> level !== 0; level++)
      parents.push((rest >>> level) & 1 ? node(level + 1, rest >>> level) : undefined);
    // Leaves (level 0) alternate between two indices, so they are not memoised: at most two per
    // new size.
    return {
      left: nodeValue(key, 0, leaves === 2 ? size - 2 : size - 1),
      right: leaves === 2 ? nodeValue(key, 0, size - 1) : undefined,
      parents,
    };
  };
  return (size: number): LegacyTree => {
    if (size !== lastSize) {
      lastTree = make(size);
      lastSize = size;
    }
    return lastTree;
  };
}

/** 32 bytes from (key, level, index), top two bits of the last byte cleared (< 2²⁵⁴: canonical). */
export function nodeValue(key: number, level: number, index: number): Uint8Array {
  const out = new Uint8Array(32);
  let h = mix(key, level);
  h = mix(h, index >>> 0);
  h = mix(h, Math.floor(index / 2 ** 32));
  for (let w = 0; w < 8; w++) {
    const v = fmix(mix(h, w));
    out[4 * w] = v;
    out[4 * w + 1] = v >>> 8;
    out[4 * w + 2] = v >>> 16;
    out[4 * w + 3] = v >>> 24;
  }
  out[31]! &= 0x3f;
  return out;
}

/** One MurmurHash3 (x86, 32-bit) block round. */
function mix(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** MurmurHash3's finaliser: every input bit reaches every output bit. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
