# The object store: one R2 bucket holding every network's sealed ranges and head objects, and
# optionally a custom domain so wallets and mirrors download ranges through the CDN.
resource "cloudflare_r2_bucket" "blocks" {
  account_id = var.account_id
  name       = var.bucket_name
  location   = var.location
}

resource "cloudflare_r2_custom_domain" "public" {
  count = var.public_domain == "" ? 0 : 1

  account_id  = var.account_id
  bucket_name = cloudflare_r2_bucket.blocks.name
  zone_id     = var.zone_id
  domain      = var.public_domain
  enabled     = true
  min_tls     = "1.2"
}

locals {
  host_match = "http.host eq \"${var.public_domain}\""
  head_match = join(" or ", [for p in var.head_object_paths : "http.request.uri.path wildcard \"${p}\""])
  # Errors must not outlive the moment: a range requested before it is sealed answers 404, and a
  # cached 404 would hide the object after it lands (R2 consistency note on cached custom domains).
  no_store_errors = [{ status_code_range = { from = 400, to = 599 }, value = -1 }]
}

# Cache Rules for the custom domain. Objects are not cached by extension (they have none), so
# each rule makes them eligible. Later rules override earlier ones: the head rule comes second.
# This is the zone's entry-point ruleset for the phase; merge any existing cache rules into it.
resource "cloudflare_ruleset" "cache" {
  count = var.public_domain == "" ? 0 : 1

  zone_id     = var.zone_id
  name        = "lightedge object cache"
  description = "Sealed ranges are immutable; head objects are short-lived."
  kind        = "zone"
  phase       = "http_request_cache_settings"

  rules = [
    {
      ref         = "lightedge_sealed_ranges"
      description = "Sealed range objects never change once written: cache for a year, keep strong ETags for conditional and Range requests."
      expression  = local.host_match
      action      = "set_cache_settings"
      action_parameters = {
        cache                = true
        respect_strong_etags = true
        edge_ttl = {
          mode            = "override_origin"
          default         = var.immutable_edge_ttl_seconds
          status_code_ttl = local.no_store_errors
        }
        browser_ttl = { mode = "respect_origin" }
      }
    },
    {
      ref         = "lightedge_head_objects"
      description = "Head objects name the sealed tip and are rewritten after each seal: cache briefly or not at all."
      expression  = "(${local.host_match}) and (${local.head_match})"
      action      = "set_cache_settings"
      action_parameters = {
        cache = var.head_edge_ttl_seconds > 0
        edge_ttl = var.head_edge_ttl_seconds > 0 ? {
          mode            = "override_origin"
          default         = var.head_edge_ttl_seconds
          status_code_ttl = local.no_store_errors
        } : null
        browser_ttl = { mode = "respect_origin" }
      }
    },
  ]
}
