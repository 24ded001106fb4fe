#!/usr/bin/env bash
# The project's test command (README: "Run the tests"). Installs the real MCP
# clients for the end-to-end tests and the real language servers for the
# language-server bridge tests (gopls v0.23.0, pyright, typescript-language-
# server), headless Chromium for the web app's browser tests and the S3
# server (versitygw) for the remote-replication tests and an OpenTelemetry
# Collector (otelcol-journal) for the OTLP export tests, then runs
# every package's tests in the default mode (well under 15 minutes). Long
# modes: see README.
set -euo pipefail
cd "$(dirname "$0")/.."
# The installs run side by side (npm, apt-get, go install); any failure
# stops the run.
./scripts/setup-e2e.sh &
e2e=$!
./scripts/setup-browser.sh &
browser=$!
./scripts/setup-s3.sh &
s3=$!
./scripts/setup-otelcol.sh &
otelcol=$!
lsp_path=$(./scripts/setup-lsp.sh)
for job in "e2e:$e2e" "browser:$browser" "s3:$s3" "otelcol:$otelcol"; do
	wait "${job#*:}" || { echo "FATAL: scripts/setup-${job%%:*}.sh failed (see above)" >&2; exit 1; }
done
export "${lsp_path?}"
# Tests keep what they save for people to look at (the browser test's
# screenshots of every page) under .test-artifacts/_artifacts/<run>/.
artifacts=${JOURNAL_TEST_ARTIFACTS:-$PWD/.test-artifacts}
mkdir -p "$artifacts"
go test -count=1 -timeout 25m -artifacts -outputdir "$artifacts" ./...
echo "test artefacts (screenshots of the web app): $artifacts/_artifacts" >&2
