import { LightedgeError } from "../../proto/errors.ts";
import {
  type AddressDirectory,
  decodeTxTable,
  rawBlocksKey,
  type TxShard,
  type TxTable,
  txTableKey,
} from "../../proto/history/index.ts";
import { LoadCache } from "../../proto/lru.ts";
import { type IndexObjectSource, loadIndexObject } from "../../proto/range/hash-index-lookup.ts";
import { rangeIndexOf } from "../../proto/range/index.ts";
import { webCryptoSha256 } from "../../proto/range/trailer-digest.ts";
import type { Span } from "../../proto/range/types.ts";
import type { ObjectReader } from "../store/index.ts";
import { objectBytes, readObjectBytes } from "../store/read-all.ts";

/**
 * The node-free history objects as the edge reads them (proto/range-format.md §Node-free history):
 * index objects read whole, checked (trailers with WebCrypto's native SHA-256) and kept decoded per
 * isolate; spans of raw-block objects and address records read by ranged reads, never cached here.
 */

/** Decoded transaction index shards kept per isolate (≈ 52 KB each: ≈ 6.7 MB). */
export const TX_SHARD_CACHE_ENTRIES = 128;
/** Decoded address directories kept per isolate (≈ 45 KB each: ≈ 5.8 MB). */
export const DIRECTORY_CACHE_ENTRIES = 128;
/**
 * Decoded transaction tables kept per isolate: 16 B per block and 44 B per transaction, so ≈ 0.1–1
 * MB for a mainnet range of 1,000 blocks (≈ 16 MB at most at 1 MB).
 */
export const TX_TABLE_CACHE_ENTRIES = 16;

export interface HistoryStore {
  /** Reads and trailer checks for the proto/history lookups. */
  source: IndexObjectSource;
  txShards: LoadCache<string, TxShard>;
  directories: LoadCache<string, AddressDirectory>;
  txTables: LoadCache<string, TxTable>;
  reader: ObjectReader;
}

const stores = new WeakMap<ObjectReader, HistoryStore>();

/** The history store over a reader, built once per isolate (its caches live as long). */
export function historyStore(reader: ObjectReader): HistoryStore {
  let store = stores.get(reader);
  if (store === undefined) {
    // Settled values only: requests must not await each other's reads (proto/lru.ts).
    const settled = <V>(maxEntries: number) => new LoadCache<string, V>({ maxEntries, sharing: "settled" });
    store = {
      source: {
        read: readObjectBytes(reader),
        digest: webCryptoSha256,
      },
      txShards: settled(TX_SHARD_CACHE_ENTRIES),
      directories: settled(DIRECTORY_CACHE_ENTRIES),
      txTables: settled(TX_TABLE_CACHE_ENTRIES),
      reader,
    };
    stores.set(reader, store);
  }
  return store;
}

/** A range's transaction table, read whole and checked once per isolate. */
export function txTable(
  store: HistoryStore,
  network: string,
  rangeSize: number,
  index: number,
): Promise<TxTable> {
  const range = { network, rangeSize, index };
  return loadIndexObject(
    store.source,
    store.txTables,
    txTableKey(network, rangeSize, index),
    "history-txs",
    (bytes, codec) => decodeTxTable(bytes, range, codec),
  );
}

/** The raw-block object holding `height`. */
export function rawKeyAt(network: string, rangeSize: number, height: number): string {
  return rawBlocksKey(network, rangeSize, rangeIndexOf(height, rangeSize));
}

/**
 * Exactly `span.length` bytes at `span.offset` of a raw-block object the head names (one ranged
 * read). `size`, when known (the range's transaction table says it), must be the object's.
 */
export async function readRawSpan(
  store: HistoryStore,
  key: string,
  span: Span,
  size?: number,
): Promise<Uint8Array> {
  const corrupt = (message: string) => new LightedgeError("corrupt", "history-raw", `${key}: ${message}`);
  const object = await store.reader.get(key, span);
  if (object === null) throw corrupt("the raw-block object is missing");
  if (size !== undefined && object.size !== size) {
    await object.body.cancel();
    throw corrupt(`the object is ${object.size} bytes, its transaction table says ${size}`);
  }
  const bytes = await objectBytes(object, key);
  if (bytes.length !== span.length)
    throw corrupt(`${bytes.length} bytes at ${span.offset} where ${span.length} were due`);
  return bytes;
}
