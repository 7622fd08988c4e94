import { create } from "@bufbuild/protobuf";
import { type LightdInfo, LightdInfoSchema } from "../../proto/index.ts";
import { chainNameOf } from "../../proto/networks.ts";
import type { EdgeConfig } from "../config.ts";

/** The lightwallet protocol version this server implements (LightdInfo field 18). */
export const LIGHTWALLET_PROTOCOL_VERSION = "v0.5.0";

/** LightdInfo from the worker's configuration alone (before anything is sealed). */
export function staticLightdInfo(config: EdgeConfig, network: string): LightdInfo {
  return create(LightdInfoSchema, {
    version: config.version,
    vendor: config.vendor,
    taddrSupport: true,
    chainName: chainNameOf(network),
    donationAddress: config.donationAddress,
    lightwalletProtocolVersion: LIGHTWALLET_PROTOCOL_VERSION,
  });
}
