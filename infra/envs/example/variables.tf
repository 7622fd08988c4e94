variable "account_id" {
  description = "Cloudflare account ID (dashboard → Account home → the account's menu → Copy account ID)."
  type        = string
}

variable "zone_id" {
  description = "ID of the zone (domain) serving the Worker and the bucket's custom domain."
  type        = string
}

variable "bucket_name" {
  description = "R2 bucket for sealed ranges and head objects."
  type        = string
  default     = "lightedge-blocks"
}

variable "store_prefix" {
  description = "Key prefix inside the bucket, shared by the origin's uploads and the Worker's reads."
  type        = string
  default     = ""
}

variable "blocks_domain" {
  description = "Custom domain for CDN-cached range downloads from the bucket (e.g. blocks.example.com); \"\" keeps the bucket private."
  type        = string
  default     = ""
}

variable "edge_hostname" {
  description = "Custom domain the Worker serves wallets on (e.g. lightwallet.example.com)."
  type        = string
}

variable "worker_bundle_path" {
  description = "Bundled Worker built by `npx wrangler deploy --dry-run --outdir dist/edge` in the repository root, relative to this directory."
  type        = string
  default     = "../../../dist/edge/index.js"
}

variable "donation_address" {
  description = "Unified address returned as LightdInfo.donationAddress; \"\" for none."
  type        = string
  default     = ""
}

variable "origin_url" {
  description = "Public HTTPS base URL of the mainnet origin the Worker proxies the tail and node-only RPCs to (e.g. https://origin.example.com)."
  type        = string
}

variable "origin_secrets" {
  description = "Origin shared secrets: the Worker sends the first, the origin accepts all (two only while rotating). Generate with `openssl rand -hex 32`."
  type        = list(string)
  sensitive   = true
}

variable "origin_allowed_cidrs" {
  description = "Addresses the upload token works from (the origin host, e.g. [\"203.0.113.7/32\"]); empty allows any."
  type        = list(string)
  default     = []
}
