import type { Network } from "./types.ts";

/**
 * Network upgrades with zebra's activation heights (test/corpus/chain/README.md, ironwood.md) and
 * what each allows in a block, so that blocks the dev node mines on top of a corpus run follow
 * that height's consensus rules (protocol spec §7.1 "Transaction Encoding and Consensus"; ZIP 225
 * v5 from NU5; ZIP 229 v6 and the Ironwood pool from NU6.3). A synthetic or regtest chain
 * activates everything at height 1, as zebrad's regtest does by default.
 */
export interface Upgrade {
  /** Consensus branch id, as in getblockchaininfo (hex, big-endian). */
  id: string;
  name: string;
  mainnet: number;
  testnet: number;
}

export const UPGRADES: readonly Upgrade[] = [
  { id: "5ba81b19", name: "Overwinter", mainnet: 347500, testnet: 207500 },
  { id: "76b809bb", name: "Sapling", mainnet: 419200, testnet: 280000 },
  { id: "2bb40e60", name: "Blossom", mainnet: 653600, testnet: 584000 },
  { id: "f5b9230b", name: "Heartwood", mainnet: 903000, testnet: 903800 },
  { id: "e9ff75a6", name: "Canopy", mainnet: 1046400, testnet: 1028500 },
  { id: "c2d6d0b4", name: "NU5", mainnet: 1687104, testnet: 1842420 },
  { id: "c8e71055", name: "NU6", mainnet: 2726400, testnet: 2976000 },
  { id: "4dec4df0", name: "NU6.1", mainnet: 3146400, testnet: 3536500 },
  { id: "5437f330", name: "NU6.2", mainnet: 3364600, testnet: 4052000 },
  { id: "37a5165b", name: "NU6.3", mainnet: 3428143, testnet: 4134000 },
];

/** Activation height on this chain; a synthetic/regtest chain activates everything at 1. */
export function activationHeight(network: Network, synthetic: boolean, u: Upgrade): number {
  if (synthetic || network === "regtest") return 1;
  return network === "mainnet" ? u.mainnet : u.testnet;
}

const byName = (name: string) => UPGRADES.find((u) => u.name === name)!;

/** First height of each shielded pool's note commitment tree (Sapling, NU5 Orchard, NU6.3 Ironwood). */
export function poolActivations(network: Network, synthetic: boolean) {
  return {
    sapling: activationHeight(network, synthetic, byName("Sapling")),
    orchard: activationHeight(network, synthetic, byName("NU5")),
    ironwood: activationHeight(network, synthetic, byName("NU6.3")),
  };
}

/** What a block at some height may contain. */
export interface Era {
  /** The upgrade in force ("" before Overwinter). */
  name: string;
  /** Consensus branch id (0 before Overwinter). */
  branchId: number;
  /** v4 transactions with Sapling bundles (Sapling onwards). */
  sapling: boolean;
  /** v5 transactions and the Orchard pool (NU5 onwards). */
  orchard: boolean;
  /** v6 transactions and the Ironwood pool (NU6.3 onwards). */
  ironwood: boolean;
}

export function eraAt(network: Network, synthetic: boolean, height: number): Era {
  let current: Upgrade | undefined;
  for (const u of UPGRADES) if (height >= activationHeight(network, synthetic, u)) current = u;
  const active = (name: string) => height >= activationHeight(network, synthetic, byName(name));
  return {
    name: current?.name ?? "",
    branchId: current ? Number.parseInt(current.id, 16) : 0,
    sapling: active("Sapling"),
    orchard: active("NU5"),
    ironwood: active("NU6.3"),
  };
}

/**
 * Why a transaction cannot go into a block at `height` (undefined: it can). Checks what the
 * protocol fixes by height: the version (v4 from Sapling, v5 from NU5, v6 from NU6.3; nothing older
 * once Sapling is active) and, for v5/v6, the consensus branch id of that height (ZIP 225/229).
 */
export function txNotValidAt(
  era: Era,
  tx: { version: number; overwintered: boolean; consensusBranchId: number },
  /** Also accept the branch id of any upgrade that allows the version (synthetic chains: mempool.ts). */
  anyBranch = false,
): string | undefined {
  const where = `a block of the ${era.name || "pre-Overwinter"} era`;
  if (!era.sapling) return `the dev node does not build blocks before Sapling (${where})`;
  const v = tx.version;
  if (!tx.overwintered || v < 4) return `transaction version ${v} is not valid in ${where}`;
  if (v === 5 && !era.orchard) return `v5 transactions are not valid before NU5 (${where})`;
  if (v === 6 && !era.ironwood) return `v6 transactions are not valid before NU6.3 (${where})`;
  if (v > 6) return `transaction version ${v} is unknown`;
  const allowed = (u: Upgrade) => UPGRADES.indexOf(u) >= UPGRADES.indexOf(byName(v === 6 ? "NU6.3" : "NU5"));
  const ok = anyBranch
    ? UPGRADES.some((u) => allowed(u) && Number.parseInt(u.id, 16) === tx.consensusBranchId)
    : tx.consensusBranchId === era.branchId;
  if (v >= 5 && !ok)
    return `consensus branch id ${hex8(tx.consensusBranchId)} is not ${era.name}'s ${hex8(era.branchId)}`;
  return undefined;
}

const hex8 = (n: number) => (n >>> 0).toString(16).padStart(8, "0");
