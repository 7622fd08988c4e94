# Sourced by .ci/run (and usable by hand): makes sure a pinned zebrad is installed and exports
# LIGHTEDGE_ZEBRAD=<path>. Built once per machine from crates.io into the same cache folder as
# Node (a cold build takes ~32 min on 2 cores; later runs reuse it). Needs Debian's clang,
# libclang-dev and protobuf-compiler (rocksdb bindings and zebra's gRPC code), installed here
# when missing.
LIGHTEDGE_ZEBRAD_VERSION="7.0.0"
_zebrad_root="${LIGHTEDGE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lightedge}/zebrad-${LIGHTEDGE_ZEBRAD_VERSION}"
if [ ! -x "$_zebrad_root/bin/zebrad" ]; then
  if ! command -v clang >/dev/null 2>&1 || ! command -v protoc >/dev/null 2>&1; then
    echo "ensure-zebrad: installing clang, libclang-dev, protobuf-compiler" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang libclang-dev protobuf-compiler >/dev/null) ||
      echo "ensure-zebrad: could not install the build dependencies" >&2
  fi
  echo "ensure-zebrad: building zebrad ${LIGHTEDGE_ZEBRAD_VERSION} into $_zebrad_root (~32 min cold on 2 cores)" >&2
  CARGO_TARGET_DIR="$_zebrad_root/target" cargo install zebrad --version "=${LIGHTEDGE_ZEBRAD_VERSION}" --locked \
    --root "$_zebrad_root" --quiet >&2 && rm -rf "$_zebrad_root/target"
fi
if [ -x "$_zebrad_root/bin/zebrad" ]; then
  export LIGHTEDGE_ZEBRAD="$_zebrad_root/bin/zebrad"
  echo "ensure-zebrad: using $LIGHTEDGE_ZEBRAD" >&2
else
  echo "ensure-zebrad: zebrad ${LIGHTEDGE_ZEBRAD_VERSION} is not available" >&2
fi
