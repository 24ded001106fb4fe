// The TypeScript SDK driving the semantic (seed 000) and form (seed 002) tools
// on one language of each family: Python (indentation), TypeScript (braces),
// Clojure (Lisp). usage: node semantic.mjs BINARY ROOT — prints a JSON report.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [binary, root] = process.argv.slice(2);
const client = new Client({ name: "e2e-semantic", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: binary, args: ["serve", "--root", root], stderr: "inherit" }));
const steps = [];
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  steps.push({ name, isError: !!r.isError, structured: r.structuredContent ?? null, text: (r.content ?? []).map(c => c.text ?? "").join("") });
};
await call("file_read", { file: "svc.py", target: "UserService.find_by_id" });
await call("file_edit", { file: "svc.py", target: "UserService.find_by_id", code: "    def find_by_id(self, user_id):\n        return self.users.get(user_id)\n" });
await call("file_edit", { file: "svc.py", target: "UserService.find_by_id", code: "    def find_by_id(self, user_id:\n        return 1\n" });
await call("file_edit", { file: "app.ts", target: "greet", code: "export function salute(name: string): string {\n  return `Hello, ${name}`;\n}\n" });
await call("replace_top_level_form", { filePath: "core.clj", line: 3, targetLine: "(defn add [a b]", newForm: "(defn add [a b]\n  (+ a b 0))" });
await call("replace_top_level_form", { filePath: "core.clj", line: 3, newForm: "(defn add [a b]\n  (+ a b)" });
await call("insert_comment_at_line", { filePath: "core.clj", lineNumber: 1, commentText: "Core arithmetic.", insertMode: "after" });
await client.close();
console.log(JSON.stringify({ steps }));
