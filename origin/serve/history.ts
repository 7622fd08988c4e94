import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { concatBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { addressKeyOfTaddress } from "../../proto/history/index.ts";
import { type History, TailAddressesReplySchema } from "../../proto/index.ts";
import { checkAddresses, heightOf } from "../../proto/wire/limits.ts";
import { addressRowBytes } from "../history/history-writer.ts";
import type { IndexHistory } from "../index/indexer.ts";

/**
 * lightedge.history.v1.History at the origin: the address records above a height the edge's
 * store does not hold yet (proto/walletrpc/lightedge_history.proto), from the origin's history
 * database and its tail — no node call. The edge merges them into its storage-backed answers.
 */
export function historyService(history: IndexHistory, network: string): ServiceImpl<typeof History> {
  return {
    async tailAddresses(req) {
      const rpc = "TailAddresses";
      const addresses = checkAddresses(rpc, req.addresses, network);
      const above = heightOf(rpc, req.aboveHeight, "aboveHeight");
      const keys = addresses.map((a) => addressKeyOfTaddress(a, network));
      // 0 (unset, as an edge that predates the field sends it): the origin's own cap alone.
      const { tip, records } = await history.tailAddresses(keys, above, req.maxRecords || undefined);
      if (tip.height < above)
        throw new LightedgeError(
          "unavailable",
          rpc,
          `${rpc}: the origin's tip ${tip.height} is below ${above}`,
        );
      return create(TailAddressesReplySchema, {
        tipHeight: BigInt(tip.height),
        tipHash: tip.wireHash,
        records: concatBytes(records.map(addressRowBytes)),
      });
    },
  };
}
