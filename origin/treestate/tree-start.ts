import type { TreeStateView } from "../../proto/treestate/index.ts";
import type { NodeInfo, TreeStateSource } from "../node/ports.ts";
import { nodeFinalState } from "./node-final-state.ts";
import type { TreeStateStart } from "./producer.ts";

/** Consensus branch ids (ZIP 200 registry) of the upgrades that start the Sapling and Orchard trees. */
const SAPLING_BRANCH = "76b809bb";
const NU5_BRANCH = "c2d6d0b4";

export type TreeStartSource = "genesis" | "store" | "before-activation" | "node";

export interface TreeStartOptions {
  /** The producer starts after this height: the sealed tip, or the first indexed height − 1. */
  height: number;
  /** The stored tree state after a height (undefined when that range has no object). */
  stored(height: number): Promise<TreeStateView | undefined>;
  activations: { sapling?: number; orchard?: number };
  /**
   * The node, when its z_gettreestate can be trusted. A synthetic dev chain's is a placeholder
   * (origin/devnode/tree-rpc.ts), and its blocks carry leaves before "activation": there only the
   * genesis and stored frontiers are valid starts.
   */
  node?: TreeStateSource;
}

/** Activation heights of the Sapling and Orchard trees from getblockchaininfo's upgrade list. */
export function treeActivations(info: NodeInfo): { sapling?: number; orchard?: number } {
  const at = (branch: string) => info.upgrades.find((u) => u.branchId === branch)?.activationHeight;
  return { sapling: at(SAPLING_BRANCH), orchard: at(NU5_BRANCH) };
}

/**
 * Where the tip-following producer starts, cheapest trustworthy source first: nothing before
 * genesis; our own stored object at the sealed tip; empty trees below both activation heights
 * (no pool can have a leaf there by consensus); the node's z_gettreestate. Undefined when none
 * applies (the origin then answers from the node until `lightedge backfill-trees` covers it).
 */
export async function resolveTreeStart(
  o: TreeStartOptions,
): Promise<{ start: TreeStateStart; source: TreeStartSource } | undefined> {
  const { height } = o;
  if (height < 0) return { start: { height: -1, sapling: "", orchard: "" }, source: "genesis" };
  const stored = await o.stored(height);
  if (stored !== undefined)
    return { start: { height, sapling: stored.saplingTree, orchard: stored.orchardTree }, source: "store" };
  if (o.node === undefined) return undefined;
  const before = (a: number | undefined) => a !== undefined && height < a;
  if (before(o.activations.sapling) && before(o.activations.orchard))
    return { start: { height, sapling: "", orchard: "" }, source: "before-activation" };
  const [sapling, orchard] = await Promise.all([
    nodeFinalState(o.node, height, "sapling"),
    nodeFinalState(o.node, height, "orchard"),
  ]);
  return { start: { height, sapling, orchard }, source: "node" };
}
