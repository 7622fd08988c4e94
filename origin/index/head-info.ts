import type { HeadLightdInfo } from "../../proto/range/index.ts";
import type { NodeInfo } from "../node/ports.ts";

/**
 * What the edge needs to answer GetLightdInfo / GetLatestBlock with the origin down, taken from
 * the node as `getinfo` + `getblockchaininfo` report it (protocol.md §GetLightdInfo). The upgrade
 * is the next pending one, else the newest active one (what a wallet compares branch ids with).
 */
export function headLightdInfo(info: NodeInfo): HeadLightdInfo {
  const active = info.upgrades.filter((u) => u.status === "active" && u.activationHeight <= info.blocks);
  const upgrade = info.nextUpgrade ?? active.sort((a, b) => a.activationHeight - b.activationHeight).at(-1);
  return {
    chainName: info.chainName,
    saplingActivationHeight: info.saplingActivationHeight,
    consensusBranchId: info.consensus.chaintip,
    blockHeight: info.blocks,
    estimatedHeight: info.estimatedHeight,
    upgradeName: upgrade?.name ?? "",
    upgradeHeight: upgrade?.activationHeight ?? 0,
    zcashdBuild: info.build,
    zcashdSubversion: info.subversion,
  };
}
