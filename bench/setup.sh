#!/usr/bin/env bash
# Installs the reference MCP filesystem server from the npm registry into $BENCH_PEERS
# (default ~/.cache/mcp-peers, the same cache /work/shared/peers/setup.sh uses).
# Safe to run again: it does nothing when the pinned version is already there.
# Prints the path of the server's entry point on its last line.
set -euo pipefail
home=${BENCH_PEERS:-${PEERS_HOME:-$HOME/.cache/mcp-peers}}
pkg=@modelcontextprotocol/server-filesystem
ver=2026.8.31
entry="$home/node_modules/$pkg/dist/index.js"
command -v node >/dev/null || { echo "FATAL: node is needed for the reference server" >&2; exit 1; }
command -v npm >/dev/null || { echo "FATAL: npm is needed to install the reference server" >&2; exit 1; }
mkdir -p "$home"
cd "$home"
[ -f package.json ] || echo '{"name":"mcp-peers","private":true,"type":"module"}' > package.json
have=$(node -e "try{console.log(require('$home/node_modules/$pkg/package.json').version)}catch{}" 2>/dev/null || true)
if [ "$have" != "$ver" ]; then
  npm install --no-audit --no-fund --silent "$pkg@$ver" >&2
fi
[ -f "$entry" ] || { echo "FATAL: $entry missing after npm install" >&2; exit 1; }
echo "$entry"
