# Every binding the Worker gets, keyed by the names in infra/names.json (the same names as
# edge/env.ts and wrangler.toml; infra/names.test.ts checks all of them agree). This file holds
# only locals over variables so the test can evaluate it with `terraform console`, no provider.
locals {
  r2_buckets = {
    BLOCKS = var.bucket_name
  }

  # Per-client rate limits (Workers Rate Limiting; the Worker keys them by CF-Connecting-IP).
  # One period for both, also bound as RATE_LIMIT_PERIOD_SECONDS: the retry hint clients get.
  rate_limits = {
    NODE_RATE_LIMIT = { namespace_id = var.node_rate_limit_namespace_id, limit = var.node_rate_limit }
    SEND_RATE_LIMIT = { namespace_id = var.send_rate_limit_namespace_id, limit = var.send_rate_limit }
  }

  plain_text = {
    NETWORKS           = join(",", var.networks)
    VENDOR             = var.vendor
    VERSION            = var.lightedge_version
    DONATION_ADDRESS   = var.donation_address
    STORE_PREFIX       = var.store_prefix
    S3_ENDPOINT        = var.s3_endpoint
    S3_BUCKET          = var.s3_bucket
    S3_REGION          = var.s3_region
    STORE_PUBLIC_URL   = var.store_public_url
    ORIGIN_URL         = var.origin_url
    HEAD_CACHE_SECONDS = tostring(var.head_cache_seconds)

    RATE_LIMIT_PERIOD_SECONDS = tostring(var.rate_limit_period)
    SUBREQUEST_BUDGET         = tostring(var.subrequest_budget)
    MAX_HISTORY_RECORDS       = tostring(var.max_history_records)
    MAX_BUFFERED_BYTES        = tostring(var.max_buffered_bytes)
    SPAN_READ_BYTES           = tostring(var.span_read_bytes)
    CACHE_HOT_RANGES          = var.cache_hot_ranges
    # The Worker cannot tell which bucket its binding is: the name keeps its Cache API entries
    # apart from another deployment's on the same zone (edge/store/create-object-reader.ts).
    CACHE_NAMESPACE = var.cache_namespace != "" ? var.cache_namespace : var.bucket_name
  }

  # Secrets are bound only when the feature using them is configured; the condition reads a
  # non-secret variable so the binding list itself stays readable in plans (only `text` is
  # sensitive).
  secret_text = {
    S3_ACCESS_KEY_ID     = { text = var.s3_access_key_id, bound = var.s3_endpoint != "" }
    S3_SECRET_ACCESS_KEY = { text = var.s3_secret_access_key, bound = var.s3_endpoint != "" }
    ORIGIN_SECRET        = { text = var.origin_secret, bound = var.origin_url != "" }
  }

  bindings = concat(
    [for name, bucket in local.r2_buckets : { type = "r2_bucket", name = name, bucket_name = bucket } if bucket != null],
    [for name, rl in local.rate_limits : {
      type         = "ratelimit"
      name         = name
      namespace_id = tostring(rl.namespace_id)
      simple       = { limit = rl.limit, period = var.rate_limit_period }
    }],
    [for name, text in local.plain_text : { type = "plain_text", name = name, text = text }],
    [for name, secret in local.secret_text : { type = "secret_text", name = name, text = secret.text } if secret.bound],
  )
}
