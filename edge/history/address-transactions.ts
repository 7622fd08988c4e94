import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { type AddressRecord, addressKeyOfTaddress } from "../../proto/history/index.ts";
import {
  type RawTransaction,
  RawTransactionSchema,
  type TransparentAddressBlockFilter,
} from "../../proto/index.ts";
import { rangeIndexOf } from "../../proto/range/index.ts";
import { checkTaddressQuery } from "../../proto/wire/limits.ts";
import { lookUpAddresses, planAddresses, readRecords, recordReads, storedRecordCount } from "./addresses.ts";
import { holdRecords } from "./budget.ts";
import { type HistoryDeps, sealedHead, within } from "./deps.ts";
import { READS_IN_FLIGHT } from "./limited.ts";
import { openTailTransactions } from "./origin-tail.ts";
import { type HistoryStore, historyStore, rawKeyAt, readRawSpan } from "./store.ts";

export type TaddressRpc = "GetTaddressTxids" | "GetTaddressTransactions";

/**
 * Two of an address's transactions in one range this close (bytes) are read with one ranged read:
 * a storage round trip (tens of ms) costs more than reading 64 KiB more in it, and a busy address
 * has transactions in neighbouring blocks.
 */
export const RUN_GAP_BYTES = 64 * 1024;
/** …as long as that read stays this short (READS_IN_FLIGHT of them are held at once). */
export const RUN_MAX_BYTES = 2 * 1024 * 1024;

/** A transaction to send: its block, and its bytes in its range's raw-block object. */
interface TxBytes {
  height: number;
  offset: number;
  length: number;
}

/** One ranged read of a raw-block object, and the transactions it holds, in sending order. */
interface RawRun {
  height: number;
  offset: number;
  length: number;
  txs: TxBytes[];
}

/**
 * GetTaddressTxids / GetTaddressTransactions: the request checked as the origin checks it, then
 * the transactions touching the address (received or spent) in [from, to], oldest first —
 * heights up to the last one the index levels cover (the sealed tip, unless they lag it while the
 * origin catches up with its node) from storage, those above it from the origin's own answer for
 * [indexed tip + 1, to], opened before the first stored transaction is sent (so an origin that is
 * down refuses the call whole). `proxy` answers calls the store cannot: no history, a start below
 * the store's first height or above the indexed tip, more reads or records than the budget.
 *
 * Reads: the address's directory shard in each level (cached per isolate), its records in each
 * level holding it (one ranged read each), then its transactions from the raw-block objects —
 * neighbours in a range read together (RUN_GAP_BYTES, RUN_MAX_BYTES), READS_IN_FLIGHT reads
 * ahead, sent in order.
 */
export async function* taddressTransactions(
  d: HistoryDeps,
  rpc: TaddressRpc,
  filter: TransparentAddressBlockFilter,
  ctx: HandlerContext,
  proxy: () => AsyncIterable<MessageInitShape<typeof RawTransactionSchema>>,
): AsyncGenerator<MessageInitShape<typeof RawTransactionSchema>> {
  const { address, from, to } = await checkTaddressQuery(rpc, filter, d.network, d.tip);
  const sealed = await within(ctx, sealedRuns(d, address, from, to));
  if (sealed === undefined) {
    yield* proxy();
    return;
  }
  const { indexedTip, runs, store } = sealed;
  const tail =
    to > indexedTip
      ? await openTailTransactions(
          d.tail,
          rpc,
          { address, range: { start: { height: BigInt(indexedTip + 1) }, end: { height: BigInt(to) } } },
          ctx,
        )
      : undefined;
  yield* sendRuns(store, d.network, sealed.rangeSize, runs, ctx);
  if (tail !== undefined) yield* tail;
}

/** The sealed part's reads, planned; undefined when the store cannot answer the call. */
async function sealedRuns(
  d: HistoryDeps,
  address: string,
  from: number,
  to: number,
): Promise<{ indexedTip: number; rangeSize: number; runs: RawRun[]; store: HistoryStore } | undefined> {
  const head = await sealedHead(d);
  // Below its first height the store knows nothing a node knows (a store sealed from --from > 0).
  if (head === undefined || from < head.firstHeight) return undefined;
  const store = historyStore(d.s.reader);
  const plan = planAddresses(store, head, [addressKeyOfTaddress(address, d.network)]);
  const budget = d.s.config.maxHistoryReads;
  if (plan === undefined || from > plan.indexedTip || plan.reads > budget) return undefined;
  const { indexedTip } = plan;
  const found = await lookUpAddresses(store, plan);
  let reads = plan.reads + recordReads(found);
  if (reads > budget) return undefined;
  const release = holdRecords(storedRecordCount(found), d.s.config.maxHistoryRecords);
  if (release === undefined) return undefined;
  let runs: RawRun[];
  try {
    const [records] = await readRecords(store, found);
    runs = planRuns(transactionsIn(records!, from, Math.min(to, indexedTip)), head.rangeSize);
  } finally {
    // The runs name what to read; the records are not needed past them.
    release();
  }
  reads += runs.length;
  if (reads > budget) return undefined;
  return { indexedTip, rangeSize: head.rangeSize, runs, store };
}

/**
 * The distinct transactions of an address's records (stored order: height, position, kind,
 * index) at heights from…to: each once, in (height, position) order.
 */
function transactionsIn(
  records: readonly AddressRecord[],
  from: number,
  to: number,
): (TxBytes & { txIndex: number })[] {
  const out: (TxBytes & { txIndex: number })[] = [];
  for (const r of records) {
    if (r.height < from || r.height > to) continue;
    const last = out[out.length - 1];
    if (last !== undefined && last.height === r.height && last.txIndex === r.txIndex) continue;
    out.push({ height: r.height, txIndex: r.txIndex, offset: r.offset, length: r.length });
  }
  return out;
}

/** Consecutive transactions in one range, close together, grouped into one ranged read each. */
function planRuns(txs: readonly TxBytes[], rangeSize: number): RawRun[] {
  const runs: RawRun[] = [];
  for (const tx of txs) {
    const run = runs[runs.length - 1];
    const end = tx.offset + tx.length;
    if (
      run !== undefined &&
      rangeIndexOf(run.height, rangeSize) === rangeIndexOf(tx.height, rangeSize) &&
      tx.offset >= run.offset + run.length &&
      tx.offset - (run.offset + run.length) <= RUN_GAP_BYTES &&
      end - run.offset <= RUN_MAX_BYTES
    ) {
      run.length = end - run.offset;
      run.txs.push(tx);
    } else runs.push({ height: tx.height, offset: tx.offset, length: tx.length, txs: [tx] });
  }
  return runs;
}

/** The runs' transactions in order, READS_IN_FLIGHT ranged reads ahead of the one being sent. */
async function* sendRuns(
  store: HistoryStore,
  network: string,
  rangeSize: number,
  runs: readonly RawRun[],
  ctx: HandlerContext,
): AsyncGenerator<RawTransaction> {
  const reads: Promise<Uint8Array>[] = [];
  let next = 0;
  const start = () => {
    const run = runs[next++]!;
    const read = readRawSpan(store, rawKeyAt(network, rangeSize, run.height), run);
    read.catch(() => {}); // awaited in turn; this only keeps an early end from leaving it unhandled
    reads.push(read);
  };
  for (const run of runs) {
    while (next < runs.length && reads.length < READS_IN_FLIGHT) start();
    const bytes = await within(ctx, reads.shift()!);
    for (const tx of run.txs) {
      const at = tx.offset - run.offset;
      yield create(RawTransactionSchema, {
        data: bytes.subarray(at, at + tx.length),
        height: BigInt(tx.height),
      });
    }
  }
}
