# S3-API credentials for the origin's uploads, scoped to one bucket: an account token with the
# bucket-item permission groups. R2 derives S3 credentials from it: access key id = token id,
# secret access key = SHA-256 of the token value (R2 docs, "Get S3 API credentials from an API
# token").
data "cloudflare_account_api_token_permission_groups_list" "all" {
  account_id = var.account_id
}

locals {
  permission_group_ids = { for g in data.cloudflare_account_api_token_permission_groups_list.all.result : g.name => g.id... }
  bucket_resource      = "com.cloudflare.edge.r2.bucket.${var.account_id}_${var.jurisdiction}_${var.bucket_name}"
}

resource "cloudflare_account_token" "uploads" {
  account_id = var.account_id
  name       = var.token_name

  policies = [{
    effect = "allow"
    permission_groups = [
      { id = local.permission_group_ids["Workers R2 Storage Bucket Item Read"][0] },
      { id = local.permission_group_ids["Workers R2 Storage Bucket Item Write"][0] },
    ]
    resources = jsonencode({ (local.bucket_resource) = "*" })
  }]

  condition = length(var.allowed_cidrs) == 0 ? null : { request_ip = { in = var.allowed_cidrs } }
}
