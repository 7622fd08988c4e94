import { fromHex, toHex } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";

/**
 * The legacy `CommitmentTree` (zcashd's IncrementalMerkleTree) that `z_gettreestate` returns as
 * `finalState`: `left` and `right` are the newest one or two leaves, `parents[i]` the left sibling
 * at level i + 1 on the path of the newest leaf (present iff that bit of the leaf count is set).
 * Nodes are 32-byte little-endian field elements, exactly as serialized.
 */
export interface LegacyTree {
  left?: Uint8Array;
  right?: Uint8Array;
  parents: (Uint8Array | undefined)[];
}

/**
 * `zebrad` pads `parents` to 31 slots for any non-empty tree (incrementalmerkletree's
 * `CommitmentTree::from_frontier`, which both nodes also use for Orchard); `zcashd` writes Sapling
 * `parents` at minimal length (its C++ tree only grows the vector). Wallets parse both.
 */
export type FinalStateStyle = "zebrad" | "zcashd";

/** Tree depth 32: levels 1..31 can hold a parent. */
export const MAX_PARENTS = 31;
const NODE_BYTES = 32;
const WHERE = "treestate.finalState";

function fail(message: string): never {
  throw new LightedgeError("malformed", WHERE, `${WHERE}: ${message}`);
}

/** Parses a `finalState` hex string (either node's style). The empty string is not a tree. */
export function parseFinalState(hex: string): LegacyTree {
  const bytes = fromHex(hex, WHERE);
  let pos = 0;
  const optional = (): Uint8Array | undefined => {
    const flag = bytes[pos++];
    if (flag === 0) return undefined;
    if (flag !== 1) fail(`bad optional flag at byte ${pos - 1}`);
    if (pos + NODE_BYTES > bytes.length) fail("truncated node");
    const node = bytes.slice(pos, pos + NODE_BYTES);
    pos += NODE_BYTES;
    return node;
  };
  if (bytes.length < 3) fail("too short");
  const left = optional();
  const right = optional();
  const count = bytes[pos++];
  // A CompactSize ≥ 0xfd would mean > 252 parents; a depth-32 tree has at most 31.
  if (count === undefined || count > MAX_PARENTS) fail(`bad parents count ${count}`);
  const parents: (Uint8Array | undefined)[] = [];
  for (let i = 0; i < count; i++) {
    if (pos >= bytes.length) fail("truncated parents");
    parents.push(optional());
  }
  if (pos !== bytes.length) fail(`${bytes.length - pos} trailing bytes`);
  if (left === undefined && (right !== undefined || parents.some((p) => p !== undefined))) {
    fail("nodes present without a left leaf");
  }
  return trimParents({ left, right, parents });
}

/** Drops trailing empty parents (the canonical in-memory form). */
export function trimParents(tree: LegacyTree): LegacyTree {
  let end = tree.parents.length;
  while (end > 0 && tree.parents[end - 1] === undefined) end--;
  return { left: tree.left, right: tree.right, parents: tree.parents.slice(0, end) };
}

/** Number of leaves the tree holds; derivable from which slots are present. */
export function legacyTreeSize(tree: LegacyTree): number {
  let size = (tree.left ? 1 : 0) + (tree.right ? 1 : 0);
  const parents = tree.parents;
  for (let i = 0; i < parents.length; i++) if (parents[i]) size += 2 ** (i + 1);
  return size;
}

/** Serializes to `finalState` hex in the chosen node's style (default zebrad; see FinalStateStyle). */
export function serializeFinalState(tree: LegacyTree, style: FinalStateStyle = "zebrad"): string {
  const trimmed = trimParents(tree);
  const empty = trimmed.left === undefined;
  const slots = style === "zebrad" && !empty ? MAX_PARENTS : trimmed.parents.length;
  const parts: string[] = [];
  const optional = (n: Uint8Array | undefined) => parts.push(n ? `01${toHex(n)}` : "00");
  optional(trimmed.left);
  optional(trimmed.right);
  parts.push(slots.toString(16).padStart(2, "0"));
  for (let i = 0; i < slots; i++) optional(trimmed.parents[i]);
  return parts.join("");
}
