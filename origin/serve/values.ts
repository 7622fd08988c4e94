import { LightedgeError } from "../../proto/errors.ts";
import { quoteInput } from "../../proto/quote.ts";

/**
 * Request values and byte orders. `wire` = internal byte order (what protobuf fields carry);
 * `display` = the reversed hex RPCs and block explorers show.
 */

/** Transparent addresses as lightwalletd accepts them (frontend/service.go `checkTaddress`). */
const TADDR = /^t[a-zA-Z0-9]{34}$/;

/** Address lists per request: lightwalletd's GHSA-x4m7-3gpp-xc36 cap (RESOURCE_EXHAUSTED beyond). */
export const MAX_ADDRESSES = 10_000;

/** A u64 height as a safe integer; anything larger is above every tip. */
export function heightOf(rpc: string, value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new LightedgeError("above-tip", rpc, `${rpc}: height ${value} is above the tip`);
  }
  return Number(value);
}

export function checkAddress(rpc: string, address: string): string {
  if (!TADDR.test(address))
    throw new LightedgeError("bad-request", rpc, `${rpc}: invalid address ${quoteInput(address)}`);
  return address;
}

/** Deduplicated, validated, capped address list. */
export function checkAddresses(rpc: string, addresses: readonly string[]): string[] {
  const unique = [...new Set(addresses)];
  if (unique.length > MAX_ADDRESSES) {
    throw new LightedgeError("too-large", rpc, `${rpc}: more than ${MAX_ADDRESSES} addresses`);
  }
  for (const a of unique) checkAddress(rpc, a);
  return unique;
}
