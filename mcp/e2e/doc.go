// Package e2e holds the end-to-end tests of `journal serve` with real MCP
// clients: the official TypeScript SDK over stdio and Streamable HTTP, the MCP
// conformance suite over HTTP, raw JSON-RPC, and several servers sharing one
// workspace. The npm packages live in testdata/e2e (scripts/setup-e2e.sh
// installs them); a missing install fails the tests, it never skips them.
package e2e
