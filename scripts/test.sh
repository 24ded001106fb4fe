#!/usr/bin/env bash
# The project's test command (README: "Run the tests"). Installs the real MCP
# clients for the end-to-end tests and the real language servers for the
# language-server bridge tests (gopls v0.23.0, pyright, typescript-language-
# server), headless Chromium for the web app's browser tests and the S3
# server (versitygw) for the remote-replication tests, then runs
# every package's tests in the default mode (well under 15 minutes). Long
# modes: see README.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup-e2e.sh
./scripts/setup-browser.sh
./scripts/setup-s3.sh
lsp_path=$(./scripts/setup-lsp.sh)
export "${lsp_path?}"
# Tests keep what they save for people to look at (the browser test's
# screenshots of every page) under .test-artifacts/_artifacts/<run>/.
artifacts=${JOURNAL_TEST_ARTIFACTS:-$PWD/.test-artifacts}
mkdir -p "$artifacts"
go test -count=1 -timeout 25m -artifacts -outputdir "$artifacts" ./...
echo "test artefacts (screenshots of the web app): $artifacts/_artifacts" >&2
