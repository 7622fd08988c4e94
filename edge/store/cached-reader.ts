import { withinMs } from "../../proto/wire/deadline.ts";
import { afterResponse } from "../request-scope.ts";
import type { ByteRange, ObjectInfo, ObjectReader, StoredObject } from "./object-reader.ts";
import { readAll, storageReadMs } from "./read-all.ts";

/**
 * The Workers Cache API in front of the store for immutable objects (docs/workers-platform.md §3):
 * the cache is shared by every isolate of a data center, where the isolates' own caches are not,
 * and a cache read costs no storage operation (R2 bills each read; the cache's are free).
 *
 * The cache keeps whole objects only: `put` refuses 206 responses, and `match` answers a Range
 * from a stored whole object (206, when it has a Content-Length). So a miss reads the whole object
 * once — the same one storage call a ranged read costs — puts it, and every later read, ranged or
 * not, is answered by the cache. A second miss in the isolate while a fill runs reads storage.
 *
 * A miss of a small object (everything but range data) is answered from the bytes it read; the
 * put starts once the response has gone out (waitUntil, edge/request-scope.ts). A random GetBlock at mainnet
 * height misses its range's metadata and hash shard: answering after put and a second match cost
 * three cache calls per object on its critical path instead of one (bench/edge-profile.ts).
 * A data object's miss streams into the cache (it may be megabytes) and is matched again.
 *
 * What is cached: metadata, tree-state, subtree and block-hash index objects (small, read by every wallet) always;
 * so are the node-free history objects read whole (transaction tables, transaction index shards,
 * address directories); range data objects — the projections and the raw-block object — only for
 * the newest ranges (`hotFrom`): those every syncing wallet reads near the tip, where a
 * whole-object fill pays off at once; an old range's ranged read (a random GetBlock or
 * GetTransaction) would otherwise wait for megabytes it does not need. Never: head.json (mutable)
 * and address records objects (`.rec.bin`: megabytes per shard, read one address's span at a time).
 */
export interface CachePolicy {
  /** First range index whose data objects are cached, per network and range size; undefined: none. */
  hotFrom(network: string, rangeSize: number): number | undefined;
  /** The store the keys belong to (create-object-reader.ts `storeCacheScope`); default "". */
  scope?: string;
}

/** What kind of object a key names, for the policy and the counters. */
export type CachedKind = "meta" | "data" | "trees" | "subtrees" | "hash" | "history" | "other";

export interface CacheCounters {
  hits: Record<CachedKind, number>;
  misses: Record<CachedKind, number>;
  /** Misses the cache then could not answer (it refused the object): read from the store. */
  bypassed: number;
}

/** The cache's own key space: never fetched, only matched. */
const CACHE_ORIGIN = "https://lightedge-cache.internal/";

/**
 * The cache URL of a stored object: one entry per object, whoever reads it (the RPC paths here,
 * the GET downloads of http/objects.ts), so an object is never held twice; `scope` names the store
 * (storeCacheScope), so another deployment's bucket on the same zone never answers for this one.
 */
export function cacheUrlOf(key: string, scope = ""): string {
  return `${CACHE_ORIGIN}${encodeURIComponent(scope)}/${key}`;
}

const DATA_KEY = /^v\d+\/([a-z0-9-]{1,16})\/r(\d+)\/(\d{8})\.(shielded|full|nullifiers|raw)\.bin$/;
const META_KEY = /^v\d+\/[a-z0-9-]{1,16}\/r\d+\/\d{8}\.meta\.bin$/;
const TREES_KEY = /^v\d+\/[a-z0-9-]{1,16}\/r\d+\/\d{8}\.trees\.bin$/;
const SUBTREES_KEY = /^v\d+\/[a-z0-9-]{1,16}\/subtrees\//;
const HASH_KEY = /^v\d+\/[a-z0-9-]{1,16}\/r\d+\/hash\//;
const HEAD_KEY = /\/head\.json$/;
const HISTORY_KEY =
  /^v\d+\/[a-z0-9-]{1,16}\/r\d+\/(\d{8}\.txs\.bin|txid\/[^/]+\/[^/]+\.bin|taddr\/[^/]+\/[^/]+\.dir\.bin)$/;
const RECORDS_KEY = /\.rec\.bin$/;
const BUNDLE_KEY = /^v\d+\/[a-z0-9-]{1,16}\/r\d+\/b\d+\//;

/**
 * The kind of a key, or undefined for what must not be cached: the mutable head, address records,
 * and range bundles (proto/range/bundles.ts: older history in large objects, like the data objects
 * below `hotFrom`).
 */
export function cachedKind(key: string): CachedKind | undefined {
  if (HEAD_KEY.test(key) || RECORDS_KEY.test(key) || BUNDLE_KEY.test(key)) return undefined;
  if (DATA_KEY.test(key)) return "data";
  if (META_KEY.test(key)) return "meta";
  if (TREES_KEY.test(key)) return "trees";
  if (SUBTREES_KEY.test(key)) return "subtrees";
  if (HASH_KEY.test(key)) return "hash";
  if (HISTORY_KEY.test(key)) return "history";
  return "other";
}

const zero = (): Record<CachedKind, number> => ({
  meta: 0,
  data: 0,
  trees: 0,
  subtrees: 0,
  hash: 0,
  history: 0,
  other: 0,
});

export interface CachedReader extends ObjectReader {
  readonly counters: CacheCounters;
}

/** A fill not finished after this long is taken for dead (its request ended). */
const FILL_GIVE_UP_MS = 30_000;
/** Small objects kept while their puts land (metadata ≈ 60 KB, a tree-state object ≤ ≈ 0.5 MB). */
const LANDING_ENTRIES = 32;

export function createCachedReader(inner: ObjectReader, cache: Cache, policy: CachePolicy): CachedReader {
  const counters: CacheCounters = { hits: zero(), misses: zero(), bypassed: 0 };
  // Keys being filled in this isolate, with when. A second miss meanwhile reads storage directly
  // instead of awaiting the fill: that fill's promise belongs to another request's I/O
  // (proto/lru.ts). A fill whose request was cancelled never finishes: after FILL_GIVE_UP_MS
  // another miss fills again.
  const filling = new Map<string, number>();
  // Small objects read whole whose put has not landed yet: later reads in this isolate are answered
  // from these bytes (plain data, shareable across requests) instead of reading storage again — a
  // cold GetTreeState reads its range's table, then a record of the same object, at once.
  // Bounded like `filling`: a put whose request was cancelled never settles.
  const landing = new Map<string, { bytes: Uint8Array; info: ObjectInfo; since: number }>();
  const cacheable = (key: string): CachedKind | undefined => {
    const kind = cachedKind(key);
    if (kind !== "data") return kind;
    const m = DATA_KEY.exec(key)!;
    const from = policy.hotFrom(m[1]!, Number(m[2]));
    return from !== undefined && Number(m[3]) >= from ? kind : undefined;
  };
  const cacheHeaders = (object: ObjectInfo) => ({
    "content-length": String(object.size),
    etag: object.etag,
    "cache-control": "public, max-age=31536000, immutable",
  });
  /** A data object streamed into the cache whole: false when it is absent or the put gave up (putWithin). */
  const fill = async (key: string, url: string): Promise<boolean> => {
    const object = await inner.get(key);
    if (object === null) return false;
    return putWithin(cache, url, new Response(object.body, { headers: cacheHeaders(object) }), object.size);
  };
  /** A small object's miss: read whole, answered from its bytes, put in the cache after the response. */
  const fillSmall = async (key: string, url: string, range?: ByteRange): Promise<StoredObject | null> => {
    let bytes: Uint8Array;
    let info: ObjectInfo;
    try {
      const object = await inner.get(key);
      if (object === null) {
        filling.delete(key);
        return null;
      }
      bytes = await readAll(object.body, object.size, key);
      info = { size: bytes.length, etag: object.etag };
    } catch (err) {
      filling.delete(key);
      throw err;
    }
    // The answer is a view of `bytes`, the caller's; the put and later reads share one copy of
    // their own (a Response made from bytes copies them: Fetch, "extract a body").
    const stored = bytes.slice() as Uint8Array<ArrayBuffer>;
    landing.set(key, { bytes: stored, info, since: Date.now() });
    if (landing.size > LANDING_ENTRIES) landing.delete(landing.keys().next().value!);
    await afterResponse(() =>
      cache
        .put(url, new Response(stored, { headers: cacheHeaders(info) }))
        .catch(() => {})
        .finally(() => {
          filling.delete(key);
          landing.delete(key);
        }),
    );
    return fromBytes(bytes, info, range);
  };
  return {
    counters,
    head: (key) => inner.head(key),
    async get(key, range) {
      const kind = cacheable(key);
      if (kind === undefined) return inner.get(key, range);
      // Before the Cache API: while an object's put has not landed, a match there can only miss.
      const landed = landing.get(key);
      if (landed !== undefined) {
        if (Date.now() - landed.since < FILL_GIVE_UP_MS) {
          counters.hits[kind]++;
          return fromBytes(landed.bytes, landed.info, range);
        }
        landing.delete(key);
      }
      const url = cacheUrlOf(key, policy.scope);
      const hit = await match(cache, url, range);
      if (hit !== null) {
        counters.hits[kind]++;
        return hit;
      }
      counters.misses[kind]++;
      const since = filling.get(key);
      if (since !== undefined && Date.now() - since < FILL_GIVE_UP_MS) {
        counters.bypassed++;
        return inner.get(key, range);
      }
      filling.set(key, Date.now());
      if (kind !== "data") return fillSmall(key, url, range);
      const filled = await fill(key, url).then(
        (ok) => ok,
        () => false,
      );
      filling.delete(key);
      if (!filled) return inner.get(key, range);
      const after = await match(cache, url, range);
      if (after !== null) return after;
      counters.bypassed++;
      return inner.get(key, range);
    },
  };
}

/**
 * Streams a stored object of `size` bytes into the cache: true once it is in, false when its body
 * has not gone in within storageReadMs(size). A storage read stalled mid-body never ends the put,
 * so unbounded it would hang the call; callers read storage directly instead, whose own bounds
 * apply. The abandoned put is left to the runtime, which ends it with the request.
 */
export function putWithin(
  cache: Cache,
  key: RequestInfo,
  response: Response,
  size: number,
): Promise<boolean> {
  return withinMs(
    cache.put(key, response).then(() => true),
    storageReadMs(size),
    () => false,
  );
}

/** A whole object's bytes as a StoredObject, or the range of them (clamped to the end, as storage does). */
function fromBytes(bytes: Uint8Array, info: ObjectInfo, range?: ByteRange): StoredObject {
  if (range === undefined) return { ...info, body: bodyOf(bytes), bytes };
  const offset = Math.min(range.offset, bytes.length);
  const end = Math.min(bytes.length, range.offset + range.length);
  const part = bytes.subarray(offset, end);
  return { ...info, body: bodyOf(part), bytes: part, range: { offset, length: end - offset } };
}

function bodyOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new Response(bytes as Uint8Array<ArrayBuffer>).body!;
}

/** A cached whole object, or one range of it (206), as a StoredObject; null on a miss. */
async function match(cache: Cache, url: string, range?: ByteRange): Promise<StoredObject | null> {
  // A whole object is matched by URL: no Request to build (a third of a miss's cost under Miniflare).
  const res = await cache.match(
    range === undefined
      ? url
      : new Request(url, { headers: { range: `bytes=${range.offset}-${range.offset + range.length - 1}` } }),
  );
  if (res === undefined) return null;
  const body = res.body;
  if (body === null) return null;
  const etag = res.headers.get("etag") ?? "";
  if (res.status === 200 && range === undefined) {
    return { body, size: Number(res.headers.get("content-length")), etag };
  }
  // 206 for a range: the whole size is the Content-Range's last field (RFC 9110 §14.4).
  const m =
    res.status === 206 ? /^bytes (\d+)-(\d+)\/(\d+)$/.exec(res.headers.get("content-range") ?? "") : null;
  if (m === null) {
    await body.cancel();
    return null;
  }
  const offset = Number(m[1]);
  return { body, size: Number(m[3]), etag, range: { offset, length: Number(m[2]) - offset + 1 } };
}
