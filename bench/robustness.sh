#!/usr/bin/env bash
# Side-by-side edit robustness (issue #16): the corpus in testdata/robustness
# through the official TypeScript SDK client, against our server and against
# the reference filesystem server's edit_file on the cases it can express.
# Prints a markdown table per family: correct / refused-usable / refused-bare / wrong.
# usage: bench/robustness.sh   (needs scripts/setup-e2e.sh and bench/setup.sh first)
set -euo pipefail
cd "$(dirname "$0")/.."
home=${BENCH_PEERS:-${PEERS_HOME:-$HOME/.cache/mcp-peers}}
ref="$home/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
[ -f "$ref" ] || { echo "FATAL: the reference server is not installed: run bench/setup.sh" >&2; exit 2; }
[ -d testdata/e2e/node_modules/@modelcontextprotocol/sdk ] || { echo "FATAL: run scripts/setup-e2e.sh" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/journal" ./cmd/journal
(cd testdata/e2e && node robustness.mjs "$tmp/journal" ../robustness > "$tmp/ours.json")
(cd testdata/e2e && node robustness.mjs --reference "$ref" ../robustness > "$tmp/ref.json")
node - "$tmp/ours.json" "$tmp/ref.json" <<'JS'
const fs = require("fs");
const [ours, ref] = process.argv.slice(2).map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
const classes = ["correct", "refused-usable", "refused-bare", "WRONG"];
const tally = (rs, keep) => {
  const t = {};
  for (const r of rs) {
    if (!keep(r)) continue;
    for (const k of [r.family, "all"]) {
      t[k] ??= Object.fromEntries(classes.map((c) => [c, 0]));
      t[k][r.class]++;
    }
  }
  return t;
};
const expressible = new Set(ref.filter((r) => r.class !== "n/a").map((r) => r.family + "/" + r.name));
const o = tally(ours, () => true), oe = tally(ours, (r) => expressible.has(r.family + "/" + r.name)), rt = tally(ref, (r) => r.class !== "n/a");
const fams = Object.keys(o).filter((k) => k !== "all").sort().concat(["all"]);
const cell = (t) => (t ? classes.map((c) => t[c]).join(" / ") : "–");
console.log("| family | cases | ours (all cases) | ours (cases edit_file can express) | reference edit_file |");
console.log("|---|--:|---|---|---|");
for (const f of fams) {
  const n = classes.reduce((s, c) => s + o[f][c], 0);
  console.log(`| ${f} | ${n} | ${cell(o[f])} | ${cell(oe[f])} | ${cell(rt[f])} |`);
}
console.log("\ncells: correct / refused-usable / refused-bare / wrong");
JS
