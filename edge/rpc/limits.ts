import { LightedgeError } from "../../proto/errors.ts";

/**
 * Request body cap for RPCs through the Connect router: SendTransaction carries up to 2,000,000
 * bytes of transaction (lightwalletd refuses more), plus protobuf and envelope overhead. Every
 * other request is far smaller (10,000 addresses ≈ 360 KB; 20,000 suffixes ≤ 680 KB).
 */
export const MAX_RPC_REQUEST_BYTES = 2_100_000;

/** Addresses per request, after de-duplication (lightwalletd's GHSA-x4m7-3gpp-xc36 cap). */
export const MAX_ADDRESSES = 10_000;

/** GetMempoolTx exclude list: lightwalletd's caps (20,000 suffixes, each at most a txid). */
export const MAX_EXCLUDE_SUFFIXES = 20_000;
export const MAX_SUFFIX_BYTES = 32;

export function checkAddresses(addresses: readonly string[]): void {
  if (new Set(addresses).size > MAX_ADDRESSES) {
    throw new LightedgeError(
      "too-large",
      "edge.limits",
      `at most ${MAX_ADDRESSES} distinct addresses per request`,
    );
  }
}

export function checkExclude(suffixes: readonly Uint8Array[]): void {
  if (suffixes.length > MAX_EXCLUDE_SUFFIXES) {
    throw new LightedgeError(
      "too-large",
      "edge.limits",
      `at most ${MAX_EXCLUDE_SUFFIXES} exclude suffixes per request`,
    );
  }
  if (suffixes.some((s) => s.length > MAX_SUFFIX_BYTES)) {
    throw new LightedgeError(
      "bad-request",
      "edge.limits",
      `an exclude suffix is at most ${MAX_SUFFIX_BYTES} bytes`,
    );
  }
}
