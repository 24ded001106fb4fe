// The edit-robustness corpus (testdata/robustness, format and classes in its
// README) through the official TypeScript SDK client, one `journal serve`
// over stdio per case, each on a fresh temporary workspace.
// usage: node robustness.mjs BINARY CORPUS_DIR
// With RELAY=1 another `journal serve` is started on each workspace first,
// so that the client's server relays its session to it (mcp/share.go).
// Prints one JSON report on stdout: [{family, name, class, detail, known_gap,
// changed: {path: [before, after]}}],
// class one of correct, refused-usable, refused-bare, WRONG, or error (the
// client or the server failed: no reply, a crash, a setup step refused).
// The judgement is the one of mcp/robustness_test.go (in-process) and of the
// comparison harness (go run ./bench/cmd/mcpbench -robustness), which also
// runs the cases the reference filesystem server can express against it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [binary, corpusDir] = process.argv.slice(2);
const relay = process.env.RELAY === "1";
if (!binary || !corpusDir) {
  console.error("usage: node robustness.mjs BINARY CORPUS_DIR");
  process.exit(2);
}

const rooted = (v, root) => {
  if (typeof v === "string") return v.startsWith("$ROOT") ? root + v.slice(5) : v;
  if (Array.isArray(v)) return v.map((x) => rooted(x, root));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rooted(x, root)]));
  return v;
};

// snapshot returns every file under dir (but .journal) as a byte string
// (latin1: one char per byte), by slash path.
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
const bytesOf = (files) => Object.fromEntries(Object.entries(files ?? {}).map(([k, s]) => [k, Buffer.from(s, "utf8").toString("latin1")]));
const same = (a, b) => Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((k) => a[k] === b[k]);
// filesOff names the files not as meant: those of want with other bytes, and
// any other file changed, made or removed since before.
const filesOff = (want, before, got) => {
  const off = Object.keys(want).filter((k) => got[k] !== want[k]);
  for (const k of Object.keys(got)) if (!(k in want) && before[k] !== got[k]) off.push(k + " (not meant to change)");
  for (const k of Object.keys(before)) if (!(k in got) && !(k in want)) off.push(k + " (removed)");
  return off.sort().join(", ");
};
const textOf = (r) => (r.content ?? []).map((c) => c.text ?? "").join("");
const clip = (s) => { s = s.replace(/\s+/g, " ").trim(); return s.length > 200 ? s.slice(0, 200) + "…" : s; };
// toolError parses the JSON object on the last line of our error text.
const toolError = (r) => {
  let t = textOf(r);
  const i = t.lastIndexOf("\n{");
  if (i >= 0) t = t.slice(i + 1);
  try { return JSON.parse(t); } catch { return {}; }
};

// runCase runs one case; files.before and files.after get the workspace's
// files before the call and at the end (after a retry), for the parse check
// of the Go side (mcp/e2e).
async function runCase(c, files) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "robust-")));
  let client, first, firstExit;
  try {
    for (const [p, s] of Object.entries(c.files)) {
      fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
      fs.writeFileSync(path.join(root, p), s);
    }
    if (relay) {
      // another server already serves the workspace: the client's server relays to it
      first = spawn(binary, ["serve", "--root", root, "--lsp=false"], { stdio: ["pipe", "ignore", "ignore"] });
      firstExit = new Promise((r) => first.on("exit", r));
      const sock = path.join(root, ".journal", "serve.sock");
      for (let i = 0; i < 1000 && !fs.existsSync(sock); i++) await new Promise((r) => setTimeout(r, 10));
      if (!fs.existsSync(sock)) return ["error", "the first server did not listen"];
    }
    const transport = new StdioClientTransport({ command: binary, args: ["serve", "--root", root, "--lsp=false"], stderr: "ignore" });
    client = new Client({ name: "robustness-ts-sdk", version: "1.0.0" });
    await client.connect(transport);
    const call = (tool, args) => client.callTool({ name: tool, arguments: args });
    for (const [i, s] of (c.setup ?? []).entries()) {
      const r = await call(s.tool, rooted(s.args, root));
      if (r.isError) return ["error", `setup ${i + 1} (${s.tool}) was refused: ${clip(textOf(r))}`];
    }
    for (const [p, s] of Object.entries(c.outside ?? {})) fs.writeFileSync(path.join(root, p), s);
    const before = snapshot(root);
    files.before = before;
    const r = await call(c.call.tool, rooted(c.call.args, root));
    const after = snapshot(root);
    const want = c.expect.outcome === "already_applied" ? before : bytesOf(c.expect.files);
    // retried sends an error's retry as it is and checks the files it leaves.
    const retried = async (te) => {
      const rr = await call(te.retry.tool, te.retry.arguments);
      const a2 = snapshot(root);
      if (rr.isError) return same(before, a2) ? ["refused-bare", "the retry was refused too: " + clip(textOf(rr))] : ["WRONG", "the retry was refused and changed " + filesOff(before, before, a2)];
      const off = filesOff(want, before, a2);
      return off ? ["WRONG", "the retry wrote other bytes than meant in " + off] : ["refused-usable", ""];
    };
    if (!r.isError) {
      if (c.expect.outcome === "refused") return same(before, after) ? ["refused-bare", "succeeded without changing anything where a refusal was expected"] : ["WRONG", "reported success and changed " + filesOff(before, before, after) + " where a refusal was expected"];
      if (c.expect.outcome === "already_applied") {
        if (!same(before, after)) return ["WRONG", "reported success and changed " + filesOff(before, before, after) + " where the change was in the file already"];
        return r.structuredContent?.already_applied === true ? ["correct", ""] : ["refused-bare", "left the files as they were but did not say already_applied"];
      }
      const off = filesOff(want, before, after);
      return off ? ["WRONG", "reported success with other bytes than meant in " + off] : ["correct", ""];
    }
    if (!same(before, after)) return ["WRONG", "refused but changed " + filesOff(before, before, after)];
    const te = toolError(r);
    if (c.expect.outcome !== "refused") return te.retry ? await retried(te) : ["refused-bare", `refused (${te.code}: ${te.message}) where ${c.expect.outcome} was expected`];
    if (c.expect.code && te.code !== c.expect.code) return ["refused-bare", `refused with ${te.code}, want ${c.expect.code}: ${te.message}`];
    if (!c.expect.retry) return ["correct", ""];
    if (!te.retry) return ["refused-bare", "refused without a retry: " + te.message];
    const [cls, det] = await retried(te);
    return [cls === "refused-usable" ? "correct" : cls, det];
  } finally {
    if (files.before) files.after = snapshot(root);
    await client?.close();
    if (first) {
      first.stdin.end();
      await firstExit;
    }
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
    let cls, detail;
    const files = {};
    try {
      [cls, detail] = await runCase(c, files);
    } catch (e) {
      [cls, detail] = ["error", "client error: " + e.message];
    }
    // changed: the files the call (and its retry) changed, [before, after]
    // as byte strings (latin1)
    const changed = {};
    for (const [p, a] of Object.entries(files.after ?? {})) if (files.before[p] !== undefined && files.before[p] !== a) changed[p] = [files.before[p], a];
    report[i] = { family: c.family, name: c.name, class: cls, detail, known_gap: c.known_gap ?? "", changed };
  }
};
await Promise.all(Array.from({ length: Math.min(4, os.cpus().length * 2) }, worker));
console.log(JSON.stringify(report));
