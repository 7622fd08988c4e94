import { create } from "@bufbuild/protobuf";
import { type LightdInfo, LightdInfoSchema } from "../../proto/index.ts";
import type { Env } from "../env.ts";

/** The lightwallet protocol version this server implements (LightdInfo field 18). */
export const LIGHTWALLET_PROTOCOL_VERSION = "v0.5.0";

/** LightdInfo from the worker's configuration alone. */
export function staticLightdInfo(env: Env): LightdInfo {
  const network = defaultNetwork(env);
  return create(LightdInfoSchema, {
    version: env.VERSION,
    vendor: env.VENDOR,
    taddrSupport: true,
    chainName: network === "mainnet" ? "main" : network === "testnet" ? "test" : "regtest",
    donationAddress: env.DONATION_ADDRESS,
    lightwalletProtocolVersion: LIGHTWALLET_PROTOCOL_VERSION,
  });
}

export function defaultNetwork(env: Env): string {
  return env.NETWORKS.split(",")[0]?.trim() || "mainnet";
}
