/**
 * The one table of network names, shared by origin and edge: lightedge's names (store keys,
 * `--network`) and the chain names it reports (`GetLightdInfo.chainName`, `TreeState.network`).
 */

/** lightedge's network names. */
export type NetworkName = "mainnet" | "testnet" | "regtest";

/**
 * The chain names lightedge reports: zcashd's names for what the chain *is* (lightwalletd passes
 * the node's `getblockchaininfo.chain` through), so a zebrad on Regtest, which calls itself
 * "test", is still "regtest" here (the network is known from the genesis block).
 */
export const CHAIN_NAMES: Readonly<Record<NetworkName, string>> = Object.freeze({
  mainnet: "main",
  testnet: "test",
  regtest: "regtest",
});

/** The chain name of a network named in a store (any valid key segment); unknown names pass through. */
export function chainNameOf(network: string): string {
  return Object.hasOwn(CHAIN_NAMES, network) ? CHAIN_NAMES[network as NetworkName] : network;
}
