import { Lru } from "../../proto/lru.ts";
import { afterResponse } from "../request-scope.ts";
import type { EdgeServices } from "../services.ts";
import type { SealedExtent } from "./plan.ts";

/**
 * The range whose metadata a wallet's next batch will need first, when this request looks like one
 * batch of a sequential download. Wallets sync in fixed batches, each starting where the last
 * ended (zcash_client_backend 0.25 `sync::run` splits its scan ranges at `start + batch_size` and
 * fetches each with one GetBlockRange; test/wallet's default is 100, the scale bench's download
 * 10,000), so the next request is `end + 1 … end + length`. Its first range is this request's
 * last (metadata just read, or a whole range that needs none); when it ends inside another range,
 * that range's metadata (the end offset and hash) is a storage round trip before its data read
 * can start.
 * Undefined when there is nothing to read ahead: a descending or one-block request, a next end in
 * this request's last range or on a range boundary (a whole range, from the range-ends objects),
 * or past the sealed tip.
 */
export function nextBatchEndRange(start: number, end: number, extent: SealedExtent): number | undefined {
  const size = extent.rangeSize;
  const length = end - start + 1;
  if (length < 2) return undefined;
  const nextEnd = end + length;
  if (nextEnd > extent.tipHeight || (nextEnd + 1) % size === 0) return undefined;
  const index = Math.floor(nextEnd / size);
  return index === Math.floor(end / size) ? undefined : index;
}

/** Ends of recent ascending requests per reader (a network's ranges): a few bytes each. */
export const RECENT_BATCH_ENDS = 1024;

/**
 * Tree-state warms a sequence of batches gets before one of them has been asked for: a reader that
 * never asks (a block explorer, an indexer, a bulk downloader) pays this many, then none.
 */
export const TREE_STATE_PROBES = 2;

/**
 * One sequence of batches (a client's download, as far as the isolate can tell: each batch starts
 * one past the last one's end): its tree-state warms so far, and whether the client asked for one.
 */
interface BatchSequence {
  warms: number;
  asked: boolean;
}

const recentEnds = new WeakMap<object, Lru<number, BatchSequence>>();
/**
 * Per tree-state reader (a network's): the height a wallet would ask after each recent batch
 * (its start − 1, warmed or not), and the batch's sequence — so a sequence past its probes still
 * learns that its client asks.
 */
const askedAfter = new WeakMap<object, Lru<number, BatchSequence>>();

function lruOf<K extends object, V>(map: WeakMap<K, Lru<number, V>>, key: K): Lru<number, V> {
  let lru = map.get(key);
  if (lru === undefined) {
    lru = new Lru({ maxEntries: RECENT_BATCH_ENDS });
    map.set(key, lru);
  }
  return lru;
}

/**
 * GetTreeState at `height` was asked of this network's stored tree states (`trees`): when it is
 * the one before a recent batch, that batch's sequence is a wallet's and has its tree states warmed.
 */
export function noteTreeStateAsked(trees: object, height: number): void {
  const sequence = askedAfter.get(trees)?.get(height);
  if (sequence !== undefined) sequence.asked = true;
}

/**
 * When this request continues one this isolate answered (it starts one past that one's end: a
 * wallet's next batch), reads ahead, while this answer streams, what the wallet asks next:
 * - the tree state before this batch: zcash_client_backend's sync follows each batch's download
 *   with GetTreeState(start − 1) (`download_chain_state`), in a range the last such call did not
 *   touch when batches are ranges long — two storage round trips (the range's table, then the
 *   record) on the wallet's path; warmed, the table is in the isolate and the whole object in the
 *   Cache API (edge/store/cached-reader.ts), so the call reads no storage. Only for a sequence
 *   that asks: after TREE_STATE_PROBES warms nobody asked for, a sequence gets no more (a
 *   download that never asks paid a storage read and a Cache API put per batch for nothing: in the
 *   scale bench's download 10.9 → 9.1 ms of Miniflare CPU per 10,000-block batch, bench/README.md);
 * - the metadata of the range the next batch will end in (`nextBatchEndRange`), so the wallet's
 *   following request starts its reads at once: one storage round trip less per batch.
 * A request that continues nothing reads nothing ahead — a random range (a bench's, or a wallet's
 * one-off) would waste reads on a guess. Both start once the response has gone out
 * (request-scope.ts), kept alive by waitUntil; a failure costs nothing but the read (the wallet's
 * call reads it itself). Each holds one connection at a time (a read, then its Cache API put), so
 * with the stream's reads ahead (at most SEALED_READ_CONNECTIONS = 4, stream-segments.ts) they stay
 * within Workers' 6 per invocation; callers run it only for streams with no origin segment, whose
 * tail stream would need one more. One after the other instead, the metadata often missed the next
 * batch (20 ms store, cold cache: 65.6 → 53.9 ms per batch in parallel).
 */
export function readAheadNextBatch(
  s: Pick<EdgeServices, "ranges" | "treeStates">,
  network: string,
  start: number,
  end: number,
  extent: SealedExtent,
): void {
  if (end < start) return;
  const ranges = s.ranges(network, extent.rangeSize);
  const ends = lruOf(recentEnds, ranges);
  const continued = ends.get(start - 1);
  const sequence = continued ?? { warms: 0, asked: false };
  ends.set(end, sequence);
  const trees = s.treeStates(network);
  const before = start - 1 >= extent.firstHeight ? start - 1 : undefined;
  if (before !== undefined) lruOf(askedAfter, trees).set(before, sequence);
  if (continued === undefined) return;
  const next = nextBatchEndRange(start, end, extent);
  const treeHeight = sequence.asked || sequence.warms < TREE_STATE_PROBES ? before : undefined;
  if (treeHeight !== undefined) sequence.warms++;
  void afterResponse(() =>
    Promise.all([
      treeHeight === undefined ? undefined : trees.warm(extent.rangeSize, treeHeight).catch(() => {}),
      next === undefined ? undefined : ranges.meta(next).catch(() => {}),
    ]),
  ).catch(() => {});
}
