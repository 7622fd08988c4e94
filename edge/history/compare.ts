import { create, toBinary } from "@bufbuild/protobuf";
import { expect } from "vitest";
import {
  AddressSchema,
  BalanceSchema,
  GetAddressUtxosReplyListSchema,
  GetAddressUtxosReplySchema,
  RawTransactionSchema,
} from "../../proto/index.ts";
import type { Streamer } from "../testing/clients.ts";
import { type HistoryChain, mapLimited, type Outcome, stream, unary } from "./testing.ts";

/**
 * The comparisons the history tests make: one request asked of the edge and of the origin
 * (node-backed), and their outcomes — every message's bytes, the status and its message —
 * required equal.
 */

export interface Sides {
  chain: HistoryChain;
  edge: Streamer;
  origin: Streamer;
}

export const wire = (hex: string) => Uint8Array.from(hex.match(/../g)!.map((h) => Number.parseInt(h, 16)));

/**
 * Comparisons in flight. The edge under test runs in the test's own isolate and request context:
 * the test's calls to the origin, the edge's calls to the origin and its storage reads share
 * workerd's six simultaneous connections per request and one thread, so an edge call queued
 * behind long streams past its 1 s origin deadline would say Unavailable. So each comparison asks
 * the edge, then the origin, three at once.
 */
const CONCURRENCY = 3;

export async function same(
  sides: Sides,
  what: string,
  call: (client: Streamer) => Promise<Outcome>,
): Promise<Outcome> {
  const edge = await call(sides.edge);
  const origin = await call(sides.origin);
  // A difference is shown short (messages may be megabytes of hex), then required away in full.
  expect(brief(edge), what).toEqual(brief(origin));
  expect(edge, what).toEqual(origin);
  return edge;
}

function brief(o: Outcome) {
  const messages = o.messages.map((m) => `${m.length / 2} bytes: ${m.slice(0, 24)}…${m.slice(-24)}`);
  return { count: o.messages.length, messages: messages.slice(0, 20), error: o.error };
}

/** GetTransaction by txid and by block height and index, for each of `txs`. */
export async function compareTransactions(sides: Sides, txs: HistoryChain["txs"]): Promise<number> {
  let answered = 0;
  await mapLimited(txs, CONCURRENCY, async (tx) => {
    for (const req of [
      { hash: wire(tx.txid) },
      { block: { height: BigInt(tx.height) }, index: BigInt(tx.index) },
    ]) {
      const got = await same(sides, `${tx.txid} at ${tx.height}/${tx.index}`, (c) =>
        unary(RawTransactionSchema, c.getTransaction(req)),
      );
      if (got.error === undefined) answered++;
    }
  });
  return answered;
}

/** GetTaddressTransactions (or GetTaddressTxids) of `address` over `start…end` (end 0: the tip). */
export function compareAddressTransactions(
  sides: Sides,
  address: string,
  start: number,
  end: number,
  rpc: "getTaddressTransactions" | "getTaddressTxids" = "getTaddressTransactions",
): Promise<Outcome> {
  const req = { address, range: { start: { height: BigInt(start) }, end: { height: BigInt(end) } } };
  return same(sides, `${rpc} ${address} ${start}…${end}`, (c) => stream(RawTransactionSchema, c[rpc](req)));
}

/** GetTaddressBalance of a list. */
export function compareBalance(sides: Sides, addresses: string[]): Promise<Outcome> {
  return same(sides, `balance of ${addresses.length}: ${addresses.slice(0, 3)}`, (c) =>
    unary(BalanceSchema, c.getTaddressBalance({ addresses })),
  );
}

/** GetAddressUtxos of a list, and GetAddressUtxosStream too unless `streamToo` is false. */
export async function compareUtxos(
  sides: Sides,
  addresses: string[],
  startHeight = 0,
  maxEntries = 0,
  streamToo = true,
): Promise<Outcome> {
  const arg = { addresses, startHeight: BigInt(startHeight), maxEntries };
  const what = `utxos of ${addresses.length} from ${startHeight} max ${maxEntries}: ${addresses.slice(0, 3)}`;
  const list = await same(sides, what, (c) => unary(GetAddressUtxosReplyListSchema, c.getAddressUtxos(arg)));
  if (!streamToo) return list;
  const streamed = await same(sides, `${what} (stream)`, (c) =>
    stream(GetAddressUtxosReplySchema, c.getAddressUtxosStream(arg)),
  );
  expect(streamed.error?.code, what).toEqual(list.error?.code);
  return list;
}

/**
 * Each address alone: balance and unspent outputs, and — for those `withTransactions` keeps — its
 * transactions from the store's first height to the tip.
 */
export async function compareEveryAddress(
  sides: Sides,
  addresses: string[],
  withTransactions: (address: string, i: number) => boolean = () => true,
): Promise<void> {
  await mapLimited(addresses, CONCURRENCY, async (address) => {
    await compareBalance(sides, [address]);
    await compareUtxos(sides, [address], 0, 0, false);
  });
  // Apart: a busy address's stream keeps the isolate (the edge and this test's client both) busy
  // for seconds, which the 1 s origin deadline of a balance's tail call must not be timed against.
  await mapLimited(addresses.filter(withTransactions), CONCURRENCY, (address) =>
    compareAddressTransactions(sides, address, sides.chain.firstHeight, 0),
  );
}

/**
 * GetTaddressBalanceStream over Connect (client streaming: connect-web cannot send it, so the
 * request is written by hand): the Balance's bytes, or the end-stream error.
 */
export async function balanceStream(
  fetcher: typeof fetch,
  baseUrl: string,
  addresses: string[],
  headers: Record<string, string> = {},
): Promise<Outcome> {
  const frames = addresses.map((address) => {
    const message = toBinary(AddressSchema, create(AddressSchema, { address }));
    const frame = new Uint8Array(5 + message.length);
    new DataView(frame.buffer).setUint32(1, message.length);
    frame.set(message, 5);
    return frame;
  });
  const body = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of frames) {
    body.set(f, at);
    at += f.length;
  }
  const res = await fetcher(`${baseUrl}/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetTaddressBalanceStream`, {
    method: "POST",
    headers: { "content-type": "application/connect+proto", "connect-protocol-version": "1", ...headers },
    body,
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const out: Outcome = { messages: [] };
  for (let i = 0; i + 5 <= bytes.length; ) {
    const flag = bytes[i]!;
    const length = new DataView(bytes.buffer, bytes.byteOffset + i + 1, 4).getUint32(0);
    const message = bytes.subarray(i + 5, i + 5 + length);
    if (flag === 0) out.messages.push([...message].map((b) => b.toString(16).padStart(2, "0")).join(""));
    else {
      const end = JSON.parse(new TextDecoder().decode(message)) as {
        error?: { code: string; message: string };
      };
      if (end.error !== undefined) out.error = { code: end.error.code, message: end.error.message };
    }
    i += 5 + length;
  }
  if (res.status !== 200)
    out.error = { code: `HTTP ${res.status}`, message: new TextDecoder().decode(bytes) };
  return out;
}
