output "access_key_id" {
  description = "S3 access key id for the origin (AWS_ACCESS_KEY_ID): the token id."
  value       = cloudflare_account_token.uploads.id
  sensitive   = true
}

output "secret_access_key" {
  description = "S3 secret access key for the origin (AWS_SECRET_ACCESS_KEY): SHA-256 of the token value."
  value       = sha256(cloudflare_account_token.uploads.value)
  sensitive   = true
}
