terraform {
  # 1.9+: variable validations may refer to other variables.
  required_version = ">= 1.9.0"

  required_providers {
    cloudflare = {
      source = "cloudflare/cloudflare"
      # Exact minor, the same as every module (a test checks they agree).
      version = "~> 5.21.0"
    }
  }
}
