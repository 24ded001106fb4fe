// Progress, cancellation and resource subscriptions with the official
// TypeScript SDK over stdio.
// usage: node live.mjs BINARY ROOT  (ROOT holds search.txt and edit.txt)
// Prints one JSON report on stdout; the Go test (mcp/e2e) checks it and the files.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { execFileSync } from "node:child_process";

const [binary, root] = process.argv.slice(2);
const client = new Client({ name: "e2e-progress", version: "1.0.0" });
// --watch=false: this test counts the events of the tools alone (a watcher would add the baseline of the files it made)
await client.connect(new StdioClientTransport({ command: binary, args: ["serve", "--root", root, "--watch=false"], stderr: "inherit" }));
const report = {};

// a fuzzy search that takes seconds: progress notifications
const seen = [];
const r = await client.callTool({ name: "search_content", arguments: { absolute_file_path: root + "/search.txt", pattern: "the quick brown fax jumps over the lazy dog 976", fuzzy: true } },
  CallToolResultSchema, { onprogress: p => seen.push(p), timeout: 120000 });
report.search = { isError: !!r.isError, progress: seen };

// the same search, cancelled after its first notification
const abort = new AbortController();
let first = 0;
const t0 = Date.now();
try {
  await client.callTool({ name: "search_content", arguments: { absolute_file_path: root + "/search.txt", pattern: "nowhere in this file", fuzzy: true } },
    CallToolResultSchema, { signal: abort.signal, onprogress: () => { if (!first++) abort.abort("the user stopped it"); }, timeout: 120000 });
  report.cancelledSearch = "completed";
} catch (e) {
  report.cancelledSearch = String(e);
}
// the server answers the next call at once (the cancelled search stopped)
const t1 = Date.now();
await client.callTool({ name: "search_content", arguments: { absolute_file_path: root + "/search.txt", pattern: "line 00000001:" } });
report.nextCallMs = Date.now() - t1;
report.cancelAfterMs = t1 - t0;

// an edit of a large file cancelled while its new content is written
const abort2 = new AbortController();
let firstEdit = 0;
try {
  await client.callTool({ name: "edit_content", arguments: { absolute_file_path: root + "/edit.txt", search_text: "line 00000007:", replace_text: "LINE 7:", preview: false } },
    CallToolResultSchema, { signal: abort2.signal, onprogress: () => { if (!firstEdit++) abort2.abort("stop"); }, timeout: 120000 });
  report.cancelledEdit = "completed";
} catch (e) {
  report.cancelledEdit = String(e);
}
report.editProgress = firstEdit;
// wait for the server to have stopped the edit: the journal's log
const log = await client.callTool({ name: "journal_log", arguments: { limit: 5 } });
report.log = (log.content ?? []).map(c => c.text ?? "").join("");

// the first edit of a 200 MiB file reports its new content as it is written
const editSeen = [];
const er = await client.callTool({ name: "edit_content", arguments: { absolute_file_path: root + "/large.txt", search_text: "line 00000007:", replace_text: "LINE 7:", preview: false } },
  CallToolResultSchema, { onprogress: p => editSeen.push(p), timeout: 120000 });
report.largeEdit = { isError: !!er.isError, progress: editSeen };

// subscriptions: this server's commit, then the CLI's (another process)
const updates = [];
client.setNotificationHandler(ResourceUpdatedNotificationSchema, n => updates.push(n.params.uri));
await client.subscribeResource({ uri: "journal://events" });
await client.subscribeResource({ uri: "journal://files/small.txt/events" });
const until = async (n, ms) => { const end = Date.now() + ms; while (updates.length < n && Date.now() < end) await new Promise(r => setTimeout(r, 20)); };
let t = Date.now();
await client.callTool({ name: "file_create_new", arguments: { ops: [{ path: "small.txt", content: "one\n" }] } });
await until(2, 3000);
report.ownCommit = { updates: [...updates], ms: Date.now() - t };
t = Date.now();
execFileSync(binary, ["undo"], { cwd: root });
await until(4, 3000);
report.cliCommit = { updates: updates.slice(2), ms: Date.now() - t };
await client.close();
console.log(JSON.stringify(report));
