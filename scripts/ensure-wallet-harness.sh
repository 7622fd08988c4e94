# Sourced by .ci/run (and usable by hand): builds the real-wallet harness (test/wallet/, Rust,
# pinned crates in Cargo.lock) in release mode into a cache folder outside the clone, so repeated
# runs and fresh clones reuse the build (a cold build takes ~5 min on 2 cores; cargo itself decides
# whether anything changed). Exports LIGHTEDGE_WALLET_HARNESS=<path to the binary>.
_lightedge_repo="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
_lightedge_cache="${LIGHTEDGE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lightedge}"
_lightedge_target="${LIGHTEDGE_WALLET_TARGET_DIR:-$_lightedge_cache/wallet-harness-target}"
if ! command -v cargo >/dev/null 2>&1; then
  echo "ensure-wallet-harness: cargo not found on PATH (install Rust: https://rustup.rs)" >&2
  return 1 2>/dev/null || exit 1
fi
echo "ensure-wallet-harness: cargo build --release --locked (target $_lightedge_target)" >&2
if ! (cd "$_lightedge_repo/test/wallet" && CARGO_TARGET_DIR="$_lightedge_target" nice -n 5 cargo build --release --locked --quiet); then
  echo "ensure-wallet-harness: build failed" >&2
  return 1 2>/dev/null || exit 1
fi
export LIGHTEDGE_WALLET_HARNESS="$_lightedge_target/release/lightedge-wallet"
echo "ensure-wallet-harness: using $LIGHTEDGE_WALLET_HARNESS" >&2
