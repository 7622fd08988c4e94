terraform {
  # 1.9+: variable validations may refer to other variables.
  required_version = ">= 1.9.0"

  required_providers {
    cloudflare = {
      source = "cloudflare/cloudflare"
      # Exact minor: v5 resource schemas still move between 5.x minors.
      version = "~> 5.21.0"
    }
  }
}
