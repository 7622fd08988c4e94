output "env_file" {
  description = "The origin's environment file (contains the upload credentials and origin secrets)."
  value       = local.env_file
  sensitive   = true
}

output "env_path" {
  description = "Where the environment file goes on the host."
  value       = local.env_path
}

output "files" {
  description = "Every file to install on the host: path => { content, permissions }."
  value       = local.files
  sensitive   = true
}

output "services" {
  description = "systemd units to enable, in start order."
  value       = local.services
}

output "cloud_init" {
  description = "cloud-init user data installing the files and starting the services on a fresh VM."
  value       = local.cloud_init
  sensitive   = true
}
