variable "account_id" {
  description = "Cloudflare account ID that owns the bucket and the token."
  type        = string
}

variable "bucket_name" {
  description = "The only bucket the token may read and write objects in."
  type        = string
}

variable "jurisdiction" {
  description = "Bucket jurisdiction as it appears in the token resource name (default, eu, fedramp)."
  type        = string
  default     = "default"
}

variable "token_name" {
  description = "Display name of the token in the dashboard."
  type        = string
  default     = "lightedge-origin-uploads"
}

variable "allowed_cidrs" {
  description = "Client CIDRs the token works from (the origin host's addresses); empty allows any."
  type        = list(string)
  default     = []
}
