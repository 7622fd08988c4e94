import type { PoolCommitments, ShieldedPool, TreeState } from "../node/ports.ts";

/** zcashd's skipHash points at the last block that changed the tree: one hop suffices; bound it anyway. */
const MAX_SKIP_HOPS = 8;

/**
 * A pool's `finalState` in a z_gettreestate answer ("" = no tree, or not given). zcashd leaves
 * finalState empty when the block did not change the tree and names the block that did in
 * `skipHash` (fetched with `load`); zebrad always fills it.
 */
export async function finalStateOf(
  load: (hash: string) => Promise<TreeState>,
  state: TreeState | undefined,
  pool: ShieldedPool,
): Promise<string> {
  for (let hop = 0; state !== undefined; hop++) {
    const part: { commitments: PoolCommitments; skipHash?: string } | undefined = state[pool];
    if (part === undefined) return "";
    if (part.commitments.finalState) return part.commitments.finalState;
    if (!part.skipHash || hop >= MAX_SKIP_HOPS) return "";
    state = await load(part.skipHash);
  }
  return "";
}
