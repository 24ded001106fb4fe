#!/usr/bin/env bash
# Installs the S3 server the remote-replication tests run against
# (journal/remote): versitygw v1.8.0 (Apache-2.0) with `go install`, into
# $(go env GOPATH)/bin, when it is not there. Fails loudly when it cannot:
# those tests never skip.
set -euo pipefail
version=v1.8.0
bin="$(go env GOPATH)/bin/versitygw"
if [ -x "$bin" ] && go version -m "$bin" 2>/dev/null | grep -q "mod[[:space:]]*github.com/versity/versitygw[[:space:]]*$version"; then
	exit 0
fi
echo "installing versitygw $version (go install) for the remote-replication tests" >&2
go install "github.com/versity/versitygw/cmd/versitygw@$version" >&2 || {
	echo "FATAL: go install github.com/versity/versitygw/cmd/versitygw@$version failed (the remote tests need it)" >&2
	exit 1
}
[ -x "$bin" ] || { echo "FATAL: versitygw is not at $bin after go install" >&2; exit 1; }
