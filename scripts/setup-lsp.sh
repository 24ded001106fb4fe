#!/usr/bin/env bash
# Installs the real language servers used by the language-server bridge tests
# (replay/lsp, mcp): gopls v0.23.0 with `go install`, and pyright,
# typescript-language-server and TypeScript from testdata/lsp/package.json
# (pinned by its lock file) with `npm ci`. Its only stdout line is
# JOURNAL_LSP_PATH=DIR:DIR, the directories the tests (and `journal serve`)
# search for server binaries before PATH: `export "$(scripts/setup-lsp.sh)"`.
# Exits non-zero with FATAL: ... when anything is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
gopls_version=v0.23.0

command -v go >/dev/null || { echo "FATAL: go is not installed (needed for gopls)" >&2; exit 1; }
command -v node >/dev/null || { echo "FATAL: node is not installed (needed for pyright and typescript-language-server)" >&2; exit 1; }
command -v npm >/dev/null || { echo "FATAL: npm is not installed (needed for pyright and typescript-language-server)" >&2; exit 1; }

gobin=$(go env GOBIN)
[ -n "$gobin" ] || gobin="$(go env GOPATH | cut -d: -f1)/bin"
if ! "$gobin/gopls" version 2>/dev/null | grep -q "gopls $gopls_version\$"; then
  GOBIN="$gobin" go install "golang.org/x/tools/gopls@$gopls_version" >&2 \
    || { echo "FATAL: go install golang.org/x/tools/gopls@$gopls_version failed" >&2; exit 1; }
fi
"$gobin/gopls" version 2>/dev/null | grep -q "gopls $gopls_version\$" \
  || { echo "FATAL: $gobin/gopls is not gopls $gopls_version" >&2; exit 1; }

(cd testdata/lsp && { npm ci --no-audit --no-fund --silent 2>/dev/null || npm ci --no-audit --no-fund; } >&2) \
  || { echo "FATAL: npm ci in testdata/lsp failed" >&2; exit 1; }
bin="$repo/testdata/lsp/node_modules/.bin"
for b in pyright-langserver typescript-language-server tsserver; do
  test -x "$bin/$b" || { echo "FATAL: $b did not install in $bin" >&2; exit 1; }
done

echo "JOURNAL_LSP_PATH=$gobin:$bin"
