import type { MessageInitShape } from "@bufbuild/protobuf";
import { type Client, Code, ConnectError, createClient, type HandlerContext } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { LightedgeError } from "../../proto/errors.ts";
import { type AddressRecord, decodeAddressRecord, RECORD_BYTES } from "../../proto/history/index.ts";
import { History, type RawTransaction, type TransparentAddressBlockFilterSchema } from "../../proto/index.ts";
import { callOpts, noOrigin, type OriginApi, pastDeadline } from "../rpc/proxy.ts";
import type { OriginClient } from "../tail/origin-client.ts";

/**
 * What the edge asks the origin for the heights its store does not hold yet (proto/range-format.md
 * §Node-free history, "The tail"): address records above the sealed tip (lightedge.history.v1
 * History/TailAddresses, no node call at the origin) and, for GetTaddressTransactions, the origin's
 * own answer for those heights. Failing to get either fails the call (Unavailable): never a
 * silently partial answer.
 */

export type HistoryApi = Client<typeof History>;

/** A typed client of the origin's History service (binary Connect over the secret-carrying fetch). */
export function createHistoryApi(origin: OriginClient, baseUrl: string): HistoryApi {
  const transport = createConnectTransport({ baseUrl, fetch: origin.fetch, useBinaryFormat: true });
  return createClient(History, transport);
}

/** The origin's side of a history call: its clients, or none when the network has no origin. */
export interface OriginTail {
  network: string;
  api: OriginApi | undefined;
  history: HistoryApi | undefined;
}

/**
 * The origin's error for another method (History/TailAddresses) worded as `rpc`'s own: the same
 * code, the message starting with `rpc` (the edge names the RPC its client called).
 */
export function asCallOf(rpc: string, err: unknown): unknown {
  if (!(err instanceof ConnectError) || err.rawMessage.startsWith(`${rpc}:`)) return err;
  const message = err.rawMessage.replace(/^[A-Za-z]+: /, "");
  return new ConnectError(`${rpc}: ${message}`, err.code, err.metadata, undefined, err);
}

/**
 * The address records of `addresses` at heights above `above` through the origin's tip, in a
 * level's order (address, height, position, kind, index), at most `maxRecords` of them. Undefined
 * when the origin does not serve History (an origin without node-free history) or they are more
 * (ResourceExhausted: the limit asked, or the origin's own cap, origin/index/indexer.ts
 * TAIL_RECORDS_MAX — a busy address above levels that lag the head; an origin that predates the
 * limit answers them all, and they are counted before any is decoded): the caller asks the origin
 * for the whole answer.
 */
export async function tailRecords(
  tail: OriginTail,
  rpc: string,
  addresses: string[],
  above: number,
  maxRecords: number,
  ctx: HandlerContext,
): Promise<AddressRecord[] | undefined> {
  if (tail.history === undefined) throw noOrigin(rpc, tail.network);
  let records: Uint8Array;
  try {
    const reply = await tail.history.tailAddresses(
      { addresses, aboveHeight: BigInt(above), maxRecords },
      callOpts(ctx),
    );
    records = reply.records;
  } catch (err) {
    if (
      err instanceof ConnectError &&
      (err.code === Code.Unimplemented || err.code === Code.ResourceExhausted)
    )
      return undefined;
    throw pastDeadline(ctx) ?? asCallOf(rpc, err);
  }
  if (records.length % RECORD_BYTES !== 0)
    throw new LightedgeError(
      "malformed",
      "edge.history",
      `TailAddresses: ${records.length} bytes of records`,
    );
  if (records.length / RECORD_BYTES > maxRecords) return undefined;
  const out: AddressRecord[] = [];
  for (let at = 0; at < records.length; at += RECORD_BYTES) out.push(decodeAddressRecord(records, at));
  return out;
}

/**
 * The origin's GetTaddressTransactions (or GetTaddressTxids) stream for `filter`, opened: its first
 * transaction (or its end) has arrived, so an origin that is down or refuses has failed the call
 * before the caller sends anything. The rest follows as the caller reads it.
 */
export async function openTailTransactions(
  tail: OriginTail,
  rpc: "GetTaddressTxids" | "GetTaddressTransactions",
  filter: MessageInitShape<typeof TransparentAddressBlockFilterSchema>,
  ctx: HandlerContext,
): Promise<AsyncIterable<RawTransaction>> {
  const api = tail.api;
  if (api === undefined) throw noOrigin(rpc, tail.network);
  const opts = callOpts(ctx);
  const stream =
    rpc === "GetTaddressTxids"
      ? api.getTaddressTxids(filter, opts)
      : api.getTaddressTransactions(filter, opts);
  const it = stream[Symbol.asyncIterator]();
  const failed = (err: unknown) => pastDeadline(ctx) ?? err;
  const first = await it.next().catch((err: unknown) => {
    throw failed(err);
  });
  return {
    async *[Symbol.asyncIterator]() {
      if (first.done) return;
      yield first.value;
      try {
        for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
      } catch (err) {
        throw failed(err);
      }
    },
  };
}
