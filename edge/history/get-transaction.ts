import { create } from "@bufbuild/protobuf";
import { blockTxRange, headHistoryLevels, lookupTx, txSpan } from "../../proto/history/index.ts";
import { type BlockID, type RawTransaction, RawTransactionSchema, type TxFilter } from "../../proto/index.ts";
import { rangeIndexOf } from "../../proto/range/index.ts";
import { checkTxid, noTransactionAt } from "../../proto/wire/transactions.ts";
import { sealedBlockOf } from "../blocks/find-hash.ts";
import type { EdgeServices } from "../services.ts";
import { historyStore, rawKeyAt, readRawSpan, txTable } from "./store.ts";

const RPC = "GetTransaction";

/**
 * GetTransaction from storage, for sealed transactions: undefined when the store cannot answer
 * (no sealed block holds the txid or the block, or the head names no history) and the origin
 * must (the tail, the mempool). Requests are checked and errors worded as the origin does
 * (proto/wire/transactions.ts), so either answers alike.
 *
 * - By txid: the transaction index (one shard per level, ≤ 2 reads in parallel, cached per
 *   isolate), then one ranged read of the range's raw-block object.
 * - By block and index: the block's height (a hash through the hash index, either byte order),
 *   its range's transaction table (read once per isolate), then one ranged read.
 */
export async function storedTransaction(
  s: EdgeServices,
  network: string,
  filter: TxFilter,
): Promise<RawTransaction | undefined> {
  if (filter.hash.length === 0 && filter.block !== undefined)
    return transactionInBlock(s, network, filter.block, filter.index);
  const txid = checkTxid(filter.hash);
  const head = await s.heads.head(network);
  if (head === null) return undefined;
  const store = historyStore(s.reader);
  const found = await lookupTx({ ...store.source, shards: store.txShards }, head, txid);
  if (!found.indexed || found.found === undefined) return undefined;
  const { height, offset, length } = found.found;
  const data = await readRawSpan(store, rawKeyAt(network, head.rangeSize, height), { offset, length });
  return create(RawTransactionSchema, { data, height: BigInt(height) });
}

async function transactionInBlock(
  s: EdgeServices,
  network: string,
  block: BlockID,
  index: bigint,
): Promise<RawTransaction | undefined> {
  const head = await s.heads.head(network);
  if (head === null || headHistoryLevels(head) === undefined) return undefined;
  const height = (await sealedBlockOf(s, head, RPC, block))?.height;
  if (height === undefined) return undefined;
  const store = historyStore(s.reader);
  const range = rangeIndexOf(height, head.rangeSize);
  const table = await txTable(store, network, head.rangeSize, range);
  const { first, count } = blockTxRange(table, height - range * head.rangeSize);
  if (index >= BigInt(count)) throw noTransactionAt(height, index);
  const data = await readRawSpan(
    store,
    rawKeyAt(network, head.rangeSize, height),
    txSpan(table, first + Number(index)),
    table.rawLength,
  );
  return create(RawTransactionSchema, { data, height: BigInt(height) });
}
