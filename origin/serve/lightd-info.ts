import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { LightedgeError } from "../../proto/errors.ts";
import {
  type Duration,
  type LightdInfo,
  LightdInfoSchema,
  type PingResponse,
  PingResponseSchema,
} from "../../proto/index.ts";
import { nextPendingUpgrade } from "../../proto/upgrades.ts";
import type { NodeInfo } from "../node/ports.ts";
import { refuseWhileHalted } from "./blocks.ts";
import type { Serve } from "./context.ts";
import { createTtlCache } from "./ttl-cache.ts";

/** The protocol version this server implements (LightdInfo.lightwalletProtocolVersion). */
export const LIGHTWALLET_PROTOCOL_VERSION = "v0.5.0";
export const VENDOR = "lightedge";

/** The next pending upgrade, "" and 0 when none is scheduled (proto/upgrades.ts, as lightwalletd). */
function namedUpgrade(info: NodeInfo): { upgradeName: string; upgradeHeight: bigint } {
  const next = nextPendingUpgrade(info.upgrades);
  return { upgradeName: next.name, upgradeHeight: BigInt(next.height) };
}

/** GetLightdInfo = node getinfo + getblockchaininfo (cached for the TTL) + the served tip. */
export function createLightdInfo(s: Serve) {
  const cache = createTtlCache<"info", NodeInfo>({ ttlMs: s.ttlMs, maxEntries: 1 });
  const build = s.options.build ?? {};
  return async (ctx: HandlerContext): Promise<LightdInfo> => {
    const info = await cache.get("info", () => s.callNode(ctx, "getinfo", (signal) => s.node.info(signal)));
    refuseWhileHalted(s.chain, "GetLightdInfo");
    const tip = s.chain.tip();
    return create(LightdInfoSchema, {
      version: build.version ?? "0.1.0",
      vendor: VENDOR,
      taddrSupport: true,
      chainName: info.chainName,
      saplingActivationHeight: BigInt(info.saplingActivationHeight),
      consensusBranchId: info.consensus.chaintip,
      // The served tip, so GetLightdInfo and GetLatestBlock agree; the node's while none is served.
      blockHeight: BigInt(tip?.height ?? info.blocks),
      gitCommit: build.gitCommit ?? "",
      branch: build.branch ?? "",
      buildDate: build.buildDate ?? "",
      buildUser: build.buildUser ?? "",
      estimatedHeight: BigInt(info.estimatedHeight),
      zcashdBuild: info.build,
      zcashdSubversion: info.subversion,
      donationAddress: s.options.donationAddress ?? "",
      ...namedUpgrade(info),
      lightwalletProtocolVersion: LIGHTWALLET_PROTOCOL_VERSION,
    });
  };
}

/** Longest Ping sleep honoured (the RPC exists to test concurrency, not to hold connections). */
export const MAX_PING_US = 10_000_000n;

/**
 * Ping (testing only; off unless enabled, as lightwalletd's --ping-very-insecure): sleeps
 * intervalUs and reports the number of concurrent Pings at entry and at exit.
 */
export function createPing(s: Serve) {
  let concurrent = 0n;
  return async (request: Duration): Promise<PingResponse> => {
    if (s.options.ping !== true) {
      throw new LightedgeError(
        "unsupported",
        "Ping",
        "Ping: disabled on this server (start the origin with --ping)",
      );
    }
    const entry = ++concurrent;
    try {
      const us =
        request.intervalUs < 0n ? 0n : request.intervalUs > MAX_PING_US ? MAX_PING_US : request.intervalUs;
      await new Promise((resolve) => setTimeout(resolve, Number(us / 1000n)));
      return create(PingResponseSchema, { entry, exit: concurrent });
    } finally {
      concurrent--;
    }
  };
}
