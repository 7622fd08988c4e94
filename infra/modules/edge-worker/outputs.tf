output "script_name" {
  description = "Name of the deployed Worker script."
  value       = cloudflare_workers_script.edge.script_name
}

output "url" {
  description = "Base URL of the Worker's custom domain, or \"\" when only routes are used."
  value       = var.hostname == "" ? "" : "https://${var.hostname}"
}

output "binding_names" {
  description = "Names of the bindings attached to the Worker (no values)."
  value       = [for b in local.bindings : b.name]
}
