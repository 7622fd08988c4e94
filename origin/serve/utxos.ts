import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { fromHex, wireFromDisplayHex } from "../../proto/bytes.ts";
import {
  type GetAddressUtxosArg,
  type GetAddressUtxosReply,
  GetAddressUtxosReplySchema,
} from "../../proto/index.ts";
import { checkAddresses, heightOf } from "../../proto/wire/limits.ts";
import type { Serve } from "./context.ts";
import { addressError } from "./taddress.ts";

/**
 * GetAddressUtxos(+Stream). Nodes ignore startHeight/maxEntries, so the answer is filtered here
 * again (lightwalletd PR#592): height ≥ startHeight, then at most maxEntries (0 = unlimited).
 * txid is wire order (lightwalletd reverses the node's display hex).
 */
export async function addressUtxos(
  s: Serve,
  rpc: string,
  arg: GetAddressUtxosArg,
  ctx: HandlerContext,
): Promise<GetAddressUtxosReply[]> {
  const addresses = checkAddresses(rpc, arg.addresses, s.options.network);
  if (addresses.length === 0) return [];
  const startHeight = heightOf(rpc, arg.startHeight, "start");
  const maxEntries = arg.maxEntries;
  const utxos = await s
    .callNode(ctx, "getaddressutxos", (signal) =>
      s.node.addressUtxos({ addresses, startHeight, maxEntries }, signal),
    )
    .catch((err: unknown) => {
      throw addressError(rpc, err);
    });
  const kept = utxos.filter((u) => u.height >= startHeight);
  return (maxEntries > 0 ? kept.slice(0, maxEntries) : kept).map((u) =>
    create(GetAddressUtxosReplySchema, {
      address: u.address,
      txid: wireFromDisplayHex(u.displayTxid),
      index: u.outputIndex,
      script: fromHex(u.script),
      valueZat: BigInt(u.satoshis),
      height: BigInt(u.height),
    }),
  );
}
