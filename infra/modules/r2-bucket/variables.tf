variable "account_id" {
  description = "Cloudflare account ID that owns the bucket."
  type        = string
}

variable "bucket_name" {
  description = "R2 bucket for sealed ranges and head objects (the BLOCKS binding's bucket)."
  type        = string
  default     = "lightedge-blocks"
}

variable "location" {
  description = "R2 location hint (wnam, enam, weur, eeur, apac, oc); null lets R2 choose near the first request."
  type        = string
  default     = null
}

variable "zone_id" {
  description = "Zone ID of public_domain; required when public_domain is set."
  type        = string
  default     = null

  validation {
    condition     = var.public_domain == "" || var.zone_id != null
    error_message = "zone_id is required when public_domain is set."
  }
}

variable "public_domain" {
  description = "Custom domain for CDN-cached downloads straight from the bucket (for example blocks.example.com); \"\" keeps the bucket private."
  type        = string
  default     = ""
}

variable "head_object_paths" {
  description = "Wildcard patterns (Rules language `wildcard`) for head-object URL paths; must match the head key in proto/range-format.md. Every other object is an immutable sealed range."
  type        = list(string)
  default     = ["*/head", "*/head.*"]
}

variable "immutable_edge_ttl_seconds" {
  description = "Edge cache TTL for sealed range objects, which never change once written."
  type        = number
  default     = 31536000
}

variable "head_edge_ttl_seconds" {
  description = "Edge cache TTL for head objects; 0 bypasses the cache. Short TTLs may need a plan that allows them."
  type        = number
  default     = 2

  validation {
    condition     = var.head_edge_ttl_seconds >= 0 && var.head_edge_ttl_seconds <= 60
    error_message = "head_edge_ttl_seconds must be between 0 and 60: the head names the sealed tip."
  }
}
