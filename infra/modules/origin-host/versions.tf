terraform {
  # Renders files only (templatefile, yamlencode): no provider, so it runs with any VM provider
  # and `terraform console` can evaluate it without `terraform init`.
  required_version = ">= 1.9.0"
}
