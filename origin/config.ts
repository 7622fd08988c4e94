import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ConfigError } from "./config-error.ts";
import { readSecretFile } from "./secret-file.ts";
import { S3_ENDPOINT_VARS, S3_REGION_VARS } from "./store/store-spec.ts";

/**
 * Origin configuration, read once from flags and environment into a frozen object. Shared by
 * `lightedge index` (indexer only) and `lightedge origin` (indexer + server). A flag wins over its
 * environment variable; every variable is listed in `configHelp`.
 */

export type Network = "mainnet" | "testnet" | "regtest";
export type NodeAuth = { user: string; password: string } | { cookieFile: string };

export interface HostPort {
  host: string;
  port: number;
}

export interface OriginConfig {
  node: { url: string; auth?: NodeAuth; timeoutMs: number };
  network: Network;
  /** `dir:PATH` or `s3://BUCKET/PREFIX` (origin/store parses it). */
  store: string;
  /** S3 endpoint/region: the flags, else the environment (store/store-spec.ts names). */
  s3: { endpoint?: string; region?: string };
  /** Local state: the unfinalized tail log. */
  dataDir: string;
  /** Blocks fetched and projected in parallel during initial sync. */
  concurrency: number;
  /** Raw block bytes the sync keeps in flight from the node (origin/index/fetch-budget.ts). */
  fetchBudgetBytes: number;
  rangeSize: number;
  /** Confirmations a block needs before it may be sealed (never below 100 on mainnet/testnet). */
  sealDepth: number;
  /** First height to index (rounded up to a range boundary: ranges are aligned from 0). */
  fromHeight: number;
  /** Tip poll interval; ≤ 1 s (issue 5). */
  pollMs: number;
  exitWhenSynced: boolean;
  /**
   * Node-free history (origin/history): raw blocks, transaction tables, the transaction and
   * address indexes, and the history database in the data directory. On unless `--history off`.
   */
  history: boolean;
  /**
   * How long index levels no head names any longer stay in the store before they are deleted
   * (origin/index/level-sweeper.ts); undefined (`off`): kept forever.
   */
  supersededGraceMs: number | undefined;
  /**
   * Ranges per bundle (proto/range/bundles.ts): each projection's data objects of that many aligned
   * ranges stored once more as one object, so the edge reads a run of them with one storage call;
   * 0 (`off`): none.
   */
  bundleRanges: number;
  /** Prometheus /metrics and /healthz; undefined = off. */
  admin?: HostPort;
  /** `origin` only: the RPC listener, TLS, the edge's shared secrets (a list, for rotation), Ping. */
  listen: HostPort;
  tls?: { cert: string; key: string };
  secrets: readonly string[];
  ping: boolean;
  progress: "auto" | "on" | "off";
  logLevel: string;
}

/** The seal depth mainnet and testnet must keep: 100 confirmations (issue 5). */
export const MIN_PUBLIC_SEAL_DEPTH = 100;

const options = {
  node: { type: "string" },
  "node-user": { type: "string" },
  "node-password": { type: "string" },
  "node-cookie": { type: "string" },
  "node-timeout-ms": { type: "string" },
  network: { type: "string" },
  store: { type: "string" },
  "s3-endpoint": { type: "string" },
  "s3-region": { type: "string" },
  "data-dir": { type: "string" },
  concurrency: { type: "string" },
  "fetch-budget-mib": { type: "string" },
  "range-size": { type: "string" },
  "seal-depth": { type: "string" },
  from: { type: "string" },
  "poll-ms": { type: "string" },
  "exit-when-synced": { type: "boolean" },
  history: { type: "string" },
  "superseded-grace-minutes": { type: "string" },
  "bundle-ranges": { type: "string" },
  admin: { type: "string" },
  listen: { type: "string" },
  "tls-cert": { type: "string" },
  "tls-key": { type: "string" },
  secret: { type: "string", multiple: true },
  "secret-file": { type: "string" },
  ping: { type: "boolean" },
  progress: { type: "string" },
  "log-level": { type: "string" },
} as const;

export const configHelp = `connection:
  --node URL              node JSON-RPC URL                  LIGHTEDGE_NODE_URL
  --node-user U           RPC user                           LIGHTEDGE_NODE_USER
  --node-password P       RPC password                       LIGHTEDGE_NODE_PASSWORD
  --node-cookie FILE      cookie file (instead of user/pw)   LIGHTEDGE_NODE_COOKIE
  --node-timeout-ms N     per request (default 30000)        LIGHTEDGE_NODE_TIMEOUT_MS
  --network NET           mainnet | testnet | regtest        LIGHTEDGE_NETWORK
storage:
  --store SPEC            dir:PATH | s3://BUCKET/PREFIX      LIGHTEDGE_STORE (default dir:./data/store)
  --s3-endpoint URL       S3 API endpoint (R2, MinIO, moto)  S3_ENDPOINT (or AWS_ENDPOINT_URL[_S3])
  --s3-region R           region (us-east-1; auto for R2)    S3_REGION (or AWS_REGION)
                          deprecated, still read: LIGHTEDGE_S3_ENDPOINT, LIGHTEDGE_S3_REGION
                          credentials: S3_ACCESS_KEY_ID + S3_SECRET_ACCESS_KEY, or the AWS_* chain
  --data-dir DIR          local tail state                   LIGHTEDGE_DATA_DIR (default ./data/origin-NET)
indexing:
  --concurrency N         parallel fetches (default 16)      LIGHTEDGE_CONCURRENCY
  --fetch-budget-mib N    raw blocks in flight, MiB (32)     LIGHTEDGE_FETCH_BUDGET_MIB
  --range-size N          blocks per sealed range (1000)     LIGHTEDGE_RANGE_SIZE
  --seal-depth N          confirmations before sealing (100) LIGHTEDGE_SEAL_DEPTH
  --from H                first height (default 0)           LIGHTEDGE_FROM_HEIGHT
  --poll-ms N             tip poll interval, ≤ 1000 (500)    LIGHTEDGE_POLL_MS
  --exit-when-synced      exit once everything final is sealed
  --history on|off        raw blocks + tx/address indexes    LIGHTEDGE_HISTORY (default on)
  --superseded-grace-minutes N|off
                          delete index levels no head names  LIGHTEDGE_SUPERSEDED_GRACE_MINUTES
                          after N minutes (60; off = keep)
  --bundle-ranges N|off   ranges per bundle object (10)      LIGHTEDGE_BUNDLE_RANGES
operations:
  --admin HOST:PORT|off   /metrics and /healthz (127.0.0.1:9464) LIGHTEDGE_ADMIN
  --progress auto|on|off  progress bar (auto = on a TTY)     LIGHTEDGE_PROGRESS
  --log-level L           pino level (info)                  LIGHTEDGE_LOG_LEVEL`;

export const serverConfigHelp = `server (origin only):
  --listen HOST:PORT      RPC listener (127.0.0.1:9067)      LIGHTEDGE_LISTEN
  --tls-cert FILE         PEM certificate (with --tls-key)   LIGHTEDGE_TLS_CERT
  --tls-key FILE          PEM private key                    LIGHTEDGE_TLS_KEY
  --secret S              edge shared secret (repeatable)    LIGHTEDGE_SECRETS (comma-separated)
  --secret-file FILE      secrets, one a line (mode 0600)    LIGHTEDGE_SECRET_FILE
  --ping                  enable the Ping RPC                LIGHTEDGE_PING=1`;

type Env = Record<string, string | undefined>;

/** The environment `openStore` reads, with the S3 flags applied (origin/store/store-spec.ts names). */
export function storeEnv(config: OriginConfig, env: Env = process.env): Env {
  return {
    ...env,
    ...(config.s3.endpoint ? { S3_ENDPOINT: config.s3.endpoint } : {}),
    ...(config.s3.region ? { S3_REGION: config.s3.region } : {}),
  };
}

/** Parses argv + env into a frozen config; throws ConfigError for anything wrong. */
export function loadOriginConfig(argv: string[], env: Env = process.env): Readonly<OriginConfig> {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    values = parseArgs({ args: argv, options, allowPositionals: false, strict: true }).values;
  } catch (err) {
    throw new ConfigError(err instanceof Error ? err.message : String(err));
  }
  const pick = (flag: string, ...vars: string[]): string | undefined => {
    const value = values[flag];
    if (typeof value === "string") return value;
    for (const name of vars) if (env[name] !== undefined && env[name] !== "") return env[name];
    return undefined;
  };
  const network = parseNetwork(pick("network", "LIGHTEDGE_NETWORK"));
  const url = pick("node", "LIGHTEDGE_NODE_URL");
  if (url === undefined) throw new ConfigError("--node URL is required (or LIGHTEDGE_NODE_URL)");
  const sealDepth = int(pick("seal-depth", "LIGHTEDGE_SEAL_DEPTH") ?? "100", "--seal-depth", 1);
  if (network !== "regtest" && sealDepth < MIN_PUBLIC_SEAL_DEPTH) {
    throw new ConfigError(
      `--seal-depth must be ≥ ${MIN_PUBLIC_SEAL_DEPTH} on ${network} (reorgs that deep happen)`,
    );
  }
  const pollMs = int(pick("poll-ms", "LIGHTEDGE_POLL_MS") ?? "500", "--poll-ms", 10);
  if (pollMs > 1000) throw new ConfigError("--poll-ms must be ≤ 1000 (issue 5: follow the tip within 1 s)");
  const config: OriginConfig = {
    node: {
      url: checkUrl(url),
      auth: nodeAuth(pick),
      timeoutMs: int(pick("node-timeout-ms", "LIGHTEDGE_NODE_TIMEOUT_MS") ?? "30000", "--node-timeout-ms", 1),
    },
    network,
    store: checkStore(pick("store", "LIGHTEDGE_STORE") ?? "dir:./data/store"),
    s3: {
      endpoint: pick("s3-endpoint", ...S3_ENDPOINT_VARS),
      region: pick("s3-region", ...S3_REGION_VARS),
    },
    dataDir: pick("data-dir", "LIGHTEDGE_DATA_DIR") ?? `./data/origin-${network}`,
    concurrency: int(pick("concurrency", "LIGHTEDGE_CONCURRENCY") ?? "16", "--concurrency", 1),
    fetchBudgetBytes:
      int(pick("fetch-budget-mib", "LIGHTEDGE_FETCH_BUDGET_MIB") ?? "32", "--fetch-budget-mib", 1) *
      1024 *
      1024,
    rangeSize: int(pick("range-size", "LIGHTEDGE_RANGE_SIZE") ?? "1000", "--range-size", 1),
    sealDepth,
    fromHeight: int(pick("from", "LIGHTEDGE_FROM_HEIGHT") ?? "0", "--from", 0),
    pollMs,
    exitWhenSynced: values["exit-when-synced"] === true,
    history: parseOnOff(pick("history", "LIGHTEDGE_HISTORY") ?? "on", "--history"),
    supersededGraceMs: parseGraceMinutes(
      pick("superseded-grace-minutes", "LIGHTEDGE_SUPERSEDED_GRACE_MINUTES") ?? "60",
    ),
    bundleRanges: parseBundleRanges(pick("bundle-ranges", "LIGHTEDGE_BUNDLE_RANGES") ?? "10"),
    admin: parseAdmin(pick("admin", "LIGHTEDGE_ADMIN") ?? "127.0.0.1:9464"),
    listen: parseHostPort(pick("listen", "LIGHTEDGE_LISTEN") ?? "127.0.0.1:9067", "--listen"),
    tls: parseTls(pick("tls-cert", "LIGHTEDGE_TLS_CERT"), pick("tls-key", "LIGHTEDGE_TLS_KEY")),
    secrets: parseSecrets(values.secret, env.LIGHTEDGE_SECRETS, pick("secret-file", "LIGHTEDGE_SECRET_FILE")),
    ping: values.ping === true || env.LIGHTEDGE_PING === "1" || env.LIGHTEDGE_PING === "true",
    progress: parseProgress(pick("progress", "LIGHTEDGE_PROGRESS") ?? "auto"),
    logLevel: pick("log-level", "LIGHTEDGE_LOG_LEVEL") ?? "info",
  };
  return deepFreeze(config);
}

function parseOnOff(value: string, flag: string): boolean {
  if (value === "on") return true;
  if (value === "off") return false;
  throw new ConfigError(`${flag} must be on or off (got ${JSON.stringify(value)})`);
}

/**
 * Minutes as milliseconds, or undefined for "off". At least 1: readers holding the previous head
 * (the edge keeps its head HEAD_CACHE_SECONDS, a request runs to its deadline) must still find its
 * levels.
 */
function parseGraceMinutes(value: string): number | undefined {
  if (value === "off") return undefined;
  return int(value, "--superseded-grace-minutes", 1) * 60_000;
}

/** Ranges per bundle: 2–1,000 (the head's bound), or 0 for "off". */
function parseBundleRanges(value: string): number {
  if (value === "off") return 0;
  const n = int(value, "--bundle-ranges", 2);
  if (n > 1_000) throw new ConfigError(`--bundle-ranges must be at most 1000 (got ${n})`);
  return n;
}

function parseNetwork(value: string | undefined): Network {
  if (value === "mainnet" || value === "testnet" || value === "regtest") return value;
  if (value === "main") return "mainnet";
  if (value === "test") return "testnet";
  throw new ConfigError(`--network must be mainnet, testnet or regtest (got ${JSON.stringify(value ?? "")})`);
}

function nodeAuth(pick: (flag: string, ...vars: string[]) => string | undefined): NodeAuth | undefined {
  const cookieFile = pick("node-cookie", "LIGHTEDGE_NODE_COOKIE");
  const user = pick("node-user", "LIGHTEDGE_NODE_USER");
  const password = pick("node-password", "LIGHTEDGE_NODE_PASSWORD");
  if (cookieFile !== undefined && (user !== undefined || password !== undefined)) {
    throw new ConfigError("use either --node-cookie or --node-user/--node-password, not both");
  }
  if (cookieFile !== undefined) return { cookieFile };
  if (user === undefined && password === undefined) return undefined;
  if (user === undefined || password === undefined)
    throw new ConfigError("--node-user and --node-password go together");
  return { user, password };
}

function int(text: string, flag: string, min: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min) {
    throw new ConfigError(`${flag} must be an integer ≥ ${min} (got ${JSON.stringify(text)})`);
  }
  return value;
}

function checkUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === "http:" || parsed.protocol === "https:") return url;
  } catch {}
  throw new ConfigError(`--node must be an http(s) URL (got ${JSON.stringify(url)})`);
}

function checkStore(spec: string): string {
  if (/^dir:.+/.test(spec) || /^s3:\/\/[^/]+/.test(spec)) return spec;
  throw new ConfigError(`--store must be dir:PATH or s3://BUCKET/PREFIX (got ${JSON.stringify(spec)})`);
}

export function parseHostPort(text: string, flag: string): HostPort {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  if (!match || port > 65535)
    throw new ConfigError(`${flag} must be HOST:PORT (got ${JSON.stringify(text)})`);
  return { host: match[1] ?? (match[2] || "127.0.0.1"), port };
}

function parseAdmin(text: string): HostPort | undefined {
  return text === "off" || text === "" ? undefined : parseHostPort(text, "--admin");
}

function parseTls(
  cert: string | undefined,
  key: string | undefined,
): { cert: string; key: string } | undefined {
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined || key === undefined) throw new ConfigError("--tls-cert and --tls-key go together");
  try {
    return { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") };
  } catch (err) {
    throw new ConfigError(`cannot read TLS files: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The edge's shared secrets: `--secret` flags (else LIGHTEDGE_SECRETS) together with those of
 * `--secret-file` (else LIGHTEDGE_SECRET_FILE) — the file keeps them off command lines, which
 * anyone on the host can read in /proc/PID/cmdline.
 */
function parseSecrets(flags: unknown, env: string | undefined, file: string | undefined): string[] {
  const list = Array.isArray(flags) ? (flags as string[]) : (env?.split(",") ?? []);
  const given = list.map((s) => s.trim()).filter((s) => s.length > 0);
  return [...new Set([...given, ...(file === undefined ? [] : readSecretFile(file))])];
}

function parseProgress(text: string): "auto" | "on" | "off" {
  if (text === "auto" || text === "on" || text === "off") return text;
  throw new ConfigError(`--progress must be auto, on or off (got ${JSON.stringify(text)})`);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
