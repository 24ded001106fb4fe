// A real MCP client (the official TypeScript SDK) kept connected to `journal serve`
// while the Go test (mcp/e2e/watch_test.go) works beside it: each line on stdin is
// {"tool": NAME, "args": {...}}; each answer is one JSON line on stdout. EOF closes it.
// usage: node driver.mjs BINARY ROOT [SERVE ARGS...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import readline from "node:readline";

const [binary, root, ...extra] = process.argv.slice(2);
const client = new Client({ name: "e2e-driver", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: binary, args: ["serve", "--root", root, "--lsp=false", ...extra], stderr: "inherit" }));
console.log(JSON.stringify({ ready: true }));
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  const { tool, args } = JSON.parse(line);
  try {
    const r = await client.callTool({ name: tool, arguments: args });
    console.log(JSON.stringify({ isError: !!r.isError, structured: r.structuredContent ?? null, text: (r.content ?? []).map(c => c.text ?? "").join("") }));
  } catch (e) {
    console.log(JSON.stringify({ isError: true, text: String(e) }));
  }
}
await client.close();
