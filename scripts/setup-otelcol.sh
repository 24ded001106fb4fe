#!/usr/bin/env bash
# Installs the OpenTelemetry Collector the OTLP export tests send to
# (replay/otlp/otlptest, cmd/journal TestExport_OTLP*): otelcol-journal,
# the Collector builder's (ocb v0.161.0) output for scripts/otelcol-journal/
# builder-config.yaml — the core Collector v0.161.0 with its OTLP receiver
# and debug exporter and the contrib file exporter v0.161.0, pinned by that
# directory's go.mod and go.sum — built with `go install` into
# $(go env GOPATH)/bin when it is not there at that version. Fails loudly
# when it cannot: those tests never skip. The build takes about 2.5 minutes
# of CPU (14 minutes on a 2-core machine under a load of 15).
set -euo pipefail
cd "$(dirname "$0")/otelcol-journal"
version=v0.161.0
bin="$(go env GOPATH)/bin/otelcol-journal"
if [ -x "$bin" ] && go version -m "$bin" 2>/dev/null | grep -q "dep[[:space:]]*github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter[[:space:]]*$version"; then
	exit 0
fi
echo "building otelcol-journal (OpenTelemetry Collector $version: otlp receiver, file exporter) for the OTLP export tests" >&2
GOFLAGS="${GOFLAGS:-} -mod=readonly -buildvcs=false" go install . >&2 || {
	echo "FATAL: go install of scripts/otelcol-journal (the OpenTelemetry Collector $version) failed; the OTLP tests need it" >&2
	exit 1
}
[ -x "$bin" ] || { echo "FATAL: otelcol-journal is not at $bin after go install" >&2; exit 1; }
