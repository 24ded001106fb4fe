#!/usr/bin/env bash
# Long mode of the reliability suite (issue 8): ≥ 1,000 SIGKILLs of `journal serve`,
# 10,000 directory/symlink swaps, 1,000 concurrent edits, 1,000 outside changes,
# 100,000 create/delete cycles with retention, and 30 s of fuzzing per fuzzer.
# Figures go to $JOURNAL_FIGURES (default tmp/reliability-figures.jsonl); copy
# them into RELIABILITY.md. Usage: scripts/long.sh [fuzztime, default 30s]
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME="${1:-30s}"
export JOURNAL_LONG=1
export JOURNAL_FIGURES="${JOURNAL_FIGURES:-$PWD/tmp/reliability-figures.jsonl}"
mkdir -p "$(dirname "$JOURNAL_FIGURES")"
: > "$JOURNAL_FIGURES"
date -u +"started %Y-%m-%dT%H:%M:%SZ"
go test -count=1 -timeout 6h -v ./mcp/reliability 2>&1 | grep -E '^(=== RUN|--- |PASS|FAIL|ok)|figures:'
for f in journal:FuzzDecode snapshot:FuzzGetCorrupted replay:FuzzResolve replay:FuzzApply mcp:FuzzToolArgs ops:FuzzApplyBatch ops:FuzzDecodeEncode; do
	pkg="${f%%:*}" name="${f##*:}"
	echo "fuzz $pkg $name $FUZZTIME"
	go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "./$pkg" 2>&1 | grep -E 'execs:|PASS|FAIL|ok|panic|Error' | tail -3
done
date -u +"finished %Y-%m-%dT%H:%M:%SZ"
echo "figures: $JOURNAL_FIGURES"
