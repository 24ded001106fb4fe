// The edit-robustness corpus (testdata/robustness) through the official
// TypeScript SDK client, one `journal serve` per case over stdio.
// usage: node robustness.mjs BINARY CORPUS_DIR
//        node robustness.mjs --reference SERVER_INDEX_JS CORPUS_DIR
// Prints one JSON report on stdout: [{family, name, class, detail}], class one
// of correct, refused-usable, refused-bare, WRONG (see testdata/robustness/README.md).
// With --reference the cases the reference filesystem server's edit_file can
// express (edit_content calls, setup included, without occurrence,
// replace_all or allow_repeat) run against it instead: edit_file {path,
// edits: [{oldText, newText}]}; it offers no retry, and on a case whose
// change is applied already any answer that leaves the files as they were
// counts as correct; the others are reported as class "n/a".
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const argv = process.argv.slice(2);
const reference = argv[0] === "--reference";
const [binary, corpusDir] = reference ? argv.slice(1) : argv;

// toReference maps an edit_content call to the reference's edit_file, or null.
const toReference = (call) => {
  if (call.tool !== "edit_content") return null;
  const a = call.args;
  if (a.allow_repeat || a.fuzzy === false) return null;
  const changes = a.changes ?? [{ search_text: a.search_text, replace_text: a.replace_text }];
  if (changes.some((c) => c.occurrence || c.replace_all || c.allow_repeat)) return null;
  return { tool: "edit_file", args: { path: a.absolute_file_path, edits: changes.map((c) => ({ oldText: c.search_text, newText: c.replace_text })), dryRun: false } };
};

const rooted = (v, root) => {
  if (typeof v === "string") return v.startsWith("$ROOT") ? root + v.slice(5) : v;
  if (Array.isArray(v)) return v.map((x) => rooted(x, root));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rooted(x, root)]));
  return v;
};

const snapshot = (dir) => {
  const out = {};
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) { if (e.name !== ".journal") walk(p); }
      else if (e.isFile()) out[path.relative(dir, p).split(path.sep).join("/")] = fs.readFileSync(p, "latin1");
    }
  };
  walk(dir);
  return out;
};
const latin1 = (s) => Buffer.from(s, "utf8").toString("latin1"); // compare bytes
const same = (a, b) => Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((k) => a[k] === b[k]);
const differs = (want, got) => Object.keys(want).filter((k) => got[k] !== latin1(want[k]));
const textOf = (r) => (r.content ?? []).map((c) => c.text ?? "").join("");
const toolError = (r) => {
  const t = textOf(r);
  const i = t.lastIndexOf("\n{");
  try { return i < 0 ? {} : JSON.parse(t.slice(i + 1)); } catch { return {}; }
};

async function runCase(c) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "robust-")));
  for (const [p, s] of Object.entries(c.files)) {
    fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    fs.writeFileSync(path.join(root, p), s);
  }
  let mainCall = c.call, setup = c.setup ?? [];
  if (reference) {
    mainCall = toReference(c.call);
    setup = setup.map(toReference);
    if (!mainCall || setup.includes(null) || c.outside) return ["n/a", "not expressible with edit_file"];
  }
  const transport = reference
    ? new StdioClientTransport({ command: process.execPath, args: [binary, root], stderr: "ignore" })
    : new StdioClientTransport({ command: binary, args: ["serve", "--root", root, "--lsp=false"], stderr: "ignore" });
  const client = new Client({ name: "robustness-ts-sdk", version: "1.0.0" });
  await client.connect(transport);
  const call = (tool, args) => client.callTool({ name: tool, arguments: rooted(args, root) });
  try {
    for (const s of setup) {
      const r = await call(s.tool, s.args);
      if (r.isError) return ["refused-bare", "setup failed: " + textOf(r)];
    }
    for (const [p, s] of Object.entries(c.outside ?? {})) fs.writeFileSync(path.join(root, p), s);
    const before = snapshot(root);
    const r = await call(mainCall.tool, mainCall.args);
    const after = snapshot(root);
    const want = c.expect.files ?? {};
    const retried = async (te) => {
      const rr = await client.callTool({ name: te.retry.tool, arguments: te.retry.arguments });
      const a2 = snapshot(root);
      if (rr.isError) return same(before, a2) ? ["refused-bare", "the retry was refused: " + textOf(rr)] : ["WRONG", "the retry failed and changed files"];
      const d = differs(want, a2);
      return d.length ? ["WRONG", "the retry wrote other bytes in " + d.join(", ")] : ["refused-usable", ""];
    };
    if (!r.isError) {
      if (c.expect.outcome === "refused") return same(before, after) ? ["refused-bare", "succeeded where a refusal was expected"] : ["WRONG", "success that changed files where a refusal was expected"];
      if (c.expect.outcome === "already_applied") {
        if (!same(before, after)) return ["WRONG", "changed files where the change was applied already"];
        if (reference) return ["correct", ""];
        return r.structuredContent?.already_applied ? ["correct", ""] : ["refused-bare", "did not say already_applied"];
      }
      const d = differs(want, after);
      return d.length ? ["WRONG", "success with other bytes in " + d.join(", ")] : ["correct", ""];
    }
    if (!same(before, after)) return ["WRONG", "refused but changed files"];
    if (reference && c.expect.outcome === "already_applied") return ["correct", "refused, files unchanged"];
    if (reference) return c.expect.outcome === "refused" && !c.expect.retry ? ["correct", ""] : ["refused-bare", textOf(r).slice(0, 200)];
    const te = toolError(r);
    if (c.expect.outcome !== "refused") return te.retry ? await retried(te) : ["refused-bare", `${te.code}: ${te.message}`];
    if (c.expect.code && te.code !== c.expect.code) return ["refused-bare", `code ${te.code}, want ${c.expect.code}`];
    if (!c.expect.retry) return ["correct", ""];
    if (!te.retry) return ["refused-bare", "no retry: " + te.message];
    const [cls, det] = await retried(te);
    return [cls === "refused-usable" ? "correct" : cls, det];
  } finally {
    await client.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const cases = [];
for (const f of fs.readdirSync(corpusDir).filter((f) => f.endsWith(".json")).sort()) {
  for (const c of JSON.parse(fs.readFileSync(path.join(corpusDir, f), "utf8"))) cases.push({ ...c, family: f.replace(/\.json$/, "") });
}
const report = new Array(cases.length);
let next = 0;
const worker = async () => {
  while (next < cases.length) {
    const i = next++;
    const c = cases[i];
    try {
      const [cls, detail] = await runCase(c);
      report[i] = { family: c.family, name: c.name, class: cls, detail, known_gap: c.known_gap ?? "" };
    } catch (e) {
      report[i] = { family: c.family, name: c.name, class: "refused-bare", detail: "client error: " + e.message, known_gap: c.known_gap ?? "" };
    }
  }
};
await Promise.all([worker(), worker(), worker(), worker()]);
console.log(JSON.stringify(report));
