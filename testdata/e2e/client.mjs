// A real MCP client (the official TypeScript SDK) driving `journal serve`.
// usage: node client.mjs stdio BINARY ROOT   |   node client.mjs http URL ROOT
// Prints one JSON report on stdout; the Go test (mcp/e2e) checks it and the files.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod";

const [mode, target, root] = process.argv.slice(2);
const transport = mode === "stdio"
  ? new StdioClientTransport({ command: target, args: ["serve", "--root", root], stderr: "inherit" })
  : new StreamableHTTPClientTransport(new URL(target));
const client = new Client({ name: "e2e-ts-sdk", version: "1.0.0" });
await client.connect(transport);

const report = { steps: [] };
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  report.steps.push({ name, isError: !!r.isError, structured: r.structuredContent ?? null, text: (r.content ?? []).map(c => c.text ?? "").join("") });
  return r;
};

const tools = await client.listTools();
report.tools = tools.tools.map(t => ({ name: t.name, annotations: t.annotations, hasOutputSchema: !!t.outputSchema }));
await call("file_create_new", { ops: [{ path: "a.txt", content: "one\ntwo\nthree\n" }] });
await call("file_insert_text", { ops: [{ path: "a.txt", content: "inserted", at: "after_line", line: 1 }] });
// line 3 was "three" when the session last knew the whole file and is "two"
// after its own insert: ambiguous, refused; after a read it is not
await call("ai_code_editing.edit_file", { target_file: "a.txt", edit_instruction: "capitalise two", start_line: 3, end_line: 3, code_block: "TWO" });
await call("ai_get_code_context", { file_path: "a.txt", start_line: 1 });
await call("ai_code_editing.edit_file", { target_file: "a.txt", edit_instruction: "capitalise two", start_line: 3, end_line: 3, code_block: "TWO" });
await call("journal_log", { limit: 10 });
await call("revert_edit", { absolute_file_path: root + "/a.txt" });
await call("undo", {});
await call("file_create_new", { ops: [{ path: "../escape.txt", content: "x" }] });
const res = await client.readResource({ uri: "journal://events" });
report.resourceEvents = JSON.parse(res.contents[0].text).length;
try {
  await client.request({ method: "no/such/method", params: {} }, z.object({}).passthrough());
  report.unknownMethod = "no error";
} catch (e) {
  report.unknownMethod = e.code;
}
await client.close();
console.log(JSON.stringify(report));
