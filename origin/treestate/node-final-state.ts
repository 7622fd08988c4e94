import type { PoolCommitments, ShieldedPool, TreeState, TreeStateSource } from "../node/ports.ts";

/** zcashd's skipHash points at the last block that changed the tree: one hop suffices; bound it anyway. */
const MAX_SKIP_HOPS = 8;

/**
 * A pool's `finalState` in a z_gettreestate answer ("" = no tree, or not given). zcashd leaves
 * finalState empty when the block did not change the tree and names the block that did in
 * `skipHash`; zebrad always fills it.
 */
export async function finalStateOf(
  node: TreeStateSource,
  state: TreeState | undefined,
  pool: ShieldedPool,
): Promise<string> {
  for (let hop = 0; state !== undefined; hop++) {
    const part: { commitments: PoolCommitments; skipHash?: string } | undefined = state[pool];
    if (part === undefined) return "";
    if (part.commitments.finalState) return part.commitments.finalState;
    if (!part.skipHash || hop >= MAX_SKIP_HOPS) return "";
    state = await node.treeState(part.skipHash);
  }
  return "";
}

/** A pool's `finalState` after `height` as the node reports it ("" = no tree). */
export async function nodeFinalState(
  node: TreeStateSource,
  height: number,
  pool: ShieldedPool,
): Promise<string> {
  return finalStateOf(node, await node.treeState(height), pool);
}
