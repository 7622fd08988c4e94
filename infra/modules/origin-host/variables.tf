variable "network" {
  description = "Network this origin indexes (`lightedge origin --network`); one origin and one zebrad per network."
  type        = string
  default     = "mainnet"

  validation {
    condition     = contains(["mainnet", "testnet"], var.network)
    error_message = "network must be mainnet or testnet."
  }
}

variable "listen" {
  description = "HOST:PORT the origin serves gRPC, gRPC-web and Connect on (`--listen`)."
  type        = string
  default     = "0.0.0.0:9067"
}

variable "admin_listen" {
  description = "HOST:PORT of the origin's /metrics and /healthz (`--admin`); give each network its own port."
  type        = string
  default     = "127.0.0.1:9464"
}

variable "tls_cert_file" {
  description = "PEM certificate on the host for the origin's listener (`--tls-cert`); \"\" serves cleartext (behind a TLS proxy)."
  type        = string
  default     = ""
}

variable "tls_key_file" {
  description = "PEM private key on the host, with tls_cert_file (`--tls-key`)."
  type        = string
  default     = ""

  validation {
    condition     = (var.tls_cert_file == "") == (var.tls_key_file == "")
    error_message = "tls_cert_file and tls_key_file go together."
  }
}

variable "node_url" {
  description = "zebrad JSON-RPC URL (`--node`); null uses the local zebrad this module configures."
  type        = string
  default     = null
}

variable "run_zebrad" {
  description = "Render and enable a zebrad unit next to the origin; false when the node runs elsewhere."
  type        = bool
  default     = true
}

variable "store_bucket" {
  description = "Bucket the origin uploads sealed ranges and heads to."
  type        = string
}

variable "store_prefix" {
  description = "Key prefix inside the bucket; the same value as the Worker's STORE_PREFIX."
  type        = string
  default     = ""
}

variable "s3_endpoint" {
  description = "S3 API endpoint for uploads (S3_ENDPOINT), e.g. https://<account>.r2.cloudflarestorage.com."
  type        = string
}

variable "s3_region" {
  description = "SigV4 region for uploads (S3_REGION); \"auto\" for R2."
  type        = string
  default     = "auto"
}

variable "s3_access_key_id" {
  description = "S3 access key id for uploads (AWS_ACCESS_KEY_ID)."
  type        = string
  sensitive   = true
}

variable "s3_secret_access_key" {
  description = "S3 secret access key for uploads (AWS_SECRET_ACCESS_KEY)."
  type        = string
  sensitive   = true
}

variable "origin_secrets" {
  description = "Shared secrets the origin accepts in x-lightedge-secret (LIGHTEDGE_SECRETS); the first is the current one. Two during a rotation."
  type        = list(string)
  sensitive   = true

  validation {
    condition     = length(var.origin_secrets) >= 1 && length(var.origin_secrets) <= 2 && alltrue([for s in var.origin_secrets : can(regex("^[A-Za-z0-9_-]{32,}$", s))])
    error_message = "origin_secrets must hold one or two secrets of at least 32 characters from [A-Za-z0-9_-] (e.g. openssl rand -hex 32)."
  }
}

variable "lightedge_dir" {
  description = "Directory holding the lightedge checkout with node_modules installed (npm ci)."
  type        = string
  default     = "/opt/lightedge"
}

variable "node_bin" {
  description = "Node.js 24 binary that runs lightedge."
  type        = string
  default     = "/usr/local/bin/node"
}

variable "zebrad_bin" {
  description = "zebrad binary."
  type        = string
  default     = "/usr/local/bin/zebrad"
}

variable "zebrad_cache_dir" {
  description = "Parent of zebrad's state directories (one subdirectory per network)."
  type        = string
  default     = "/var/lib/zebrad"
}
