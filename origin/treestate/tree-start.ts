import type { TreeStateView } from "../../proto/treestate/index.ts";
import type { NodeInfo, TreeStateSource } from "../node/ports.ts";
import { finalStateOf } from "./node-final-state.ts";
import type { TreeStateStart } from "./producer.ts";

/**
 * Consensus branch ids (ZIP 200 registry) of the upgrades that start the Sapling, Orchard (NU5) and
 * Ironwood (NU6.3, ZIP 258; docs/ironwood.md) trees.
 */
const SAPLING_BRANCH = "76b809bb";
const NU5_BRANCH = "c2d6d0b4";
const NU6_3_BRANCH = "37a5165b";

export type TreeStartSource = "genesis" | "store" | "before-activation" | "node";

export interface TreeStartOptions {
  /** The producer starts after this height: the sealed tip, or the first indexed height − 1. */
  height: number;
  /** The stored tree state after a height (undefined when that range has no object). */
  stored(height: number): Promise<TreeStateView | undefined>;
  activations: TreeActivations;
  /** The node's z_gettreestate frontier at `height`: the start when nothing cheaper applies. */
  node?: TreeStateSource;
}

export interface TreeActivations {
  sapling?: number;
  orchard?: number;
  ironwood?: number;
}

/** Activation heights of the three trees from getblockchaininfo's upgrade list. */
export function treeActivations(info: NodeInfo): TreeActivations {
  const at = (branch: string) => info.upgrades.find((u) => u.branchId === branch)?.activationHeight;
  return { sapling: at(SAPLING_BRANCH), orchard: at(NU5_BRANCH), ironwood: at(NU6_3_BRANCH) };
}

/**
 * Where the tip-following producer starts, cheapest trustworthy source first: nothing before
 * genesis; our own stored object at the sealed tip; empty trees below every activation height
 * (no pool can have a leaf there by consensus); the node's z_gettreestate at that height. Undefined
 * when none applies (the origin then answers from the node until `lightedge backfill-trees` covers
 * it).
 */
export async function resolveTreeStart(
  o: TreeStartOptions,
): Promise<{ start: TreeStateStart; source: TreeStartSource } | undefined> {
  const { height } = o;
  if (height < 0) return { start: { height: -1, sapling: "", orchard: "", ironwood: "" }, source: "genesis" };
  const stored = await o.stored(height);
  if (stored !== undefined)
    return {
      start: {
        height,
        sapling: stored.saplingTree,
        orchard: stored.orchardTree,
        ironwood: stored.ironwoodTree,
      },
      source: "store",
    };
  if (o.node === undefined) return undefined;
  const before = (a: number | undefined) => a !== undefined && height < a;
  const { sapling: s, orchard: n, ironwood: i } = o.activations;
  if (before(s) && before(n) && (i === undefined || before(i)))
    return { start: { height, sapling: "", orchard: "", ironwood: "" }, source: "before-activation" };
  const node = o.node;
  const state = await node.treeState(height);
  const [sapling, orchard, ironwood] = await Promise.all(
    (["sapling", "orchard", "ironwood"] as const).map((pool) =>
      finalStateOf((h) => node.treeState(h), state, pool),
    ),
  );
  return { start: { height, sapling: sapling!, orchard: orchard!, ironwood: ironwood! }, source: "node" };
}
