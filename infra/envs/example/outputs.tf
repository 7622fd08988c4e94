output "edge_url" {
  description = "Where wallets connect (gRPC-web and Connect)."
  value       = module.edge.url
}

output "worker_script" {
  description = "Name of the Worker script (for `wrangler tail`)."
  value       = module.edge.script_name
}

output "bucket_name" {
  description = "The R2 bucket holding sealed ranges and heads."
  value       = module.store.bucket_name
}

output "blocks_public_url" {
  description = "CDN base URL of the bucket's custom domain, or \"\" when private."
  value       = module.store.public_url
}

output "s3_endpoint" {
  description = "R2 S3 API endpoint the origin uploads to."
  value       = module.store.s3_endpoint
}

output "origin_store" {
  description = "The origin's --store argument."
  value       = "s3://${module.store.bucket_name}/${var.store_prefix}"
}

output "uploads_access_key_id" {
  description = "S3 access key id of the bucket-scoped upload token (AWS_ACCESS_KEY_ID)."
  value       = module.uploads.access_key_id
  sensitive   = true
}

output "uploads_secret_access_key" {
  description = "S3 secret access key of the bucket-scoped upload token (AWS_SECRET_ACCESS_KEY)."
  value       = module.uploads.secret_access_key
  sensitive   = true
}

output "origin_env_file" {
  description = "The mainnet origin's environment file; install at origin_env_path (mode 0600)."
  value       = module.origin_mainnet.env_file
  sensitive   = true
}

output "origin_env_path" {
  description = "Path of the mainnet origin's environment file on the host."
  value       = module.origin_mainnet.env_path
}

output "origin_files" {
  description = "Every file for the mainnet origin host: path => { content, permissions }."
  value       = module.origin_mainnet.files
  sensitive   = true
}

output "origin_services" {
  description = "systemd units to enable on the mainnet origin host."
  value       = module.origin_mainnet.services
}

output "origin_cloud_init" {
  description = "cloud-init user data for a fresh mainnet origin VM."
  value       = module.origin_mainnet.cloud_init
  sensitive   = true
}
