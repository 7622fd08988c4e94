import type { DevAddressIndex } from "./address-index.ts";
import type { BlockCache } from "./blocks-rpc.ts";
import type { DevChain } from "./types.ts";

/** Everything the JSON-RPC methods and the control API share. */
export interface NodeState {
  chain: DevChain;
  blocks: BlockCache;
  addresses: DevAddressIndex;
  /** Display txid → raw bytes, in arrival order. */
  mempool: Map<string, Uint8Array>;
  /** Display txid → height of recently served/mined blocks (bounded). */
  txHeights: Map<string, number>;
  /** Extra blocks added to estimatedheight (control: pretend the node is still syncing). */
  behind: number;
  /** Served tip: the chain tip once hashing has caught up (see chain.ts). */
  tip(): number;
}

const txIndexLimit = 200_000;

export function rememberTxids(state: NodeState, height: number, txids: string[]): void {
  for (const t of txids) {
    state.txHeights.delete(t);
    state.txHeights.set(t, height);
  }
  while (state.txHeights.size > txIndexLimit) state.txHeights.delete(state.txHeights.keys().next().value!);
}
