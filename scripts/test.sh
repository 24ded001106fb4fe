#!/usr/bin/env bash
# The project's test command (README: "Run the tests"). Installs the real MCP
# clients for the end-to-end tests and the real language servers for the
# language-server bridge tests (gopls v0.23.0, pyright, typescript-language-
# server) and headless Chromium for the web app's browser tests, then runs
# every package's tests in the default mode (well under 15 minutes). Long
# modes: see README.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup-e2e.sh
./scripts/setup-browser.sh
lsp_path=$(./scripts/setup-lsp.sh)
export "${lsp_path?}"
go test -count=1 -timeout 25m ./...
