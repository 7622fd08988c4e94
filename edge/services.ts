import type { RangeReader } from "../proto/range/reader.ts";
import { createHeadSource, type HeadSource } from "./blocks/head-source.ts";
import { type EdgeConfig, readConfig } from "./config.ts";
import type { Env } from "./env.ts";
import { createObjectReader, type ObjectReader } from "./store/index.ts";
import { createRangeReaders } from "./store/range-store.ts";
import { createOriginClient, type OriginClient } from "./tail/origin-client.ts";

/** Everything a request handler needs, built once per isolate per env (caches live here). */
export interface EdgeServices {
  config: EdgeConfig;
  reader: ObjectReader;
  heads: HeadSource;
  /** Sealed ranges of a network and range size: metadata cached, spans as native bodies. */
  ranges(network: string, rangeSize: number): RangeReader<ReadableStream<Uint8Array>>;
  /** The origin of a network, or undefined when it is served from storage only. */
  origin(network: string): OriginClient | undefined;
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
  const reader = createObjectReader(env);
  const origins = new Map<string, OriginClient>();
  for (const [network, url] of config.origins)
    origins.set(network, createOriginClient(url, config.originSecret));
  return {
    config,
    reader,
    heads: createHeadSource(reader, config.headCacheMs),
    ranges: createRangeReaders(reader),
    origin: (network) => origins.get(network),
    log: (err) =>
      console.error(JSON.stringify({ level: "error", msg: "internal error", err: describe(err) })),
  };
}

function describe(err: unknown): unknown {
  if (!(err instanceof Error)) return String(err);
  return {
    name: err.name,
    message: err.message,
    cause: err.cause === undefined ? undefined : describe(err.cause),
  };
}
