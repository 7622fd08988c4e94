// Every binding and var the worker reads, declared once. Each is commented in wrangler.toml and
// named identically in infra/ (infra/names.json lists them; a test checks all three agree).
export interface Env {
  // ── what this deployment serves ──
  /** Comma-separated networks served ("mainnet", "testnet", "regtest"); the first is the default. */
  NETWORKS: string;
  /** LightdInfo.vendor. */
  VENDOR: string;
  /** LightdInfo.version. */
  VERSION: string;
  /** LightdInfo.donationAddress; empty for none. */
  DONATION_ADDRESS: string;

  // ── where sealed ranges are read from (first configured wins: BLOCKS, then S3, then public URL) ──
  /** R2 bucket holding sealed ranges and head objects (binding). */
  BLOCKS?: R2Bucket;
  /** Key prefix inside the bucket ("" for none). */
  STORE_PREFIX?: string;
  /** S3-compatible endpoint for the S3 reader, e.g. https://<account>.r2.cloudflarestorage.com. */
  S3_ENDPOINT?: string;
  /** Bucket name for the S3 reader. */
  S3_BUCKET?: string;
  /** Region for SigV4 ("auto" for R2). */
  S3_REGION?: string;
  /** Secret: S3 access key id. */
  S3_ACCESS_KEY_ID?: string;
  /** Secret: S3 secret access key. */
  S3_SECRET_ACCESS_KEY?: string;
  /** Public base URL of the bucket or a CDN in front of it (plain fetch, no signing). */
  STORE_PUBLIC_URL?: string;

  // ── the origin (tail blocks, node-only RPCs) ──
  /** Origin base URL, e.g. https://origin.example.com:9067. Empty: storage only. */
  ORIGIN_URL?: string;
  /** Secret: shared secret sent to the origin in the x-lightedge-secret header. */
  ORIGIN_SECRET?: string;

  // ── per-client rate limits (wrangler.toml [[ratelimits]]; key: CF-Connecting-IP) ──
  /** Rate-limit binding for node-backed RPCs (GetTransaction, GetTaddress*, mempool, UTXOs, Ping). */
  NODE_RATE_LIMIT?: RateLimit;
  /** Rate-limit binding for SendTransaction. */
  SEND_RATE_LIMIT?: RateLimit;
  /** The bindings' period in seconds (10 or 60), sent back as the retry hint; keep equal to theirs. */
  RATE_LIMIT_PERIOD_SECONDS?: string;
  /** The Worker's subrequest limit per request (`[limits] subrequests`); caps ranges per request. */
  SUBREQUEST_BUDGET?: string;
  /**
   * Address records one transparent-address call may hold in the isolate's memory before it is
   * proxied whole to the origin (default 50,000: edge/history/budget.ts).
   */
  MAX_HISTORY_RECORDS?: string;
  /**
   * Bytes of stored range spans the isolate's descending, re-projected and JSON block-range reads
   * may buffer at once; the others wait their turn (default 48 MiB: edge/blocks/buffer-budget.ts).
   */
  MAX_BUFFERED_BYTES?: string;
  /**
   * Most bytes of one range's stored span such a read reads at once: a larger span (a spam-era
   * range) is read in runs of ranged reads, one held at a time (default 4 MiB:
   * proto/range/span-runs.ts).
   */
  SPAN_READ_BYTES?: string;

  // ── caching ──
  /** Seconds the head object is cached in the isolate (then refreshed in the background for up to as long again). */
  HEAD_CACHE_SECONDS?: string;
  /**
   * Newest sealed ranges whose data objects the Cache API holds whole (default 8; 0: none). Metadata,
   * tree-state and subtree objects are always cached; "off" turns the Cache API layer off.
   */
  CACHE_HOT_RANGES?: string;
  /**
   * Names this deployment's store in its Cache API keys ("" or unset: the store's location — the
   * R2 binding's prefix, the S3 endpoint, bucket and prefix, the public URL and prefix). Set it to
   * the R2 bucket's name when deployments on one zone read different buckets (Terraform does), and
   * change it after replacing a store's objects in place: cached copies are kept as immutable.
   */
  CACHE_NAMESPACE?: string;
}
