# The origin host, VM-agnostic: systemd template units (one instance per network) for zebrad
# and `lightedge origin`, the origin's environment file, zebrad's config, and a cloud-init
# document writing all of them. Pass `cloud_init` as user data to any VM, or copy `files` to an
# existing host (infra/README.md).
locals {
  # zebrad's default ports: RPC 8232 / 18232, peer-to-peer 8233 / 18233.
  rpc_port = var.network == "mainnet" ? 8232 : 18232
  p2p_port = var.network == "mainnet" ? 8233 : 18233
  node_url = coalesce(var.node_url, "http://127.0.0.1:${local.rpc_port}")

  env_path    = "/etc/lightedge/origin-${var.network}.env"
  zebrad_path = "/etc/zebrad/${var.network}.toml"

  env_file = templatefile("${path.module}/templates/origin.env.tftpl", {
    node_url             = local.node_url
    network              = var.network
    store                = "s3://${var.store_bucket}/${var.store_prefix}"
    s3_endpoint          = var.s3_endpoint
    s3_region            = var.s3_region
    data_dir             = "/var/lib/lightedge/${var.network}"
    listen               = var.listen
    admin                = var.admin_listen
    tls_cert_file        = var.tls_cert_file
    tls_key_file         = var.tls_key_file
    secrets              = join(",", var.origin_secrets)
    s3_access_key_id     = var.s3_access_key_id
    s3_secret_access_key = var.s3_secret_access_key
  })

  origin_unit = templatefile("${path.module}/templates/lightedge-origin@.service.tftpl", {
    node_bin      = var.node_bin
    lightedge_dir = var.lightedge_dir
    after_zebrad  = var.run_zebrad
  })

  zebrad_unit = templatefile("${path.module}/templates/zebrad@.service.tftpl", {
    zebrad_bin = var.zebrad_bin
  })

  zebrad_config = templatefile("${path.module}/templates/zebrad.toml.tftpl", {
    network   = title(var.network)
    cache_dir = "${var.zebrad_cache_dir}/${var.network}"
    rpc_port  = local.rpc_port
    p2p_port  = local.p2p_port
  })

  files = merge(
    {
      (local.env_path)                                = { content = local.env_file, permissions = "0600" }
      "/etc/systemd/system/lightedge-origin@.service" = { content = local.origin_unit, permissions = "0644" }
    },
    var.run_zebrad ? {
      (local.zebrad_path)                   = { content = local.zebrad_config, permissions = "0644" }
      "/etc/systemd/system/zebrad@.service" = { content = local.zebrad_unit, permissions = "0644" }
    } : {},
  )

  services = concat(var.run_zebrad ? ["zebrad@${var.network}.service"] : [], ["lightedge-origin@${var.network}.service"])

  cloud_init = "#cloud-config\n${yamlencode({
    users = concat(["default"], [for u in concat(["lightedge"], var.run_zebrad ? ["zebra"] : []) : {
      name   = u
      system = true
      shell  = "/usr/sbin/nologin"
    }])
    write_files = [for path, f in local.files : {
      path        = path
      content     = f.content
      permissions = f.permissions
      owner       = "root:root"
    }]
    runcmd = concat(
      var.run_zebrad ? [
        ["install", "-d", "-o", "zebra", "-g", "zebra", "-m", "0750", "${var.zebrad_cache_dir}/${var.network}"],
      ] : [],
      [
        ["systemctl", "daemon-reload"],
        concat(["systemctl", "enable", "--now"], local.services),
      ],
    )
  })}"
}
