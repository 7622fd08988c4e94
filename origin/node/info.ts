import { CHAIN_NAMES } from "../../proto/networks.ts";
import { blockHashAt } from "./blocks.ts";
import { NodeRpcError } from "./errors.ts";
import { identifyNetwork } from "./network.ts";
import { hash, int, obj, optInt, str } from "./parse.ts";
import type { NetworkUpgrade, NodeClient, NodeInfo, NodeInfoSource } from "./ports.ts";
import type { RpcCaller } from "./rpc.ts";

/** Sapling's consensus branch id (ZIP 205): LightdInfo.saplingActivationHeight reads it. */
const saplingBranchId = "76b809bb";

/**
 * Blocks behind the estimated network height that still count as synced. zebrad's own
 * "close to tip" notion is a few blocks; we allow a little more for estimate jitter.
 */
const syncSlackBlocks = 10;

/** The info role: NodeInfo on every call, refusing a node on another network than `network`. */
export function infoMethods(
  rpc: RpcCaller,
  network: NodeInfo["network"] | undefined,
): NodeInfoSource & Pick<NodeClient, "checkReady"> {
  async function info(signal?: AbortSignal): Promise<NodeInfo> {
    // The genesis hash is asked for on every call (not cached): a node swapped for one on another
    // chain behind the same URL must be noticed. A separate call, so a node without height 0
    // (the dev node replaying a corpus run) still answers the batch.
    const [[gi, ci], genesis] = await Promise.all([
      rpc.batch<unknown>(
        [
          { method: "getinfo", params: [] },
          { method: "getblockchaininfo", params: [] },
        ],
        signal,
      ),
      genesisHash(rpc, signal),
    ]);
    const parsed = parseNodeInfo(gi, ci, genesis);
    checkNetwork(parsed, network);
    return parsed;
  }
  return {
    info,
    async checkReady(options) {
      const i = await info();
      if (i.initialSync && !options?.allowSyncing) throw syncingError(i);
      return i;
    },
  };
}

/** Block 0's hash, or undefined when the node does not serve it (a corpus run above 0). */
async function genesisHash(rpc: RpcCaller, signal?: AbortSignal): Promise<string | undefined> {
  try {
    return await blockHashAt(rpc, 0, signal);
  } catch (err) {
    if (err instanceof NodeRpcError && err.kind === "above-tip") return undefined;
    throw err;
  }
}

/**
 * Builds NodeInfo from `getinfo`, `getblockchaininfo` and `getblockhash 0` (undefined when the
 * node does not serve height 0); the network comes from the genesis block (network.ts).
 */
export function parseNodeInfo(getinfo: unknown, chainInfo: unknown, genesisHash?: string): NodeInfo {
  const gi = obj("getinfo", getinfo, "result");
  const ci = obj("getblockchaininfo", chainInfo, "result");
  const m = "getblockchaininfo";
  const chain = str(m, ci.chain, "chain");
  const subversion = String(gi.subversion ?? "");
  const network = identifyNetwork({ chain, genesisHash, subversion });
  const blocks = int(m, ci.blocks, "blocks");
  const upgrades = parseUpgrades(ci.upgrades);
  const estimatedHeight = Math.max(blocks, optInt(m, ci.estimatedheight, "estimatedheight", blocks));
  const consensus = obj(m, ci.consensus ?? {}, "consensus");
  return Object.freeze({
    chain,
    network,
    chainName: CHAIN_NAMES[network],
    genesisHash,
    blocks,
    bestBlockHash: hash(m, ci.bestblockhash, "bestblockhash"),
    estimatedHeight,
    upgrades,
    saplingActivationHeight: upgrades.find((u) => u.branchId === saplingBranchId)?.activationHeight ?? 0,
    consensus: {
      chaintip: String(consensus.chaintip ?? "00000000"),
      nextblock: String(consensus.nextblock ?? "00000000"),
    },
    build: String(gi.build ?? ""),
    subversion,
    initialSync: ci.initialblockdownload === true || estimatedHeight - blocks > syncSlackBlocks,
  });
}

function parseUpgrades(value: unknown): NetworkUpgrade[] {
  const m = "getblockchaininfo";
  const list = Object.entries(obj(m, value ?? {}, "upgrades")).map(([branchId, u]) => {
    const o = obj(m, u, `upgrades.${branchId}`);
    return {
      branchId,
      name: str(m, o.name, "upgrade name"),
      activationHeight: int(m, o.activationheight, "activationheight"),
      status: str(m, o.status, "upgrade status"),
    };
  });
  return list.sort((a, b) => a.activationHeight - b.activationHeight);
}

/** Refuses a node on another chain than configured: indexing it would publish the wrong chain. */
export function checkNetwork(info: NodeInfo, expected: NodeInfo["network"] | undefined): void {
  if (expected === undefined || info.network === expected) return;
  throw new NodeRpcError(
    "bad-request",
    "node-client.info",
    `node is on ${info.network} (chain "${info.chain}", genesis ${info.genesisHash ?? "not served"}) but lightedge is configured for ${expected}`,
    { failure: "wrong-network" },
  );
}

/** Refuses a node still in initial sync, for callers that need a synced node. */
export function syncingError(info: NodeInfo): NodeRpcError {
  return new NodeRpcError(
    "unavailable",
    "node-client.info",
    `node is still syncing (height ${info.blocks} of about ${info.estimatedHeight})`,
    { failure: "syncing", transient: true },
  );
}
