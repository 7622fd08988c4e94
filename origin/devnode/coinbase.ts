import { knownScripts } from "./address.ts";
import { bip34Height, NU63_BRANCH_ID, type TxShape } from "./tx-builder.ts";
import type { Era } from "./upgrades.ts";

/** Block subsidy the coinbase pays (post-second-halving mainnet value; any constant would do). */
export const COINBASE_VALUE = 156_250_000;
export const scripts = knownScripts();

/** Everything active (NU6.3): synthetic and regtest chains from height 1. */
export const ALL_POOLS: Era = {
  name: "NU6.3",
  branchId: NU63_BRANCH_ID,
  sapling: true,
  orchard: true,
  ironwood: true,
};

/**
 * The coinbase: BIP34 height, pays known address `height % 3`, transparent only, same on every
 * branch; v5 from NU5, v4 before.
 */
export function coinbaseShape(height: number, era: Era = ALL_POOLS): TxShape {
  return {
    version: era.orchard ? 5 : 4,
    branchId: era.branchId,
    vin: [
      {
        wirePrevTxid: new Uint8Array(32),
        index: 0xffffffff,
        script: Uint8Array.from([...bip34Height(height), 0x6c, 0x65]),
      },
    ],
    vout: [{ value: COINBASE_VALUE, script: scripts[height % scripts.length]! }],
    saplingSpends: 0,
    saplingOutputs: 0,
    orchardActions: 0,
    ironwoodActions: 0,
    lockTime: 0,
    expiryHeight: height,
  };
}
