import { bigintToLeBytes, leBytesToBigint } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { type LegacyTree, parseFinalState, serializeFinalState } from "../../proto/treestate/legacy-tree.ts";
import {
  appendLeaves,
  EMPTY_FRONTIER,
  type Frontier,
  frontierFromLegacy,
  frontierRoot,
  frontierToLegacy,
} from "./frontier.ts";
import { hasherFor, NODE_MODULUS } from "./hashers.ts";
import type { TreePool } from "./merkle-hasher.ts";

export interface BlockNoteCommitments {
  /** Sapling output cmu, 32 bytes each as serialized (LE), in block order. */
  saplingCmus: Uint8Array[];
  /** Orchard action cmx, 32 bytes each as serialized (LE), in block order. */
  orchardCmxs: Uint8Array[];
  /** Ironwood action cmx (v6 `ironwoodActions`), 32 bytes each (LE), in block order; absent = none. */
  ironwoodCmxs?: Uint8Array[];
}

export interface TrackerSnapshot {
  /** Legacy trees; undefined while the pool is not active. */
  sapling?: LegacyTree;
  orchard?: LegacyTree;
  ironwood?: LegacyTree;
  /** `finalState` hex (zebrad style), "" while the pool is not active. */
  saplingTree: string;
  orchardTree: string;
  ironwoodTree: string;
  saplingSize: number;
  orchardSize: number;
  ironwoodSize: number;
}

export interface FrontierTracker {
  /** Appends one block's commitments (activating a pool on its first leaf). */
  appendBlock(commitments: BlockNoteCommitments): void;
  /** Marks a pool active (at its activation height) so its empty tree reads "000000". */
  activate(pool: TreePool): void;
  snapshot(): TrackerSnapshot;
  /** Roots as 32-byte LE field elements (Sapling RPC display order is the reverse). */
  roots(): { sapling?: Uint8Array; orchard?: Uint8Array; ironwood?: Uint8Array };
}

const POOLS: readonly TreePool[] = ["sapling", "orchard", "ironwood"];

function toLeaves(pool: TreePool, cms: readonly Uint8Array[]): bigint[] {
  return cms.map((cm) => {
    const v = leBytesToBigint(cm);
    if (cm.length !== 32 || v >= NODE_MODULUS[pool]) {
      throw new LightedgeError(
        "malformed",
        "trees.tracker",
        `${pool} note commitment is not a canonical field element`,
      );
    }
    return v;
  });
}

/**
 * Keeps the Sapling, Orchard and Ironwood frontiers while indexing: one batch of hashes per tree
 * level per block, at most one hash per leaf overall. `initial` takes `finalState` strings ("" =
 * inactive). Ironwood is hashed exactly as Orchard (hashers.ts; README.md here).
 */
export function createFrontierTracker(initial?: {
  sapling?: string;
  orchard?: string;
  ironwood?: string;
}): FrontierTracker {
  const state: Partial<Record<TreePool, Frontier>> = {};
  for (const pool of POOLS) {
    const fs = initial?.[pool];
    if (fs) state[pool] = frontierFromLegacy(hasherFor(pool), parseFinalState(fs), NODE_MODULUS[pool]);
  }
  const append = (pool: TreePool, cms: readonly Uint8Array[]) => {
    if (cms.length === 0) return;
    state[pool] = appendLeaves(hasherFor(pool), state[pool] ?? EMPTY_FRONTIER, toLeaves(pool, cms));
  };
  return {
    appendBlock(c) {
      append("sapling", c.saplingCmus);
      append("orchard", c.orchardCmxs);
      append("ironwood", c.ironwoodCmxs ?? []);
    },
    activate(pool) {
      state[pool] ??= EMPTY_FRONTIER;
    },
    snapshot() {
      const tree = (pool: TreePool) => (state[pool] ? frontierToLegacy(state[pool]) : undefined);
      const sapling = tree("sapling");
      const orchard = tree("orchard");
      const ironwood = tree("ironwood");
      return {
        sapling,
        orchard,
        ironwood,
        saplingTree: sapling ? serializeFinalState(sapling) : "",
        orchardTree: orchard ? serializeFinalState(orchard) : "",
        ironwoodTree: ironwood ? serializeFinalState(ironwood) : "",
        saplingSize: state.sapling?.size ?? 0,
        orchardSize: state.orchard?.size ?? 0,
        ironwoodSize: state.ironwood?.size ?? 0,
      };
    },
    roots() {
      const root = (pool: TreePool) => {
        const f = state[pool];
        return f ? bigintToLeBytes(frontierRoot(hasherFor(pool), f)) : undefined;
      };
      return { sapling: root("sapling"), orchard: root("orchard"), ironwood: root("ironwood") };
    },
  };
}
