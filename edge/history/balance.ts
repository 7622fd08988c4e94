import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { addressBalance, addressKeyOfTaddress, RECEIVED } from "../../proto/history/index.ts";
import { type Balance, BalanceSchema } from "../../proto/index.ts";
import { lookUpAddresses, planAddresses } from "./addresses.ts";
import { type HistoryDeps, sealedHead, within } from "./deps.ts";
import { tailRecords } from "./origin-tail.ts";
import { historyStore } from "./store.ts";

/**
 * GetTaddressBalance(Stream) of a checked, non-empty address list: per address the sum over the
 * levels holding it of received − spent (the directories alone: one read per distinct shard per
 * level, none once the isolate holds them), plus the origin's records above the last height the
 * levels cover — the sealed tip once they cover every range (History/TailAddresses, asked at the
 * same time): + received − spent. Undefined when the store cannot answer (no history, more
 * directory reads than the budget, more records above the levels than the isolate may hold, an
 * origin without History): the caller asks the origin for the whole answer.
 */
export async function storedBalance(
  d: HistoryDeps,
  rpc: string,
  addresses: string[],
  ctx: HandlerContext,
): Promise<Balance | undefined> {
  const head = await within(ctx, sealedHead(d));
  if (head === undefined) return undefined;
  const store = historyStore(d.s.reader);
  const keys = addresses.map((a) => addressKeyOfTaddress(a, d.network));
  const plan = planAddresses(store, head, keys);
  if (plan === undefined || plan.reads > d.s.config.maxHistoryReads) return undefined;
  // The origin first: its call has a 1 s deadline for headers, and a Worker opens six connections
  // at once — the directory reads queue behind it, not it behind them.
  const [tail, found] = await within(
    ctx,
    Promise.all([
      tailRecords(d.tail, rpc, addresses, plan.indexedTip, d.s.config.maxHistoryRecords, ctx),
      lookUpAddresses(store, plan),
    ]),
  );
  if (tail === undefined) return undefined;
  let zat = 0n;
  for (const levels of found) zat += addressBalance(levels);
  for (const record of tail) zat += record.kind === RECEIVED ? record.value : -record.value;
  return create(BalanceSchema, { valueZat: zat });
}
