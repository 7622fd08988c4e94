import { lastRangeIndex } from "../proto/range/index.ts";
import type { RangeReader } from "../proto/range/reader.ts";
import type { TreeStateReader } from "../proto/treestate/index.ts";
import { createHeadSource, type HeadSource } from "./blocks/head-source.ts";
import { type EdgeConfig, readConfig } from "./config.ts";
import type { Env } from "./env.ts";
import { type CacheCounters, createCachedReader } from "./store/cached-reader.ts";
import { createObjectReader, type ObjectReader, storeCacheScope } from "./store/index.ts";
import { createRangeReaders } from "./store/range-store.ts";
import { createTreeStateReaders } from "./store/tree-state-readers.ts";
import { createOriginClient, type OriginClient } from "./tail/origin-client.ts";

/** Everything a request handler needs, built once per isolate per env (caches live here). */
export interface EdgeServices {
  config: EdgeConfig;
  reader: ObjectReader;
  heads: HeadSource;
  /** Sealed ranges of a network and range size: metadata cached, spans as native bodies. */
  ranges(network: string, rangeSize: number): RangeReader<ReadableStream<Uint8Array>>;
  /** Stored tree states of a network: range tables cached, one read per answer when warm. */
  treeStates(network: string): TreeStateReader;
  /** The origin of a network, or undefined when it is served from storage only. */
  origin(network: string): OriginClient | undefined;
  /** Cache API hits and misses of this isolate, when the layer is on. */
  cacheCounters?: CacheCounters;
  /** The store in this deployment's Cache API keys (store/create-object-reader.ts storeCacheScope). */
  cacheScope: string;
  /**
   * The first range index whose data objects go through the Cache API (a miss streams the read into
   * a put: two connections while it fills); undefined when none do.
   */
  hotFrom(network: string, rangeSize: number): number | undefined;
  /** Where hidden (Internal) error causes go. */
  log(err: unknown): void;
}

const built = new WeakMap<Env, EdgeServices>();

export function servicesFor(env: Env): EdgeServices {
  let services = built.get(env);
  if (services === undefined) {
    services = buildServices(env);
    built.set(env, services);
  }
  return services;
}

function buildServices(env: Env): EdgeServices {
  const config = readConfig(env);
  const store = createObjectReader(env);
  const cache = config.cacheHotRanges === null ? undefined : defaultCache();
  let heads: HeadSource | undefined;
  const hot = config.cacheHotRanges ?? 0;
  const hotFrom = (network: string, rangeSize: number) => {
    const head = heads?.peek(network);
    if (cache === undefined || hot === 0 || !head?.tip || head.rangeSize !== rangeSize) return undefined;
    return lastRangeIndex(head) - hot + 1;
  };
  const cacheScope = storeCacheScope(env);
  const cached =
    cache === undefined ? undefined : createCachedReader(store, cache, { hotFrom, scope: cacheScope });
  const reader: ObjectReader = cached ?? store;
  heads = createHeadSource(reader, config.headCacheMs);
  const origins = new Map<string, OriginClient>();
  for (const [network, url] of config.origins)
    origins.set(network, createOriginClient(url, config.originSecret));
  return {
    config,
    reader,
    heads,
    cacheCounters: cached?.counters,
    cacheScope,
    hotFrom,
    ranges: createRangeReaders(reader),
    treeStates: createTreeStateReaders(reader),
    origin: (network) => origins.get(network),
    log: (err) =>
      console.error(JSON.stringify({ level: "error", msg: "internal error", err: describe(err) })),
  };
}

/** The data center's cache, where the runtime has one (workerd does; a plain test runtime may not). */
function defaultCache(): Cache | undefined {
  return typeof caches === "undefined" ? undefined : (caches as unknown as { default: Cache }).default;
}

function describe(err: unknown): unknown {
  if (!(err instanceof Error)) return String(err);
  return {
    name: err.name,
    message: err.message,
    cause: err.cause === undefined ? undefined : describe(err.cause),
  };
}
