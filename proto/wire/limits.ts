import { LightedgeError } from "../errors.ts";
import type { BlockRange, TransparentAddressBlockFilter } from "../index.ts";
import { type PoolSet, poolSetFromRequest } from "../pools.ts";
import { quoteInput } from "../quote.ts";
import { isTaddrNetwork, TADDR_LENGTH, taddressProblem } from "../taddress.ts";

/**
 * Request limits and request values, checked the same way at the origin and the edge: body caps
 * per method, list caps (lightwalletd's), heights and transparent addresses. Messages start with
 * the RPC name and quote client input briefly (proto/quote.ts).
 */

/**
 * SendTransaction carries up to 2,000,000 bytes of transaction (lightwalletd refuses more), plus
 * protobuf and envelope overhead.
 */
export const MAX_SEND_REQUEST_BYTES = 2_100_000;

/** The list-carrying RPCs: 20,000 suffixes (≤ 34 B each) or 10,000 addresses (≈ 37 B). */
export const MAX_LIST_REQUEST_BYTES = 1024 * 1024;

/** Every other request (a BlockID, BlockRange, TxFilter, ChainSpec…) is a few dozen bytes: Zaino's 64 KiB cap. */
export const MAX_SMALL_REQUEST_BYTES = 64 * 1024;

const LIST_METHODS: ReadonlySet<string> = new Set([
  "GetTaddressBalance",
  "GetTaddressBalanceStream",
  "GetAddressUtxos",
  "GetAddressUtxosStream",
  "GetMempoolTx",
]);

/**
 * Largest request message per method, so only SendTransaction may carry 2 MB: a 2 MB "address"
 * is refused by size before it is decoded, let alone forwarded. A JSON message may be larger by
 * base64's 4/3 (bytes fields) and its punctuation.
 */
export function maxRequestBytes(method: string, binary = true): number {
  const max = LIST_METHODS.has(method)
    ? MAX_LIST_REQUEST_BYTES
    : method === "SendTransaction"
      ? MAX_SEND_REQUEST_BYTES
      : MAX_SMALL_REQUEST_BYTES;
  return binary ? max : Math.ceil((max * 4) / 3) + 1024;
}

/** Addresses per request, after de-duplication (lightwalletd's GHSA-x4m7-3gpp-xc36 cap: ResourceExhausted beyond). */
export const MAX_ADDRESSES = 10_000;

/** GetMempoolTx exclude list: lightwalletd's caps (20,000 suffixes, each at most a txid). */
export const MAX_EXCLUDE_SUFFIXES = 20_000;
export const MAX_SUFFIX_BYTES = 32;

/**
 * Zcash block heights are 32-bit (the header's coinbase height, zebra's `block::Height` is a
 * u32): a u64 request height beyond that is above every tip (OutOfRange), never a wrapped number.
 */
export const MAX_HEIGHT = 0xffff_ffff;

/**
 * A request's u64 height as a number. `what` names it in messages: "start height N", "end height
 * N", or "height N".
 */
export function heightOf(rpc: string, value: bigint | undefined, what = "height"): number {
  const label = what === "height" ? "height" : `${what} height`;
  if (value === undefined) throw new LightedgeError("bad-request", rpc, `${rpc}: a ${label} is required`);
  if (value > BigInt(MAX_HEIGHT))
    throw new LightedgeError("above-tip", rpc, `${rpc}: ${label} ${value} is above the tip`);
  return Number(value);
}

/**
 * A BlockID's hash: 32 bytes, or the request is refused. Whoever answers by hash (the origin, the
 * edge) words it alike, so a client cannot tell which one answered.
 */
export function checkBlockHash(rpc: string, hash: Uint8Array): Uint8Array {
  if (hash.length !== 32) throw new LightedgeError("bad-request", rpc, `${rpc}: a block hash has 32 bytes`);
  return hash;
}

/** lightwalletd's own check (frontend/service.go `checkTaddress`), for networks without known prefixes. */
const TADDR_SHAPE = new RegExp(`^t[a-zA-Z0-9]{${TADDR_LENGTH - 1}}$`);

/**
 * One transparent address. lightwalletd checks only `^t[a-zA-Z0-9]{34}$`; on the networks whose
 * prefixes are known the Base58Check checksum and the network's t1/t3 or tm/t2 prefix are checked
 * too, refusing early what the node would refuse anyway.
 */
export function checkAddress(rpc: string, address: string, network: string): string {
  const problem = isTaddrNetwork(network)
    ? taddressProblem(address, network)
    : TADDR_SHAPE.test(address)
      ? undefined
      : "not a transparent address";
  if (problem !== undefined) {
    throw new LightedgeError(
      "bad-request",
      rpc,
      `${rpc}: invalid address ${quoteInput(address)}: ${problem}`,
    );
  }
  return address;
}

/** Longest block span one GetTaddressTransactions may cover (lightwalletd `maxTaddrTxBlockSpan`). */
export const MAX_TADDR_BLOCK_SPAN = 10_000_000;

/** What GetTaddressTransactions (GetTaddressTxids) asks for: an address and its heights, inclusive. */
export interface TaddressQuery {
  address: string;
  from: number;
  to: number;
}

/**
 * GetTaddressTransactions' request, checked as the origin and the edge both must (lightwalletd's
 * rules): a valid address, a start height, an unset (or zero) end meaning `tip()`, an end not below
 * the start, a span of at most MAX_TADDR_BLOCK_SPAN blocks.
 */
export async function checkTaddressQuery(
  rpc: string,
  filter: TransparentAddressBlockFilter,
  network: string,
  tip: () => number | Promise<number>,
): Promise<TaddressQuery> {
  const address = checkAddress(rpc, filter.address, network);
  const start = filter.range?.start;
  if (start === undefined)
    throw new LightedgeError("bad-request", rpc, `${rpc}: a range with a start height is required`);
  const from = heightOf(rpc, start.height, "start");
  const end = filter.range?.end;
  const to = end === undefined || end.height === 0n ? await tip() : heightOf(rpc, end.height, "end");
  if (to < from)
    throw new LightedgeError("bad-request", rpc, `${rpc}: range end ${to} is below its start ${from}`);
  if (to - from > MAX_TADDR_BLOCK_SPAN) {
    throw new LightedgeError(
      "bad-request",
      rpc,
      `${rpc}: range spans more than ${MAX_TADDR_BLOCK_SPAN} blocks`,
    );
  }
  return { address, from, to };
}

/** An address list: de-duplicated, at most MAX_ADDRESSES, each checked. */
export function checkAddresses(rpc: string, addresses: readonly string[], network: string): string[] {
  const unique = [...new Set(addresses)];
  if (unique.length > MAX_ADDRESSES) {
    throw new LightedgeError("too-large", rpc, `${rpc}: more than ${MAX_ADDRESSES} addresses`);
  }
  for (const address of unique) checkAddress(rpc, address, network);
  return unique;
}

/** GetMempoolTx's exclude list: at most MAX_EXCLUDE_SUFFIXES, each at most a whole txid. */
export function checkExcludeSuffixes(rpc: string, suffixes: readonly Uint8Array[]): void {
  if (suffixes.length > MAX_EXCLUDE_SUFFIXES) {
    throw new LightedgeError(
      "too-large",
      rpc,
      `${rpc}: more than ${MAX_EXCLUDE_SUFFIXES} txid suffixes to exclude`,
    );
  }
  if (suffixes.some((s) => s.length > MAX_SUFFIX_BYTES)) {
    throw new LightedgeError(
      "bad-request",
      rpc,
      `${rpc}: a txid suffix is longer than ${MAX_SUFFIX_BYTES} bytes`,
    );
  }
}

/** A BlockRange request's bounds and pools, checked: both ends are required (lightwalletd). */
export interface CheckedRange {
  start: number;
  end: number;
  pools: PoolSet;
}

export function checkBlockRange(rpc: string, range: BlockRange): CheckedRange {
  if (range.start === undefined || range.end === undefined) {
    throw new LightedgeError("bad-request", rpc, `${rpc}: a range needs a start and an end`);
  }
  return {
    start: heightOf(rpc, range.start.height, "start"),
    end: heightOf(rpc, range.end.height, "end"),
    pools: poolSetFromRequest(range.poolTypes),
  };
}
