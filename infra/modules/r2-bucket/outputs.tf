output "bucket_name" {
  description = "Name of the R2 bucket."
  value       = cloudflare_r2_bucket.blocks.name
}

output "s3_endpoint" {
  description = "S3 API endpoint of the account's R2 (region \"auto\")."
  value       = "https://${var.account_id}.r2.cloudflarestorage.com"
}

output "public_url" {
  description = "Base URL of the bucket's custom domain, or \"\" when the bucket is private."
  value       = var.public_domain == "" ? "" : "https://${var.public_domain}"
}
