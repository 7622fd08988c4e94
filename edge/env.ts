// Every binding and var the worker reads, declared once. Each is commented in wrangler.toml.
export interface Env {
  /** Comma-separated networks served; the first is the default. */
  NETWORKS: string;
  /** LightdInfo.vendor. */
  VENDOR: string;
  /** LightdInfo.version. */
  VERSION: string;
  /** LightdInfo.donationAddress; empty for none. */
  DONATION_ADDRESS: string;
  /** R2 bucket holding sealed ranges and head objects. */
  BLOCKS: R2Bucket;
}
