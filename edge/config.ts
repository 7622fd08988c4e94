import { LightedgeError } from "../proto/errors.ts";
import { DEFAULT_SPAN_READ_BYTES } from "../proto/range/index.ts";
import { DEFAULT_MAX_BUFFERED_BYTES } from "./blocks/buffer-budget.ts";
import { DEFAULT_SUBREQUEST_BUDGET, maxRangesFor } from "./blocks/plan.ts";
import type { Env } from "./env.ts";
import { DEFAULT_MAX_HISTORY_RECORDS, maxHistoryReadsFor } from "./history/budget.ts";

/** The worker's configuration, read once per env object into a frozen value. */
export interface EdgeConfig {
  /** Networks served; the first answers requests that do not name one. */
  networks: readonly string[];
  defaultNetwork: string;
  /** Origin base URL per network (absent: that network is served from storage only). */
  origins: ReadonlyMap<string, string>;
  originSecret: string;
  /** How long the head object (and the origin's tip) stay cached in the isolate. */
  headCacheMs: number;
  vendor: string;
  version: string;
  donationAddress: string;
  /** Period of the rate-limit bindings, the retry hint of a limited call (seconds). */
  rateLimitPeriodSeconds: number;
  /** The Worker's subrequest limit per request (SUBREQUEST_BUDGET). */
  subrequestBudget: number;
  /** Most sealed ranges one block-range request may read, from SUBREQUEST_BUDGET. */
  maxRangesPerRequest: number;
  /** Most storage reads one history call may make before it is proxied whole, from SUBREQUEST_BUDGET. */
  maxHistoryReads: number;
  /** Most address records the isolate's history calls hold at once (a call past it is proxied whole), from MAX_HISTORY_RECORDS. */
  maxHistoryRecords: number;
  /** Most bytes of stored spans the isolate's descending, re-projected and JSON range reads hold at once (the rest wait), from MAX_BUFFERED_BYTES. */
  maxBufferedBytes: number;
  /** Most bytes of one range's stored span a buffered read reads at once (a larger one is read in runs), from SPAN_READ_BYTES. */
  spanReadBytes: number;
  /** Newest ranges whose data objects the Cache API holds; null: the Cache API layer is off. */
  cacheHotRanges: number | null;
}

/** CACHE_HOT_RANGES unless set: the last 8 ranges (8,000 blocks, about a week of mainnet). */
export const DEFAULT_CACHE_HOT_RANGES = 8;

const configs = new WeakMap<Env, EdgeConfig>();

export function readConfig(env: Env): EdgeConfig {
  let config = configs.get(env);
  if (config === undefined) {
    config = parseConfig(env);
    configs.set(env, config);
  }
  return config;
}

function parseConfig(env: Env): EdgeConfig {
  const networks = (env.NETWORKS ?? "mainnet")
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");
  const defaultNetwork = networks[0] ?? "mainnet";
  const seconds = Number(env.HEAD_CACHE_SECONDS ?? "1");
  const given = Number(env.SUBREQUEST_BUDGET ?? DEFAULT_SUBREQUEST_BUDGET);
  const budget = Number.isSafeInteger(given) && given > 0 ? given : DEFAULT_SUBREQUEST_BUDGET;
  return Object.freeze({
    networks: Object.freeze(networks.length > 0 ? networks : [defaultNetwork]),
    defaultNetwork,
    origins: parseOrigins(env.ORIGIN_URL ?? "", defaultNetwork),
    originSecret: env.ORIGIN_SECRET ?? "",
    headCacheMs: Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000,
    vendor: env.VENDOR ?? "lightedge",
    version: env.VERSION ?? "",
    donationAddress: env.DONATION_ADDRESS ?? "",
    rateLimitPeriodSeconds: env.RATE_LIMIT_PERIOD_SECONDS === "10" ? 10 : 60,
    subrequestBudget: budget,
    maxRangesPerRequest: maxRangesFor(budget),
    maxHistoryReads: maxHistoryReadsFor(budget),
    maxHistoryRecords: parseCount(
      "MAX_HISTORY_RECORDS",
      env.MAX_HISTORY_RECORDS,
      DEFAULT_MAX_HISTORY_RECORDS,
    ),
    maxBufferedBytes: parseCount("MAX_BUFFERED_BYTES", env.MAX_BUFFERED_BYTES, DEFAULT_MAX_BUFFERED_BYTES),
    spanReadBytes: parseCount("SPAN_READ_BYTES", env.SPAN_READ_BYTES, DEFAULT_SPAN_READ_BYTES),
    cacheHotRanges: parseHotRanges(env.CACHE_HOT_RANGES),
  });
}

function parseCount(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === "") return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new LightedgeError("internal", "edge.config", `${name}: not a positive count: ${value}`);
  return n;
}

function parseHotRanges(value: string | undefined): number | null {
  if (value === undefined || value.trim() === "") return DEFAULT_CACHE_HOT_RANGES;
  if (value.trim() === "off") return null;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new LightedgeError("internal", "edge.config", `CACHE_HOT_RANGES: not a count or "off": ${value}`);
  return n;
}

/**
 * ORIGIN_URL is one URL (the default network's origin) or `network=url` pairs separated by
 * commas, because an origin follows one node and so serves exactly one network.
 */
export function parseOrigins(value: string, defaultNetwork: string): ReadonlyMap<string, string> {
  const origins = new Map<string, string>();
  for (const part of value.split(",").map((p) => p.trim())) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const [network, url] =
      eq > 0 && !part.slice(0, eq).includes(":")
        ? [part.slice(0, eq), part.slice(eq + 1)]
        : [defaultNetwork, part];
    try {
      new URL(url);
    } catch {
      throw new LightedgeError("internal", "edge.config", `ORIGIN_URL: not a URL: ${url}`);
    }
    origins.set(network, url.replace(/\/+$/, ""));
  }
  return origins;
}
