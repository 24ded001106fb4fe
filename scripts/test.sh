#!/usr/bin/env bash
# The project's test command (README: "Run the tests"). Default mode finishes
# well under 15 minutes; long modes are switched on by the variables in README.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 -timeout 20m ./...
