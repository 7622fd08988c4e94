import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { toHex } from "../../proto/bytes.ts";
import {
  type AddressRecord,
  addressKeyOfTaddress,
  type OutputPosition,
  RECEIVED,
  SPENT,
  scriptOfAddressKey,
  taddressOfKey,
} from "../../proto/history/index.ts";
import { type GetAddressUtxosReply, GetAddressUtxosReplySchema } from "../../proto/index.ts";
import { lookUpAddresses, planAddresses, readRecords, recordReads, storedRecordCount } from "./addresses.ts";
import { holdRecords } from "./budget.ts";
import { type HistoryDeps, sealedHead, within } from "./deps.ts";
import { tailRecords } from "./origin-tail.ts";
import { historyStore } from "./store.ts";

const at = (p: OutputPosition) => `${p.height}/${p.txIndex}/${p.index}`;

/**
 * GetAddressUtxos(Stream) of a checked, non-empty address list: every output paid to them that no
 * input spends — sealed received records not named by a sealed or tail spent record, and the
 * tail's received records not spent in the tail — in zebrad's order (height, position, output
 * index) across all the addresses, then height ≥ startHeight, then at most maxEntries (0: all), as
 * the origin filters the node's answer. Reads: the directories (one per distinct shard per level),
 * then one ranged read of records per address and level holding it; the tail asked meanwhile.
 * Undefined when the store cannot answer within the budget — its reads, or the records the isolate
 * may hold (edge/history/budget.ts), counted before any is read: the caller asks the origin.
 */
export async function storedUtxos(
  d: HistoryDeps,
  rpc: string,
  addresses: string[],
  startHeight: number,
  maxEntries: number,
  ctx: HandlerContext,
): Promise<GetAddressUtxosReply[] | undefined> {
  const head = await within(ctx, sealedHead(d));
  if (head === undefined) return undefined;
  const store = historyStore(d.s.reader);
  const keys = addresses.map((a) => addressKeyOfTaddress(a, d.network));
  const plan = planAddresses(store, head, keys);
  const budget = d.s.config.maxHistoryReads;
  const maxRecords = d.s.config.maxHistoryRecords;
  if (plan === undefined || plan.reads > budget) return undefined;
  // The origin first: its call has a 1 s deadline for headers, and a Worker opens six connections
  // at once — the directory reads queue behind it, not it behind them.
  const [tail, found] = await within(
    ctx,
    Promise.all([
      tailRecords(d.tail, rpc, addresses, plan.indexedTip, maxRecords, ctx),
      lookUpAddresses(store, plan),
    ]),
  );
  if (tail === undefined || plan.reads + recordReads(found) > budget) return undefined;
  const release = holdRecords(tail.length + storedRecordCount(found), maxRecords);
  if (release === undefined) return undefined;
  const reading = readRecords(store, found);
  try {
    const sealed = await within(ctx, reading);
    return answer(sealed, tail, keys, d.network, startHeight, maxEntries);
  } finally {
    // Past the deadline the reads go on decoding: the records are held until they are done.
    void reading.then(release, release);
  }
}

/** The reply from the addresses' sealed and tail records. */
function answer(
  sealed: AddressRecord[][],
  tail: readonly AddressRecord[],
  keys: readonly Uint8Array[],
  network: string,
  startHeight: number,
  maxEntries: number,
): GetAddressUtxosReply[] {
  const byKey = new Map(keys.map((key, i) => [toHex(key), i]));
  const tailOf = keys.map((): AddressRecord[] => []);
  for (const record of tail) tailOf[byKey.get(toHex(record.addressKey)) ?? -1]?.push(record);
  const unspent: { address: number; record: AddressRecord }[] = [];
  keys.forEach((_, address) => {
    const records = [...sealed[address]!, ...tailOf[address]!];
    const spent = new Set<string>();
    for (const r of records) if (r.kind === SPENT) spent.add(at(r.spent!));
    for (const r of records)
      if (r.kind === RECEIVED && !spent.has(at(r))) unspent.push({ address, record: r });
  });
  unspent.sort(
    (a, b) =>
      a.record.height - b.record.height ||
      a.record.txIndex - b.record.txIndex ||
      a.record.index - b.record.index,
  );
  const kept = unspent.filter((u) => u.record.height >= startHeight);
  return (maxEntries > 0 ? kept.slice(0, maxEntries) : kept).map(({ address, record }) =>
    create(GetAddressUtxosReplySchema, {
      address: taddressOfKey(keys[address]!, network),
      txid: record.wireTxid,
      index: record.index,
      script: scriptOfAddressKey(keys[address]!),
      valueZat: record.value,
      height: BigInt(record.height),
    }),
  );
}
