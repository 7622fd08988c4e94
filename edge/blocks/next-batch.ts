import { Lru } from "../../proto/lru.ts";
import type { RangeReader } from "../../proto/range/reader.ts";
import { afterResponse } from "../request-scope.ts";
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
const recentEnds = new WeakMap<object, Lru<number, true>>();

/**
 * When this request continues one this isolate answered (it starts one past that one's end: a
 * wallet's next batch), reads the next batch's end-range metadata into the isolate's cache (and the
 * Cache API) while this answer streams, so the wallet's following request starts its reads at once:
 * one storage round trip less per batch (tens of milliseconds to R2 from a data center). A request
 * that continues nothing reads nothing ahead — a random range (a bench's, or a wallet's one-off)
 * would waste a read on a guess. It starts after the response has gone out (request-scope.ts), kept
 * alive by waitUntil; a failure costs nothing but the read (the next request reads it itself).
 * Callers run it only for streams with no origin segment: the reads ahead, a range-ends read and
 * this one stay within Workers' 6 connections per invocation (stream-segments.ts
 * SEALED_READ_CONNECTIONS).
 */
export function readAheadNextBatch(
  ranges: RangeReader<ReadableStream<Uint8Array>>,
  start: number,
  end: number,
  extent: SealedExtent,
): void {
  if (end < start) return;
  let ends = recentEnds.get(ranges);
  if (ends === undefined) {
    ends = new Lru({ maxEntries: RECENT_BATCH_ENDS });
    recentEnds.set(ranges, ends);
  }
  const continues = ends.get(start - 1) !== undefined;
  ends.set(end, true);
  const index = continues ? nextBatchEndRange(start, end, extent) : undefined;
  if (index === undefined) return;
  void afterResponse(() => ranges.meta(index)).catch(() => {});
}
