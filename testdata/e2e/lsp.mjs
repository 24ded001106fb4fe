// The TypeScript SDK driving the language-server bridge (issue 7) through a
// `journal serve` process: a Go rename propagated by gopls in one event, the
// diagnostics tool, a revert of the propagated rename, and an explicit rename_symbol.
// usage: node lsp.mjs BINARY ROOT — prints a JSON report.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [binary, root] = process.argv.slice(2);
const client = new Client({ name: "e2e-lsp", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: binary, args: ["serve", "--root", root], stderr: "inherit", env: process.env }));
const steps = [];
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  steps.push({ name, isError: !!r.isError, structured: r.structuredContent ?? null, text: (r.content ?? []).map(c => c.text ?? "").join("") });
  return r.structuredContent ?? {};
};
const edit = await call("file_edit", { file: "lib/lib.go", target: "Greet", code: "// Welcome says hello.\nfunc Welcome(name string) string {\n\treturn \"welcome \" + name\n}" });
await call("diagnostics", { file: "a/a.go" });
await call("revert_edit", { absolute_file_path: "lib/lib.go", backup_id: String(edit.event) });
await call("rename_symbol", { file: "lib/lib.go", target: "Greet", newName: "Hello" });
await client.close();
console.log(JSON.stringify({ steps }));
