/** A network upgrade as `getblockchaininfo` → `upgrades` lists it (zcashd and zebrad alike). */
export interface ListedUpgrade {
  name: string;
  activationHeight: number;
  /** "active", "pending" or "disabled". */
  status: string;
}

/**
 * LightdInfo.upgradeName / upgradeHeight: the next *pending* network upgrade, or "" and 0 when
 * none is scheduled — the proto's definition ("the next pending upgrade") and lightwalletd's
 * (common/common.go GetLightdInfo: the pending upgrade with the lowest activation height). Active
 * upgrades are never named, so regtest with everything active at height 1 reports none.
 * lightwalletd ranges over a Go map, so its pick between two pending upgrades at the same height
 * is random; here the one listed last wins — nodes list upgrades in consensus order, so that is
 * the newest, whose rules apply from that height.
 */
export function nextPendingUpgrade(upgrades: readonly ListedUpgrade[]): { name: string; height: number } {
  let next: ListedUpgrade | undefined;
  for (const u of upgrades) {
    if (u.status !== "pending") continue;
    if (next === undefined || u.activationHeight <= next.activationHeight) next = u;
  }
  return next === undefined ? { name: "", height: 0 } : { name: next.name, height: next.activationHeight };
}
