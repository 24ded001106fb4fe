#!/usr/bin/env bash
# The project's test command (README: "Run the tests"). Installs the real MCP
# clients for the end-to-end tests, then runs every package's tests in the
# default mode (well under 15 minutes). Long modes: see README.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup-e2e.sh
go test -count=1 -timeout 25m ./...
