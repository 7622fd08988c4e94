import { createHash } from "node:crypto";
import type { NodeState } from "./node-state.ts";
import { faults } from "./rpc-error.ts";

/**
 * z_gettreestate / z_getsubtreesbyindex for dev chains. The dev node does not hash note
 * commitment trees (that needs Sinsemilla/Pedersen), so tree states have the real *shape* — a
 * legacy CommitmentTree frontier whose occupancy matches the tree size exactly — filled with
 * deterministic dummy node values; roots are dummies too. Sizes agree with getblock's trees.
 */

const SUBTREE_LEAVES = 2 ** 16; // ZIP 225/zebra subtree height 16

function dummyNode(...parts: (string | number)[]): Buffer {
  const b = createHash("sha256").update(parts.join("|")).digest();
  b[31]! &= 0x3f; // a canonical field element
  return b;
}

/** Legacy CommitmentTree encoding of a tree with `size` leaves: Option left, Option right, parents. */
export function frontierHex(pool: string, height: number, size: number): string {
  if (size === 0) return "000000";
  const parts: Buffer[] = [];
  const some = (v: Buffer) => parts.push(Buffer.from([1]), v);
  const none = () => parts.push(Buffer.from([0]));
  const even = size % 2 === 0;
  some(dummyNode(pool, height, "left"));
  if (even) some(dummyNode(pool, height, "right"));
  else none();
  const covered = size - (even ? 2 : 1);
  const bits = covered.toString(2).length;
  const parents: (Buffer | null)[] = [];
  for (let i = 0; i + 1 < bits + 1; i++)
    parents.push(Math.floor(covered / 2 ** (i + 1)) % 2 === 1 ? dummyNode(pool, height, i) : null);
  while (parents.length > 0 && parents[parents.length - 1] === null) parents.pop();
  parts.push(Buffer.from([parents.length]));
  for (const p of parents) p ? some(p) : none();
  return Buffer.concat(parts).toString("hex");
}

export function treeState(state: NodeState, height: number): Record<string, unknown> {
  const sizes = state.chain.treeSizesAt(height);
  const pool = (name: "sapling" | "orchard" | "ironwood", size: number) =>
    size === 0 && name !== "sapling"
      ? { commitments: {} }
      : {
          commitments: {
            finalRoot: dummyNode(name, height, "root").reverse().toString("hex"),
            finalState: frontierHex(name, height, size),
          },
        };
  const out: Record<string, unknown> = {
    hash: state.chain.hashAt(height),
    height,
    time: state.blocks.get(state.chain, height).time,
    sapling: pool("sapling", sizes.sapling),
    orchard: pool("orchard", sizes.orchard),
  };
  if (sizes.ironwood > 0) out.ironwood = pool("ironwood", sizes.ironwood);
  return out;
}

export function subtrees(
  state: NodeState,
  pool: unknown,
  start: unknown,
  limit: unknown,
): Record<string, unknown> {
  if (pool !== "sapling" && pool !== "orchard" && pool !== "ironwood")
    throw faults.invalidParams('invalid pool name, must be one of: "sapling", "orchard", "ironwood"');
  if (typeof start !== "number" || !Number.isSafeInteger(start) || start < 0)
    throw faults.invalidParams("invalid start index");
  const tip = state.tip();
  const { chain } = state;
  const have = Math.floor(chain.treeSizesAt(tip)[pool] / SUBTREE_LEAVES);
  const end = Math.min(have, typeof limit === "number" && limit > 0 ? start + limit : have);
  const list = [];
  for (let i = start; i < end; i++)
    list.push({
      root: dummyNode(pool, "subtree", i).toString("hex"),
      end_height: completingHeight(state, pool, (i + 1) * SUBTREE_LEAVES),
    });
  return { pool, start_index: start, subtrees: list };
}

/** First height whose tree size reaches `leaves` (binary search over the size columns). */
function completingHeight(
  state: NodeState,
  pool: "sapling" | "orchard" | "ironwood",
  leaves: number,
): number {
  let lo = state.chain.base;
  let hi = state.tip();
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (state.chain.treeSizesAt(mid)[pool] >= leaves) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
