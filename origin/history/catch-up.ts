import { equalBytes, wireHashOf } from "../../proto/bytes.ts";
import { rawBlocks, rawBlocksKey } from "../../proto/history/index.ts";
import { blockInfo, encodeHead, type HeadObject, headKey, rangeBounds } from "../../proto/range/index.ts";
import type { SealedReader } from "../index/sealed-reader.ts";
import type { ChainSource } from "../node/ports.ts";
import type { BlobStore, Body } from "../store/index.ts";
import { historyBlockOf } from "./history-blocks.ts";
import type { HistoryDb } from "./history-db.ts";
import { type HistoryBlock, type HistoryWriter, rangeOfBlocks } from "./history-writer.ts";

export interface HistoryCatchUpOptions {
  db: HistoryDb;
  writer: HistoryWriter;
  store: BlobStore;
  chain: Pick<ChainSource, "rawBlocks">;
  sealed: Pick<SealedReader, "meta">;
  /** The store's head after bootstrap (checked against the node, cut back if it had to be). */
  head: HeadObject | null;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  signal?: AbortSignal;
}

/**
 * Brings the history database to exactly the head's ranges before sealing resumes, so every head
 * the sealer writes names history of all its ranges:
 * - ranges the database holds beyond the head (a crash after applying, before the head; a head cut
 *   back by bootstrap) are rolled back, and a database of another chain is emptied;
 * - ranges the head names and the database lacks are applied from the store's raw-block objects
 *   when the head names history (a new machine adopting a bucket), else fetched from the node,
 *   and their raw-block objects and transaction tables written (a store sealed before node-free
 *   history existed: the backfill);
 * - a head without history then gets its index levels, and is rewritten naming them.
 * Returns the head to seal on from.
 */
export async function catchUpHistory(o: HistoryCatchUpOptions): Promise<HeadObject | null> {
  const { db, head } = o;
  const tip = head?.tip ?? null;
  const applied = db.applied();
  if (head === null || tip === null) {
    if (applied !== undefined) db.rollbackAbove(-1, undefined);
    return head;
  }
  const firstIndex = head.firstHeight / head.rangeSize;
  if (applied !== undefined) {
    if (applied.height > tip.height) {
      // Applied beyond the head: a crash before the head was written, or a head cut back.
      db.rollbackAbove(tip.height, wireHashOf(tip.displayHash));
    } else {
      const inStore =
        applied.height >= head.firstHeight &&
        equalBytes(
          blockInfo(await o.sealed.meta(Math.floor(applied.height / head.rangeSize)), applied.height)
            .wireHash,
          applied.wireHash,
        );
      if (!inStore) {
        o.log.warn({ applied: applied.height }, "history database does not match the store: rebuilding it");
        db.rollbackAbove(-1, undefined);
      }
    }
  }
  const from = db.applied()?.height ?? head.firstHeight - 1;
  const lastIndex = firstIndex + head.rangeCount - 1;
  const fromIndex = Math.floor((from + 1) / head.rangeSize);
  if (fromIndex <= lastIndex)
    o.log.info(
      { ranges: lastIndex - fromIndex + 1, from: head.history ? "store" : "node" },
      "history: applying sealed ranges",
    );
  for (let index = fromIndex; index <= lastIndex; index++) {
    o.signal?.throwIfAborted();
    const meta = await o.sealed.meta(index);
    const { first, last } = rangeBounds(index, head.rangeSize);
    const expected = (h: number) => blockInfo(meta, h).wireHash;
    let blocks: HistoryBlock[];
    if (head.history !== undefined) {
      const object = await o.store.get(rawBlocksKey(head.network, head.rangeSize, index));
      if (object === null)
        throw new Error(`history: ${rawBlocksKey(head.network, head.rangeSize, index)} is missing`);
      blocks = [...rawBlocks(object)].map((raw, k) =>
        historyBlockOf(raw, first + k, expected(first + k), "corrupt"),
      );
      o.writer.sealRange(index, rangeOfBlocks(blocks));
    } else {
      // Raw by height: each block is checked against the hash its sealed metadata holds.
      const fetched = await o.chain.rawBlocks(first, last);
      blocks = fetched.raws.map((raw, k) => historyBlockOf(raw, first + k, expected(first + k)));
      for (const obj of o.writer.sealRange(index, rangeOfBlocks(blocks)))
        await putImmutable(o.store, obj.key, obj.body);
    }
    if ((index - fromIndex) % 100 === 99) o.log.info({ index, lastIndex }, "history: applying sealed ranges");
  }
  if (head.history !== undefined) {
    // Levels that lag the head (a sync stopped while catching up) are the sealer's to extend.
    o.writer.stored(head);
    return head;
  }
  for (const obj of o.writer.levelObjects(head.rangeCount)) await putImmutable(o.store, obj.key, obj.bytes);
  const next: HeadObject = {
    ...head,
    history: o.writer.headField(head.rangeCount),
    updatedAt: new Date().toISOString(),
  };
  await o.store.put(headKey(head.network), encodeHead(next), { contentType: "application/json" });
  o.writer.stored(next);
  o.log.info({ ranges: head.rangeCount }, "history: index levels written for the sealed ranges");
  return next;
}

function putImmutable(store: BlobStore, key: string, body: Body): Promise<void> {
  return store.put(key, body, { contentType: "application/octet-stream", immutable: true });
}
