import type { ParsedTx, TreeSizes } from "./types.ts";

/**
 * Note commitments transactions append to each tree: one per Sapling output (cmu), per Orchard
 * action and per Ironwood action (cmx; ZIP 225, docs/ironwood.md). A block's tree sizes are its
 * parent's plus this, which is what `getblock 1` reports as `trees.*.size`.
 */
export function treeGrowth(txs: readonly ParsedTx[]): TreeSizes {
  const added = { sapling: 0, orchard: 0, ironwood: 0 };
  for (const tx of txs) {
    added.sapling += tx.sapling.outputs.length;
    added.orchard += tx.orchard?.actions.length ?? 0;
    added.ironwood += tx.ironwood?.actions.length ?? 0;
  }
  return added;
}

/** The tree sizes before transactions, from those after them (a block's parent's, from its own). */
export function treeSizesBefore(after: TreeSizes, txs: readonly ParsedTx[]): TreeSizes {
  const added = treeGrowth(txs);
  return {
    sapling: after.sapling - added.sapling,
    orchard: after.orchard - added.orchard,
    ironwood: after.ironwood - added.ironwood,
  };
}
