import type { NodeState } from "./node-state.ts";
import type { Network } from "./types.ts";

const chainName: Record<Network, string> = { mainnet: "main", testnet: "test", regtest: "regtest" };

/** [branch id, name, mainnet, testnet] — zebra's activation heights (chain/README.md, ironwood.md). */
const upgrades: [string, string, number, number][] = [
  ["5ba81b19", "Overwinter", 347500, 207500],
  ["76b809bb", "Sapling", 419200, 280000],
  ["2bb40e60", "Blossom", 653600, 584000],
  ["f5b9230b", "Heartwood", 903000, 903800],
  ["e9ff75a6", "Canopy", 1046400, 1028500],
  ["c2d6d0b4", "NU5", 1687104, 1842420],
  ["c8e71055", "NU6", 2726400, 2976000],
  ["4dec4df0", "NU6.1", 3146400, 3536500],
  ["5437f330", "NU6.2", 3364600, 4052000],
  ["37a5165b", "NU6.3", 3428143, 4134000],
];

/** Activation height on this network; a synthetic/regtest chain activates everything at 1. */
function activation(network: Network, synthetic: boolean, u: (typeof upgrades)[number]): number {
  if (synthetic || network === "regtest") return 1;
  return network === "mainnet" ? u[2] : u[3];
}

function branchAt(state: NodeState, height: number): string {
  let id = "00000000";
  for (const u of upgrades)
    if (height >= activation(state.chain.network, state.chain.synthetic, u)) id = u[0];
  return id;
}

export function getBlockchainInfo(state: NodeState): Record<string, unknown> {
  const { chain } = state;
  const tip = state.tip();
  const up: Record<string, unknown> = {};
  for (const u of upgrades) {
    const h = activation(chain.network, chain.synthetic, u);
    up[u[0]] = { name: u[1], activationheight: h, status: tip >= h ? "active" : "pending" };
  }
  return {
    chain: chainName[chain.network],
    blocks: tip,
    headers: tip,
    difficulty: 1.0,
    verificationprogress:
      tip >= chain.tip() && state.behind === 0
        ? 1.0
        : (tip - chain.base) / Math.max(1, chain.tip() - chain.base),
    chainwork: 0,
    pruned: false,
    size_on_disk: 0,
    commitments: 0,
    bestblockhash: chain.hashAt(tip),
    estimatedheight: chain.tip() + state.behind,
    upgrades: up,
    consensus: { chaintip: branchAt(state, tip), nextblock: branchAt(state, tip + 1) },
  };
}

export function getInfo(state: NodeState): Record<string, unknown> {
  return {
    version: 100,
    build: "v0.1.0-lightedge-devnode",
    subversion: `/Zebra:0.1.0/lightedge-devnode${state.chain.synthetic ? "-synthetic" : ""}/`,
    protocolversion: 170140,
    blocks: state.tip(),
    connections: 0,
    difficulty: 1.0,
    testnet: state.chain.network !== "mainnet",
    paytxfee: 0.0,
    relayfee: 1e-6,
    errors: "no errors",
    errorstimestamp: new Date().toISOString(),
  };
}
