import type { NodeState } from "./node-state.ts";
import type { Network } from "./types.ts";
import { activationHeight, eraAt, UPGRADES } from "./upgrades.ts";

const chainName: Record<Network, string> = { mainnet: "main", testnet: "test", regtest: "regtest" };

function branchAt(state: NodeState, height: number): string {
  return eraAt(state.chain.network, state.chain.synthetic, height).branchId.toString(16).padStart(8, "0");
}

export function getBlockchainInfo(state: NodeState): Record<string, unknown> {
  const { chain } = state;
  const tip = state.tip();
  const up: Record<string, unknown> = {};
  for (const u of UPGRADES) {
    const h = activationHeight(chain.network, chain.synthetic, u);
    up[u.id] = { name: u.name, activationheight: h, status: tip >= h ? "active" : "pending" };
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
