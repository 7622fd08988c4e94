import { LightedgeError } from "../../proto/errors.ts";
import { quoteInput } from "../../proto/quote.ts";
import { isTaddrNetwork, taddressProblem } from "../../proto/taddress.ts";

/**
 * Request body cap for RPCs through the Connect router: SendTransaction carries up to 2,000,000
 * bytes of transaction (lightwalletd refuses more), plus protobuf and envelope overhead. Every
 * other request is far smaller (10,000 addresses ≈ 360 KB; 20,000 suffixes ≤ 680 KB).
 */
export const MAX_RPC_REQUEST_BYTES = 2_100_000;

/** Request body cap of the list-carrying RPCs: 20,000 suffixes (≤ 34 B each) or 10,000 addresses (37 B). */
export const MAX_LIST_REQUEST_BYTES = 1024 * 1024;

/** Every other request (a BlockID, TxFilter, ChainSpec…) is a few dozen bytes: Zaino's 64 KiB cap. */
export const MAX_SMALL_REQUEST_BYTES = 64 * 1024;

/**
 * Body cap per method, so only SendTransaction may carry 2 MB: a 2 MB "address" is refused by size
 * before it is decoded, let alone forwarded.
 */
export function maxRequestBytes(method: string): number {
  if (method === "SendTransaction") return MAX_RPC_REQUEST_BYTES;
  if (LIST_METHODS.has(method)) return MAX_LIST_REQUEST_BYTES;
  return MAX_SMALL_REQUEST_BYTES;
}

const LIST_METHODS: ReadonlySet<string> = new Set([
  "GetTaddressBalance",
  "GetAddressUtxos",
  "GetAddressUtxosStream",
  "GetMempoolTx",
]);

/** Addresses per request, after de-duplication (lightwalletd's GHSA-x4m7-3gpp-xc36 cap). */
export const MAX_ADDRESSES = 10_000;

/** GetMempoolTx exclude list: lightwalletd's caps (20,000 suffixes, each at most a txid). */
export const MAX_EXCLUDE_SUFFIXES = 20_000;
export const MAX_SUFFIX_BYTES = 32;

/**
 * An address list: at most MAX_ADDRESSES distinct, each a transparent address of the served network.
 * Checked at the edge so a malformed (or 2 MB) address never reaches the origin.
 */
export function checkAddresses(addresses: readonly string[], network: string): void {
  const unique = new Set(addresses);
  if (unique.size > MAX_ADDRESSES) {
    throw new LightedgeError(
      "too-large",
      "edge.limits",
      `at most ${MAX_ADDRESSES} distinct addresses per request`,
    );
  }
  for (const address of unique) checkAddress(address, network);
}

/**
 * One transparent address (Base58Check, the network's t1/t3 or tm/t2 prefixes). lightwalletd
 * checks only `^t[a-zA-Z0-9]{34}$` (frontend/service.go checkTaddress); checking the checksum and
 * network too refuses at the edge what the node would refuse anyway. The message quotes a short
 * prefix of the input only.
 */
export function checkAddress(address: string, network: string): void {
  if (!isTaddrNetwork(network)) return; // an unknown network name: the origin decides
  const problem = taddressProblem(address, network);
  if (problem !== undefined) {
    throw new LightedgeError(
      "bad-request",
      "edge.limits",
      `invalid address ${quoteInput(address)}: ${problem}`,
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
