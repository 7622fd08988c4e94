import { LightedgeError } from "../errors.ts";
import { type LegacyTree, legacyTreeSize, MAX_PARENTS } from "./legacy-tree.ts";

/**
 * Compact binary frontier used in stored tree-state ranges: u32 LE leaf count, then the present
 * nodes in legacy order (left, right, parents by level), 32 bytes each. Which slots are present
 * follows from the count alone, so no flags are stored: ≤ 4 + 33 × 32 bytes.
 */
const NODE_BYTES = 32;
const WHERE = "treestate.frontier";

/** The legacy slots present for a tree of `size` leaves: leaves held, and a parents mask. */
export function slotsForSize(size: number): { leaves: number; parentMask: number[] } {
  if (size === 0) return { leaves: 0, parentMask: [] };
  const leaves = size % 2 === 0 ? 2 : 1;
  const rest = (size - leaves) / 2;
  const parentMask: number[] = [];
  for (let i = 0; i < MAX_PARENTS; i++) if (Math.floor(rest / 2 ** i) % 2 === 1) parentMask.push(i);
  return { leaves, parentMask };
}

/** Bytes `encodeCompactFrontier` writes for a tree of `size` leaves. */
export function compactFrontierLength(size: number): number {
  // Every stored size is a u32, so rest < 2³¹ and the slot count is a popcount: no arrays on the
  // tree-state encoder's and reader's per-block path. Anything else takes the general rule.
  if (!(Number.isInteger(size) && size > 0 && size <= 0xffff_ffff)) {
    const { leaves, parentMask } = slotsForSize(size);
    return 4 + (leaves + parentMask.length) * NODE_BYTES;
  }
  const leaves = size % 2 === 0 ? 2 : 1;
  return 4 + (leaves + popcount32((size - leaves) / 2)) * NODE_BYTES;
}

function popcount32(v: number): number {
  let x = v - ((v >>> 1) & 0x5555_5555);
  x = (x & 0x3333_3333) + ((x >>> 2) & 0x3333_3333);
  x = (x + (x >>> 4)) & 0x0f0f_0f0f;
  return Math.imul(x, 0x0101_0101) >>> 24;
}

export function encodeCompactFrontier(tree: LegacyTree): Uint8Array {
  const size = legacyTreeSize(tree);
  const out = new Uint8Array(compactFrontierLength(size));
  writeCompactFrontier(out, tree, size);
  return out;
}

/**
 * Writes `tree` (of `size` = legacyTreeSize leaves) into `region`, which is exactly
 * compactFrontierLength(size) zeroed bytes: the record encoder writes every pool into one buffer.
 */
export function writeCompactFrontier(region: Uint8Array, tree: LegacyTree, size: number): void {
  new DataView(region.buffer, region.byteOffset, region.byteLength).setUint32(0, size, true);
  let pos = putNode(region, 4, tree.left);
  pos = putNode(region, pos, tree.right);
  // An index loop visits holes as undefined, as a spread of `parents` does.
  for (let i = 0; i < tree.parents.length; i++) pos = putNode(region, pos, tree.parents[i]);
}

function putNode(region: Uint8Array, pos: number, node: Uint8Array | undefined): number {
  if (!node) return pos;
  region.set(node, pos);
  return pos + NODE_BYTES;
}

/** Decodes a compact frontier starting at `offset`; returns the tree and the next offset. */
export function decodeCompactFrontier(bytes: Uint8Array, offset: number): { tree: LegacyTree; next: number } {
  if (offset + 4 > bytes.length) throw new LightedgeError("corrupt", WHERE, `${WHERE}: truncated size`);
  const size = new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0, true);
  const end = offset + compactFrontierLength(size);
  if (end > bytes.length) throw new LightedgeError("corrupt", WHERE, `${WHERE}: truncated nodes`);
  let pos = offset + 4;
  const take = () => {
    const node = bytes.slice(pos, pos + NODE_BYTES);
    pos += NODE_BYTES;
    return node;
  };
  const { leaves, parentMask } = slotsForSize(size);
  const tree: LegacyTree = { parents: [] };
  if (leaves >= 1) tree.left = take();
  if (leaves === 2) tree.right = take();
  for (const i of parentMask) tree.parents[i] = take();
  // Fill holes so `parents` is a dense array of length highest-level + 1.
  for (let i = 0; i < tree.parents.length; i++) tree.parents[i] ??= undefined;
  return { tree, next: end };
}
