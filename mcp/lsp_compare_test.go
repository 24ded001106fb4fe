package mcp_test

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	jmcp "github.com/journalfs/journal/mcp"
	"github.com/journalfs/journal/replay/lsp"
)

// nodeTSWorkspace is a TypeScript project as a Node repository checked out
// without node_modules: its lib is es2020 only, so every `new URL(url)` is
// "Cannot find name 'URL'" before anything is edited. There are more of
// them than tsserver gives spelling suggestions for (10 per checker), so the
// same problem reads "Cannot find name 'URL'." (2304) or "... Did you mean
// 'url'?" (2552) depending on which files the checker saw first.
func nodeTSWorkspace() []string {
	files := []string{
		"tsconfig.json", `{"compilerOptions":{"strict":true,"target":"es2020","lib":["es2020"],"module":"commonjs","noEmit":true},"include":["src"]}`,
		"src/client.ts", "export class Client {\n  host = \"\";\n  constructor(public base: string) {}\n  get(path: string): string {\n    const url = this.base + path;\n    return new URL(url).host;\n  }\n}\n",
	}
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		files = append(files, "src/"+n+".ts", fmt.Sprintf("import { Client } from \"./client\";\n\n"+
			"export function %s(url: string): string {\n  const c = new Client(url);\n"+
			"  return c.get(\"/%s\") + new URL(url).pathname + new URL(url).search;\n}\n", n, n))
	}
	return files
}

// lspProblems are the language server's errors of a diagnostics result.
func lspProblems(t *testing.T, e *env) []jmcp.Diagnostic {
	t.Helper()
	var d jmcp.DiagnosticsResult
	e.ok("diagnostics", map[string]any{}, &d)
	return d.Diagnostics
}

// TestLSP_TypeScriptRenameReportsNoOldProblemsAsNew: a correct rename in a
// TypeScript repository without node_modules reports 0 new problems, every
// time, although the 13 "Cannot find name 'URL'" errors were there before
// (with or without "Did you mean 'url'?"), as does a form tool's rename of
// a function holding two of them — and a rename or an edit that does break
// something still reports exactly what it broke.
func TestLSP_TypeScriptRenameReportsNoOldProblemsAsNew(t *testing.T) {
	for run := range 3 {
		e := lspEnv(t, nodeTSWorkspace()...)
		if run == 0 {
			// The agent looked first: the problems are there before the rename.
			if got := lspProblems(t, e); len(got) != 13 {
				t.Fatalf("diagnostics before the rename: %d, want 13 (URL in every file): %+v", len(got), got)
			}
		}
		for _, dry := range []bool{true, true, false} {
			var out jmcp.RenameSymbolResult
			txt := e.ok("rename_symbol", map[string]any{"file": "src/client.ts", "target": "Client", "newName": "HttpClient", "dryRun": dry}, &out)
			if len(out.FilesChanged) != 7 || len(out.NewDiagnostics) != 0 || !strings.Contains(txt, "0 new problems") {
				t.Fatalf("run %d, dryRun %v: a correct rename reported problems:\n%s", run, dry, txt)
			}
		}
		if got := e.read("src/a.ts"); !strings.Contains(got, "new HttpClient(url)") {
			t.Fatalf("run %d: a.ts not renamed:\n%s", run, got)
		}
	}

	// A rename that breaks the class: get -> host collides with the field,
	// and every c.host("/x") calls a string.
	e := lspEnv(t, nodeTSWorkspace()...)
	var out jmcp.RenameSymbolResult
	txt := e.ok("rename_symbol", map[string]any{"file": "src/client.ts", "target": "Client.get", "newName": "host", "dryRun": true}, &out)
	var got []string
	for _, d := range out.NewDiagnostics {
		msg, _, _ := strings.Cut(d.Message, "\n")
		got = append(got, fmt.Sprintf("%s:%d %s", d.File, d.Line, msg))
	}
	want := []string{"src/a.ts:5 This expression is not callable.", "src/b.ts:5 This expression is not callable.",
		"src/c.ts:5 This expression is not callable.", "src/client.ts:2 Duplicate identifier 'host'.",
		"src/client.ts:4 Duplicate identifier 'host'.", "src/d.ts:5 This expression is not callable.",
		"src/e.ts:5 This expression is not callable.", "src/f.ts:5 This expression is not callable."}
	if !slices.Equal(got, want) {
		t.Fatalf("a colliding rename: new problems\n%q\nwant\n%q\n%s", got, want, txt)
	}

	// A form tool renaming a function whose body has old problems: none new.
	var form jmcp.FormResult
	txt = e.ok("replace_top_level_form", map[string]any{"filePath": "src/b.ts", "line": 3, "targetLine": "export function b(url: string): string {",
		"newForm": "export function bee(url: string): string {\n  const c = new Client(url);\n  return c.get(\"/b\") + new URL(url).pathname + new URL(url).search;\n}"}, &form)
	if form.NewDiagnostics != 0 || !strings.Contains(e.read("src/b.ts"), "function bee(") {
		t.Fatalf("a form tool's rename reported problems:\n%s", txt)
	}

	// An edit that adds one more unresolved URL to a.ts: that one is new,
	// and it takes the spelling suggestion a later file had, whose problem
	// is then worded "Cannot find name 'URL'." — the same problem, not new.
	wording := func() map[string]bool {
		out := map[string]bool{}
		for _, d := range lspProblems(t, e) {
			out[fmt.Sprintf("%s:%d:%d %s", d.File, d.Line, d.Column, d.Message)] = true
		}
		return out
	}
	was := wording()
	var fe jmcp.FileEditResult
	txt = e.ok("file_edit", map[string]any{"file": "src/a.ts", "target": "a",
		"code": "export function a(url: string): string {\n  const c = new Client(url);\n  return c.get(\"/a\") + new URL(url).pathname + new URL(url).search + new URL(url).hash;\n}"}, &fe)
	fresh := newOnlyLSP(fe.RemainingErrors)
	if len(fresh) != 1 || fresh[0].File != "src/a.ts" || fresh[0].Line != 5 || fresh[0].Column != 73 || !strings.HasPrefix(fresh[0].Message, "Cannot find name 'URL'") {
		t.Fatalf("an edit adding an unresolved name: new %+v\n%s", fresh, txt)
	}
	now := wording()
	if !was["src/e.ts:5:27 Cannot find name 'URL'. Did you mean 'url'?"] || !now["src/e.ts:5:27 Cannot find name 'URL'."] {
		t.Fatalf("e.ts's problem was not reworded by the edit (the case this checks):\nbefore %v\nafter %v", was, now)
	}

	// An edit introducing a type error: exactly that error is new.
	txt = e.ok("file_edit", map[string]any{"file": "src/a.ts", "target": "a",
		"code": "export function a(url: string): string {\n  const c = new Client(url);\n  const n: number = c.get(\"/a\");\n  return n + new URL(url).pathname + new URL(url).search;\n}"}, &fe)
	fresh = newOnlyLSP(fe.RemainingErrors)
	if len(fresh) != 1 || fresh[0].File != "src/a.ts" || fresh[0].Line != 5 || !strings.Contains(fresh[0].Message, "not assignable to type 'number'") {
		t.Fatalf("an edit with a type error: new %+v\n%s", fresh, txt)
	}
}

// TestLSP_EditSaysWhenNewProblemsAreNotKnown: when the server publishes
// nothing for the edited file's new content before the wait runs out (gopls
// stopped with SIGSTOP once warm), the edit is made and its result says
// that the file's new problems are not known, instead of calling its
// problems new or claiming there are none.
func TestLSP_EditSaysWhenNewProblemsAreNotKnown(t *testing.T) {
	lsptest(t)
	var m *lsp.Manager
	e := newEnvWith(t, func(dir string) jmcp.Options {
		cfg := lsp.DefaultConfig()
		cfg.Max = 500 * time.Millisecond
		m = lsp.NewManager(cfg, []string{dir})
		t.Cleanup(func() { m.Close() })
		return jmcp.Options{LSP: m, LSPTimeout: 2 * time.Minute}
	}, goWorkspace()...)
	e.ok("diagnostics", map[string]any{"file": "lib/lib.go"}, nil) // gopls has loaded and checked lib.go
	pid := m.Servers()[0].PID
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) }) // before m.Close
	var out jmcp.FileEditResult
	txt := e.ok("file_edit", map[string]any{"file": "lib/lib.go", "startLine": 7, "endLine": 7, "code": "\nvar answer = 42\n"}, &out)
	if out.Event == 0 || !strings.Contains(e.read("lib/lib.go"), "var answer = 42") || len(newOnlyLSP(out.RemainingErrors)) != 0 {
		t.Fatalf("the edit with a stopped server: %+v\n%s", out, txt)
	}
	want := "new problems not known for lib/lib.go: after the edit, gopls published no diagnostics for its latest content within"
	if !strings.Contains(txt, want) {
		t.Fatalf("the result does not say the comparison was not possible (%q):\n%s", want, txt)
	}
	// The diagnostics tool says so too.
	var d jmcp.DiagnosticsResult
	txt = e.ok("diagnostics", map[string]any{"file": "lib/lib.go"}, &d)
	if !strings.Contains(strings.Join(d.Notes, "\n"), "lib/lib.go may not be listed as it is now: gopls published no diagnostics") {
		t.Fatalf("diagnostics of a file the stopped server has not checked:\n%s", txt)
	}
}
