import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { LightedgeError } from "../../proto/errors.ts";
import {
  type Address,
  type Balance,
  BalanceSchema,
  type RawTransaction,
  type TransparentAddressBlockFilter,
} from "../../proto/index.ts";
import { checkAddress, checkAddresses, checkTaddressQuery, MAX_ADDRESSES } from "../../proto/wire/limits.ts";
import { servedTip } from "./blocks.ts";
import type { Serve } from "./context.ts";
import { rawTransaction } from "./transactions.ts";

/** Whole-call deadline of GetTaddressTransactions (lightwalletd: 30 s), so one call cannot hold the node. */
export const TADDR_TX_DEADLINE_MS = 30_000;
/** getrawtransaction calls one GetTaddressTransactions keeps in flight (within the node gate). */
export const TADDR_TX_WINDOW = 8;

/** Node errors of the address RPCs, as lightwalletd maps them (GHSA-x4m7-3gpp-xc36). */
function addressError(rpc: string, err: unknown): unknown {
  if (!(err instanceof LightedgeError) || err.kind !== "bad-request") return err;
  if (/no information available/i.test(err.message)) {
    return new LightedgeError("not-found", rpc, `${rpc}: no information available for the address`, {
      cause: err,
    });
  }
  return new LightedgeError("bad-request", rpc, `${rpc}: ${err.message}`, { cause: err });
}

/** GetTaddressTxids / GetTaddressTransactions: every transaction touching the address, oldest first. */
export async function* getTaddressTransactions(
  s: Serve,
  rpc: string,
  filter: TransparentAddressBlockFilter,
  ctx: HandlerContext,
): AsyncGenerator<RawTransaction> {
  const { address, from, to } = await checkTaddressQuery(
    rpc,
    filter,
    s.options.network,
    () => servedTip(s.chain, rpc).height,
  );
  const deadline = Date.now() + TADDR_TX_DEADLINE_MS;
  const txids = await s
    .callNode(ctx, "getaddresstxids", (signal) =>
      s.node.addressTxids({ addresses: [address], start: from, end: to }, signal),
    )
    .catch((err: unknown) => {
      throw addressError(rpc, err);
    });
  // Up to TADDR_TX_WINDOW getrawtransaction calls in flight, answered in order: a busy address
  // costs round trips / window instead of one round trip per transaction.
  const fetchTx = (txid: string) => {
    const p = s
      .callNode(ctx, "getrawtransaction", (signal) => s.node.rawTransaction(txid, signal))
      .then(rawTransaction);
    p.catch(() => {}); // awaited below; this only keeps an early exit from leaving it unhandled
    return p;
  };
  const window: Promise<RawTransaction>[] = [];
  for (let next = 0; next < txids.length || window.length > 0; ) {
    while (window.length < TADDR_TX_WINDOW && next < txids.length) window.push(fetchTx(txids[next++]!));
    if (ctx.signal.aborted) return;
    if (Date.now() > deadline) {
      throw new LightedgeError("unavailable", rpc, `${rpc}: deadline of ${TADDR_TX_DEADLINE_MS} ms exceeded`);
    }
    yield await window.shift()!;
  }
}

/** GetTaddressBalance: the sum over a deduplicated address list (≤ 10,000). */
export async function getTaddressBalance(
  s: Serve,
  rpc: string,
  addresses: readonly string[],
  ctx: HandlerContext,
): Promise<Balance> {
  const list = checkAddresses(rpc, addresses, s.options.network);
  if (list.length === 0) return create(BalanceSchema, { valueZat: 0n });
  try {
    const result = await s.callNode(ctx, "getaddressbalance", (signal) =>
      s.node.addressBalance(list, signal),
    );
    return create(BalanceSchema, { valueZat: BigInt(result.balance) });
  } catch (err) {
    throw addressError(rpc, err);
  }
}

/** GetTaddressBalanceStream: addresses arrive one per message (client streaming; gRPC and Connect). */
export async function getTaddressBalanceStream(
  s: Serve,
  requests: AsyncIterable<Address>,
  ctx: HandlerContext,
): Promise<Balance> {
  const rpc = "GetTaddressBalanceStream";
  const addresses = new Set<string>();
  for await (const request of requests) {
    addresses.add(checkAddress(rpc, request.address, s.options.network));
    if (addresses.size > MAX_ADDRESSES) {
      throw new LightedgeError("too-large", rpc, `${rpc}: more than ${MAX_ADDRESSES} addresses`);
    }
  }
  return getTaddressBalance(s, rpc, [...addresses], ctx);
}

export { addressError };
