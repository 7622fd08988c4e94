# ── where the Worker lives ──

variable "account_id" {
  description = "Cloudflare account ID that owns the Worker."
  type        = string
}

variable "zone_id" {
  description = "Zone ID for the Worker's custom domain and routes (required when hostname or route_patterns are set)."
  type        = string
  default     = null
}

variable "script_name" {
  description = "Worker script name (wrangler.toml `name`)."
  type        = string
  default     = "lightedge-edge"
}

variable "bundle_path" {
  description = "Path of the bundled main module, built by `wrangler deploy --dry-run --outdir <dir>` (for example dist/edge/index.js)."
  type        = string
}

variable "main_module" {
  description = "File name of the main module inside the upload (the bundle's file name)."
  type        = string
  default     = "index.js"
}

variable "compatibility_date" {
  description = "Workers compatibility date; keep equal to wrangler.toml (a test checks the default)."
  type        = string
  default     = "2026-11-01"
}

variable "compatibility_flags" {
  description = "Workers compatibility flags; keep equal to wrangler.toml (a test checks the default)."
  type        = list(string)
  default     = ["nodejs_compat", "enable_request_signal"]
}

variable "hostname" {
  description = "Custom domain the Worker serves (for example lightwallet.example.com); empty for none."
  type        = string
  default     = ""
}

variable "route_patterns" {
  description = "Zone route patterns for the Worker (for example example.com/lightwallet/*), as an alternative to hostname."
  type        = list(string)
  default     = []
}

# ── what the deployment serves (plain-text bindings) ──

variable "networks" {
  description = "Networks served, first is the default (NETWORKS)."
  type        = list(string)
  default     = ["mainnet"]

  validation {
    condition     = length(var.networks) > 0 && alltrue([for n in var.networks : contains(["mainnet", "testnet", "regtest"], n)])
    error_message = "networks must be a non-empty list of mainnet, testnet, regtest."
  }
}

variable "vendor" {
  description = "LightdInfo.vendor (VENDOR)."
  type        = string
  default     = "lightedge"
}

variable "lightedge_version" {
  description = "LightdInfo.version (VERSION)."
  type        = string
  default     = "0.1.0"
}

variable "donation_address" {
  description = "LightdInfo.donationAddress, a unified address; empty for none (DONATION_ADDRESS)."
  type        = string
  default     = ""
}

# ── where sealed ranges are read from ──

variable "bucket_name" {
  description = "R2 bucket bound as BLOCKS; null to read through S3 or a public URL instead."
  type        = string
  default     = null
}

variable "store_prefix" {
  description = "Key prefix of lightedge objects inside the bucket, \"\" for the root (STORE_PREFIX)."
  type        = string
  default     = ""
}

variable "s3_endpoint" {
  description = "S3-compatible endpoint for the S3 reader, \"\" when BLOCKS is bound (S3_ENDPOINT). Setting it binds the S3 credential secrets."
  type        = string
  default     = ""
}

variable "s3_bucket" {
  description = "Bucket name for the S3 reader (S3_BUCKET)."
  type        = string
  default     = ""
}

variable "s3_region" {
  description = "SigV4 region for the S3 reader, \"auto\" for R2 (S3_REGION)."
  type        = string
  default     = "auto"
}

variable "s3_access_key_id" {
  description = "S3 access key id for the S3 reader (secret S3_ACCESS_KEY_ID); required when s3_endpoint is set."
  type        = string
  sensitive   = true
  default     = null

  validation {
    condition     = var.s3_endpoint == "" || var.s3_access_key_id != null
    error_message = "s3_access_key_id is required when s3_endpoint is set."
  }
}

variable "s3_secret_access_key" {
  description = "S3 secret access key for the S3 reader (secret S3_SECRET_ACCESS_KEY); required when s3_endpoint is set."
  type        = string
  sensitive   = true
  default     = null

  validation {
    condition     = var.s3_endpoint == "" || var.s3_secret_access_key != null
    error_message = "s3_secret_access_key is required when s3_endpoint is set."
  }
}

variable "store_public_url" {
  description = "Public base URL of the bucket or a CDN in front of it, for unsigned reads (STORE_PUBLIC_URL)."
  type        = string
  default     = ""
}

# ── the origin ──

variable "origin_url" {
  description = "Origin base URL for the live tail and node-only RPCs; \"\" serves sealed data only (ORIGIN_URL). Setting it binds ORIGIN_SECRET."
  type        = string
  default     = ""
}

variable "origin_secret" {
  description = "Shared secret the Worker sends to the origin in x-lightedge-secret (secret ORIGIN_SECRET); required when origin_url is set."
  type        = string
  sensitive   = true
  default     = null

  validation {
    condition     = var.origin_url == "" || var.origin_secret != null
    error_message = "origin_secret is required when origin_url is set."
  }
}

# ── caching ──

variable "head_cache_seconds" {
  description = "Seconds the head object is cached per isolate; GetLatestBlock is at most this stale (HEAD_CACHE_SECONDS)."
  type        = number
  default     = 1

  validation {
    condition     = var.head_cache_seconds >= 0 && var.head_cache_seconds <= 2
    error_message = "head_cache_seconds must be between 0 and 2 so GetLatestBlock stays fresh."
  }
}

# ── per-client rate limits (Workers Rate Limiting bindings, keyed by the client's IP) ──

variable "node_rate_limit" {
  description = "Node-backed calls (GetTransaction, GetTaddress*, GetMempool*, GetAddressUtxos*, Ping) one client may make per rate_limit_period (NODE_RATE_LIMIT)."
  type        = number
  default     = 600

  validation {
    condition     = var.node_rate_limit >= 1
    error_message = "node_rate_limit must be at least 1."
  }
}

variable "send_rate_limit" {
  description = "SendTransaction calls one client may make per rate_limit_period (SEND_RATE_LIMIT)."
  type        = number
  default     = 30

  validation {
    condition     = var.send_rate_limit >= 1
    error_message = "send_rate_limit must be at least 1."
  }
}

variable "rate_limit_period" {
  description = "Window of both rate limits in seconds, 10 or 60 (the only periods Workers Rate Limiting takes); also the retry hint (RATE_LIMIT_PERIOD_SECONDS)."
  type        = number
  default     = 60

  validation {
    condition     = contains([10, 60], var.rate_limit_period)
    error_message = "rate_limit_period must be 10 or 60."
  }
}

variable "node_rate_limit_namespace_id" {
  description = "Rate Limiting namespace of NODE_RATE_LIMIT: an integer unique in the account (wrangler.toml uses 16001)."
  type        = number
  default     = 16001
}

variable "send_rate_limit_namespace_id" {
  description = "Rate Limiting namespace of SEND_RATE_LIMIT: an integer unique in the account (wrangler.toml uses 16002)."
  type        = number
  default     = 16002
}

variable "subrequest_budget" {
  type        = number
  default     = 50000
  description = "The Worker's subrequest limit per request, bound as SUBREQUEST_BUDGET: a block range may read floor((budget - 16) / 3) sealed ranges. Raise the Worker's own limit to match (wrangler.toml [limits] subrequests, or the dashboard); the default 10,000 caps a request at 3,328 ranges."
}

variable "max_history_records" {
  type        = number
  default     = 50000
  description = "Address records the Worker isolate's transparent-address calls may hold in its memory at once (about 670 bytes each decoded), bound as MAX_HISTORY_RECORDS; a call that would pass it is proxied whole to the origin."

  validation {
    condition     = var.max_history_records >= 1 && floor(var.max_history_records) == var.max_history_records
    error_message = "max_history_records is a whole number of at least 1."
  }
}

variable "max_buffered_bytes" {
  type        = number
  default     = 50331648
  description = "Bytes of stored range spans the Worker isolate may buffer at once for block ranges sent descending, re-projected or as JSON (ascending stored frames are piped, never held), bound as MAX_BUFFERED_BYTES; a read that finds no room waits up to 10 s, then ends Unavailable. Each read holds one run of at most span_read_bytes."

  validation {
    condition     = var.max_buffered_bytes >= 1 && floor(var.max_buffered_bytes) == var.max_buffered_bytes
    error_message = "max_buffered_bytes is a whole number of at least 1."
  }
}

variable "span_read_bytes" {
  type        = number
  default     = 4194304
  description = "Most bytes of one range's stored span a buffered block-range read (descending, re-projected or JSON) holds at once, bound as SPAN_READ_BYTES: a larger span (a 2022-23 spam-era mainnet range is about 42 MB) is read in runs of ranged reads, one held at a time, paid from the subrequests the request's plan leaves unused."

  validation {
    condition     = var.span_read_bytes >= 1 && floor(var.span_read_bytes) == var.span_read_bytes
    error_message = "span_read_bytes is a whole number of at least 1."
  }
}

variable "cache_hot_ranges" {
  description = "Newest sealed ranges whose data objects the Cache API holds whole; metadata and tree states are always cached; \"off\" disables the layer (CACHE_HOT_RANGES)."
  type        = string
  default     = "8"

  validation {
    condition     = var.cache_hot_ranges == "off" || can(regex("^[0-9]+$", var.cache_hot_ranges))
    error_message = "cache_hot_ranges is a whole number or \"off\"."
  }
}

variable "cache_namespace" {
  description = "Names the store in the Worker's Cache API keys (CACHE_NAMESPACE); \"\" for the bucket's name. Change it after replacing the bucket's objects in place: cached copies are kept as immutable."
  type        = string
  default     = ""
}
