# Example environment: one mainnet deployment — the R2 bucket (with an optional CDN domain),
# the upload token for the origin, the edge Worker, and the origin host's files. The testnet
# addition is at the end, commented out (infra/README.md, "Adding testnet").

module "store" {
  source = "../../modules/r2-bucket"

  account_id    = var.account_id
  bucket_name   = var.bucket_name
  zone_id       = var.zone_id
  public_domain = var.blocks_domain
}

module "uploads" {
  source = "../../modules/r2-upload-token"

  account_id    = var.account_id
  bucket_name   = module.store.bucket_name
  allowed_cidrs = var.origin_allowed_cidrs
}

module "edge" {
  source = "../../modules/edge-worker"

  account_id       = var.account_id
  zone_id          = var.zone_id
  bundle_path      = var.worker_bundle_path
  hostname         = var.edge_hostname
  networks         = ["mainnet"]
  donation_address = var.donation_address
  bucket_name      = module.store.bucket_name
  store_prefix     = var.store_prefix
  origin_url       = var.origin_url
  origin_secret    = var.origin_secrets[0]
}

module "origin_mainnet" {
  source = "../../modules/origin-host"

  network              = "mainnet"
  store_bucket         = module.store.bucket_name
  store_prefix         = var.store_prefix
  s3_endpoint          = module.store.s3_endpoint
  s3_access_key_id     = module.uploads.access_key_id
  s3_secret_access_key = module.uploads.secret_access_key
  origin_secrets       = var.origin_secrets
}

# ── testnet ──
# Keys in the bucket include the network, so testnet shares the bucket and the upload token.
# The origin runs one network per process, and the Worker has one ORIGIN_URL, so testnet gets
# its own Worker (its own hostname) and its own origin instance. Uncomment, add the two
# variables (edge_testnet_hostname, origin_testnet_url) to variables.tf, and apply.
#
# module "edge_testnet" {
#   source = "../../modules/edge-worker"
#
#   account_id    = var.account_id
#   zone_id       = var.zone_id
#   script_name   = "lightedge-edge-testnet"
#   bundle_path   = var.worker_bundle_path
#   hostname      = var.edge_testnet_hostname
#   networks      = ["testnet"]
#   bucket_name   = module.store.bucket_name
#   store_prefix  = var.store_prefix
#   origin_url    = var.origin_testnet_url
#   origin_secret = var.origin_secrets[0]
# }
#
# module "origin_testnet" {
#   source = "../../modules/origin-host"
#
#   network              = "testnet"
#   listen               = "0.0.0.0:19067"
#   admin_listen         = "127.0.0.1:9465"
#   store_bucket         = module.store.bucket_name
#   store_prefix         = var.store_prefix
#   s3_endpoint          = module.store.s3_endpoint
#   s3_access_key_id     = module.uploads.access_key_id
#   s3_secret_access_key = module.uploads.secret_access_key
#   origin_secrets       = var.origin_secrets
# }
