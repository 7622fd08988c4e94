import type { HeadLightdInfo } from "../../proto/range/index.ts";
import { nextPendingUpgrade } from "../../proto/upgrades.ts";
import type { NodeInfo } from "../node/ports.ts";

/**
 * What the edge needs to answer GetLightdInfo / GetLatestBlock with the origin down, taken from
 * the node as `getinfo` + `getblockchaininfo` report it (protocol.md §GetLightdInfo). The upgrade
 * is the next pending one, "" and 0 when none is scheduled — the same answer the origin's
 * GetLightdInfo gives (proto/upgrades.ts, lightwalletd common/common.go).
 */
export function headLightdInfo(info: NodeInfo): HeadLightdInfo {
  const upgrade = nextPendingUpgrade(info.upgrades);
  return {
    chainName: info.chainName,
    saplingActivationHeight: info.saplingActivationHeight,
    consensusBranchId: info.consensus.chaintip,
    blockHeight: info.blocks,
    estimatedHeight: info.estimatedHeight,
    upgradeName: upgrade.name,
    upgradeHeight: upgrade.height,
    zcashdBuild: info.build,
    zcashdSubversion: info.subversion,
  };
}
