# The API token comes from the environment (CLOUDFLARE_API_TOKEN), never from a variable, so it
# stays out of tfvars files and plans. Its permissions are listed in infra/README.md.
provider "cloudflare" {}
