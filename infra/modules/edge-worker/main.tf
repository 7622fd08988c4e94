# The edge Worker: the bundle built by wrangler, uploaded with the same bindings wrangler.toml
# declares, served on a custom domain and/or zone routes.
resource "cloudflare_workers_script" "edge" {
  account_id          = var.account_id
  script_name         = var.script_name
  content_file        = var.bundle_path
  content_sha256      = filesha256(var.bundle_path)
  main_module         = var.main_module
  compatibility_date  = var.compatibility_date
  compatibility_flags = var.compatibility_flags
  bindings            = local.bindings
}

resource "cloudflare_workers_custom_domain" "edge" {
  count = var.hostname == "" ? 0 : 1

  account_id = var.account_id
  zone_id    = var.zone_id
  hostname   = var.hostname
  service    = cloudflare_workers_script.edge.script_name
}

resource "cloudflare_workers_route" "edge" {
  for_each = toset(var.route_patterns)

  zone_id = var.zone_id
  pattern = each.value
  script  = cloudflare_workers_script.edge.script_name
}
