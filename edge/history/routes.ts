import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { LightedgeError } from "../../proto/errors.ts";
import {
  type Address,
  AddressListSchema,
  BalanceSchema,
  type CompactTxStreamer,
  type GetAddressUtxosArg,
} from "../../proto/index.ts";
import { checkAddress, checkAddresses, heightOf, MAX_ADDRESSES } from "../../proto/wire/limits.ts";
import { taddressTransactions } from "./address-transactions.ts";
import { storedBalance } from "./balance.ts";
import { type HistoryDeps, within } from "./deps.ts";
import { storedTransaction } from "./get-transaction.ts";
import { asCallOf } from "./origin-tail.ts";
import { storedUtxos } from "./utxos.ts";

type Impl = ServiceImpl<typeof CompactTxStreamer>;

/**
 * GetTransaction and the transparent-address RPCs answered from the store's node-free history
 * (proto/range-format.md §Node-free history) with the origin's tail merged in, registered in
 * front of the proxied versions (`fallback`), which answer whatever the store cannot: heads
 * without history, transactions not sealed, calls over the read budget. Requests are checked as
 * the origin checks them (proto/wire/limits.ts, proto/wire/transactions.ts) and answers are the
 * origin's, byte for byte; errors go to the router's one interceptor.
 */
export function historyMethods(d: HistoryDeps, fallback: Partial<Impl>): Partial<Impl> {
  const { network } = d;
  const proxy = <K extends keyof Impl>(k: K): NonNullable<Impl[K]> => fallback[k]! as NonNullable<Impl[K]>;
  const balance = async (
    rpc: string,
    addresses: string[],
    ctx: HandlerContext,
    request = create(AddressListSchema, { addresses }),
  ): Promise<MessageInitShape<typeof BalanceSchema>> => {
    if (addresses.length === 0) return create(BalanceSchema, { valueZat: 0n });
    const stored = await storedBalance(d, rpc, addresses, ctx);
    if (stored !== undefined) return stored;
    try {
      return await proxy("getTaddressBalance")(request, ctx);
    } catch (err) {
      throw asCallOf(rpc, err);
    }
  };
  const utxos = async (rpc: string, arg: GetAddressUtxosArg, ctx: HandlerContext) => {
    const addresses = checkAddresses(rpc, arg.addresses, network);
    if (addresses.length === 0) return [];
    const startHeight = heightOf(rpc, arg.startHeight, "start");
    return storedUtxos(d, rpc, addresses, startHeight, arg.maxEntries, ctx);
  };
  return {
    async getTransaction(req, ctx) {
      return (await within(ctx, storedTransaction(d.s, network, req))) ?? proxy("getTransaction")(req, ctx);
    },
    getTaddressTxids: (req, ctx) =>
      taddressTransactions(d, "GetTaddressTxids", req, ctx, () => proxy("getTaddressTxids")(req, ctx)),
    getTaddressTransactions: (req, ctx) =>
      taddressTransactions(d, "GetTaddressTransactions", req, ctx, () =>
        proxy("getTaddressTransactions")(req, ctx),
      ),
    getTaddressBalance: (req, ctx) =>
      balance("GetTaddressBalance", checkAddresses("GetTaddressBalance", req.addresses, network), ctx, req),
    async getTaddressBalanceStream(requests: AsyncIterable<Address>, ctx) {
      const rpc = "GetTaddressBalanceStream";
      // Client streaming needs a streaming request body, which gRPC-web and browsers cannot send;
      // Connect clients that can (Node, native) are answered as the origin answers them.
      if (ctx.requestHeader.get("content-type")?.startsWith("application/grpc-web")) {
        throw new ConnectError(
          `${rpc}: client streaming is not available over gRPC-web; call GetTaddressBalance`,
          Code.Unimplemented,
        );
      }
      const addresses = new Set<string>();
      for await (const request of requests) {
        addresses.add(checkAddress(rpc, request.address, network));
        if (addresses.size > MAX_ADDRESSES)
          throw new LightedgeError("too-large", rpc, `${rpc}: more than ${MAX_ADDRESSES} addresses`);
      }
      return balance(rpc, [...addresses], ctx);
    },
    async getAddressUtxos(req, ctx) {
      const stored = await utxos("GetAddressUtxos", req, ctx);
      return stored === undefined ? proxy("getAddressUtxos")(req, ctx) : { addressUtxos: stored };
    },
    async *getAddressUtxosStream(req, ctx) {
      const stored = await utxos("GetAddressUtxosStream", req, ctx);
      if (stored === undefined) yield* proxy("getAddressUtxosStream")(req, ctx);
      else yield* stored;
    },
  };
}
