// What the official TypeScript SDK client receives of `journal serve` that
// a client puts into the model's context: each tool's name, description and
// input schema (as JSON.stringify writes it), and the server's instructions,
// in UTF-8 bytes.
// usage: node footprint.mjs BINARY ROOT [serve flags...]
// Prints one JSON report on stdout; the Go test (mcp/e2e TestToolBudget_SDK) checks it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [binary, root, ...flags] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: binary, args: ["serve", "--root", root, ...flags], stderr: "inherit" });
const client = new Client({ name: "e2e-footprint", version: "1.0.0" });
await client.connect(transport);
const bytes = (s) => Buffer.byteLength(s ?? "", "utf8");
const { tools } = await client.listTools();
console.log(JSON.stringify({
  instructions: bytes(client.getInstructions()),
  tools: tools.map((t) => ({ name: t.name, description: bytes(t.description), schema: bytes(JSON.stringify(t.inputSchema)) })),
}));
await client.close();
