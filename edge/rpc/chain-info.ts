import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { wireHashOf } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import {
  type BlockID,
  BlockIDSchema,
  ChainSpecSchema,
  type LightdInfo,
  LightdInfoSchema,
} from "../../proto/index.ts";
import { createRefreshingCache } from "../cache/refreshing.ts";
import type { EdgeServices } from "../services.ts";
import { LIGHTWALLET_PROTOCOL_VERSION, staticLightdInfo } from "./lightd-info.ts";

/**
 * GetLatestBlock and GetLightdInfo without a round trip per call: the origin's tip, cached for
 * HEAD_CACHE_SECONDS, and the head object (also cached). With the origin down the sealed tip from
 * the head answers, so wallets keep syncing what is sealed.
 */
export interface ChainInfo {
  latestBlock(network: string): Promise<BlockID>;
  lightdInfo(network: string): Promise<LightdInfo>;
}

export function createChainInfo(s: EdgeServices, now: () => number = Date.now): ChainInfo {
  // Refreshed in the background (cache/refreshing.ts): inside the TTL, and under steady traffic
  // after it, GetLatestBlock answers from the isolate with no origin or storage call.
  const tips = createRefreshingCache((network) => askOrigin(s, network), s.config.headCacheMs, now);
  return {
    async latestBlock(network) {
      const fromOrigin = await tips.get(network);
      if (fromOrigin !== undefined) return fromOrigin;
      const head = await s.heads.head(network);
      if (head?.tip == null) {
        throw new LightedgeError(
          "unavailable",
          "edge.chain-info",
          "nothing is sealed yet and the origin is unavailable",
        );
      }
      return create(BlockIDSchema, {
        height: BigInt(head.tip.height),
        hash: wireHashOf(head.tip.displayHash),
      });
    },
    async lightdInfo(network) {
      const head = await s.heads.head(network);
      const info = staticLightdInfo(s.config, network);
      if (head === null) return info;
      // The origin tip GetLatestBlock last settled on (never another request's read in flight).
      const tip = tips.peek(network);
      const l = head.lightdInfo;
      return create(LightdInfoSchema, {
        ...info,
        chainName: l.chainName,
        saplingActivationHeight: BigInt(l.saplingActivationHeight),
        consensusBranchId: l.consensusBranchId,
        blockHeight: BigInt(Math.max(l.blockHeight, Number(tip?.height ?? 0))),
        estimatedHeight: BigInt(l.estimatedHeight),
        zcashdBuild: l.zcashdBuild,
        zcashdSubversion: l.zcashdSubversion,
        upgradeName: l.upgradeName,
        upgradeHeight: BigInt(l.upgradeHeight),
        lightwalletProtocolVersion: LIGHTWALLET_PROTOCOL_VERSION,
      });
    },
  };
}

/** The origin's tip, or undefined when it is unreachable or has none (errors are not cached long). */
async function askOrigin(s: EdgeServices, network: string): Promise<BlockID | undefined> {
  const origin = s.origin(network);
  if (origin === undefined) return undefined;
  try {
    const bytes = await origin.unary("GetLatestBlock", toBinary(ChainSpecSchema, create(ChainSpecSchema)));
    return fromBinary(BlockIDSchema, bytes);
  } catch {
    return undefined;
  }
}
