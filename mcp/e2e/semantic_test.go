package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSDK_SemanticAndForms drives file_read/file_edit and the form tools with
// the TypeScript SDK on Python, TypeScript and Clojure.
func TestSDK_SemanticAndForms(t *testing.T) {
	requireNode(t)
	root := t.TempDir()
	files := map[string]string{
		"svc.py":   "class UserService:\n    def __init__(self):\n        self.users = {}\n\n    def find_by_id(self, user_id):\n        return None\n",
		"app.ts":   "export function greet(name: string): string {\n  return `Hi, ${name}`;\n}\n",
		"main.ts":  "import { greet } from \"./app\";\nconsole.log(greet(\"x\"));\n",
		"core.clj": "(ns demo.core)\n\n(defn add [a b]\n  (+ a b))\n\n(comment\n  (add 1 2))\n",
	}
	for name, content := range files {
		os.WriteFile(filepath.Join(root, name), []byte(content), 0o644)
	}
	steps := runSteps(t, "semantic.mjs", root)
	want := []struct {
		isError bool
		text    string
	}{
		{false, "def find_by_id"},             // file_read of a nested symbol
		{false, "1 body change"},              // file_edit: a body change detected
		{true, "SYNTAX_ERROR"},                // a syntax-breaking edit refused
		{false, "main.ts"},                    // a rename: the importer is in the impact scope
		{false, "actual-line-used"},           // replace_top_level_form with targetLine
		{true, "(defn add [a b]\n  (+ a b))"}, // unbalanced form refused with a balanced suggestion
		{false, ";;"},                         // insert_comment_at_line with the Lisp prefix
	}
	for i, w := range want {
		s := steps[i]
		if s.IsError != w.isError || !strings.Contains(s.Text, w.text) {
			t.Errorf("step %d %s: isError=%v, want %v with %q:\n%s", i, s.Name, s.IsError, w.isError, w.text, s.Text)
		}
	}
	py := readFile(t, filepath.Join(root, "svc.py"))
	if !strings.Contains(py, "return self.users.get(user_id)") || strings.Contains(py, "user_id:\n") {
		t.Errorf("svc.py:\n%s", py)
	}
	if ts := readFile(t, filepath.Join(root, "app.ts")); !strings.Contains(ts, "function salute") {
		t.Errorf("app.ts:\n%s", ts)
	}
	clj := readFile(t, filepath.Join(root, "core.clj"))
	if !strings.Contains(clj, "(+ a b 0))") || !strings.Contains(clj, ";; Core arithmetic.") {
		t.Errorf("core.clj:\n%s", clj)
	}
	// Every edit is one journal event, visible to the CLI (after the
	// watcher's baseline of the files the server found).
	if log := runJournal(t, root, "log", "--oneline", "--no-pager"); strings.Count(log, "\n") != 5 || !strings.HasSuffix(log, "first seen (baseline) app.ts,core.clj,main.ts,svc.py\n") {
		t.Errorf("journal log:\n%s", log)
	}
}
