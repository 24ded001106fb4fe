package mcp_test

import (
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

func TestReplaceTopLevelForm_TargetLine(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, fixtureFiles(t, "forms")...)
	var out jmcp.FormResult
	txt := e.ok("replace_top_level_form", map[string]any{"filePath": "core.clj", "line": 11, "targetLine": "(defn old-function [x]",
		"newForm": "(defn new-function [x y] (+ x y))"}, &out)
	got := e.read("core.clj")
	if out.ActualLineUsed != 12 || !out.Success || out.Event != 1 || out.Form == nil || out.Form.Name != "old-function" {
		t.Fatalf("result %+v\n%s", out, txt)
	}
	if !strings.Contains(got, "(defn greet") || strings.Contains(got, "old-function [x]") || !strings.Contains(got, "\n(defn new-function [x y] (+ x y))\n\n(comment") {
		t.Fatalf("file:\n%s", got)
	}
	if out.DiagnosticsBefore == nil || out.DiagnosticsAfter == nil || !strings.Contains(txt, "actual-line-used: 12") || !strings.Contains(txt, "Diagnostics after edit:** 0") {
		t.Fatalf("diagnostics %+v\n%s", out, txt)
	}
	// The seed's mismatch error.
	before := e.snapshot()
	te := e.fail("replace_top_level_form", map[string]any{"filePath": "core.clj", "line": 12, "targetLine": "(defn wrong-function [x]",
		"newForm": "(defn x [])"}, jmcp.CodeNoMatch)
	if !strings.Contains(te.Message, "Target line text not found. Expected: '(defn wrong-function [x]' near line 12") || len(te.Candidates) == 0 {
		t.Fatalf("mismatch %+v", te)
	}
	// A line between forms names no form.
	e.fail("replace_top_level_form", map[string]any{"filePath": "core.clj", "line": 6, "newForm": "(def x 1)"}, jmcp.CodeNoMatch)
	if !sameFiles(before, e.snapshot()) {
		t.Fatal("a refused edit changed the file")
	}
}

func TestReplaceTopLevelForm_RichComment(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, fixtureFiles(t, "forms")...)
	var out jmcp.FormResult
	e.ok("replace_top_level_form", map[string]any{"filePath": "core.clj", "line": 17, "targetLine": "(def scratch 42)", "newForm": "(def scratch\n  43)"}, &out)
	got := e.read("core.clj")
	if !out.Form.InComment || !strings.Contains(got, "(comment\n  (greet \"x\")\n  (def scratch\n    43)\n  (defn try-it") {
		t.Fatalf("rich comment form not replaced alone: %+v\n%s", out.Form, got)
	}
}

func TestReplaceTopLevelForm_Unbalanced(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, fixtureFiles(t, "forms")...)
	before := e.snapshot()
	te := e.fail("replace_top_level_form", map[string]any{"filePath": "core.clj", "line": 7,
		"newForm": "(defn greet [name\n  (str \"hello \" name"}, jmcp.CodeSyntaxError)
	want := "(defn greet [name]\n  (str \"hello \" name))"
	if len(te.Candidates) != 1 || te.Candidates[0].Text != want || !strings.Contains(te.Message, "Suggested balanced version") {
		t.Fatalf("suggestion %+v", te)
	}
	if !sameFiles(before, e.snapshot()) {
		t.Fatal("an unbalanced form was written")
	}
	// The suggestion goes through.
	e.ok("replace_top_level_form", map[string]any{"filePath": "core.clj", "line": 7, "newForm": want}, nil)
	if !strings.Contains(e.read("core.clj"), want) {
		t.Fatal("suggestion not applied")
	}
	// Lisps without a grammar: forms from brackets.
	e.fail("replace_top_level_form", map[string]any{"filePath": "init.el", "line": 7, "newForm": "(defun bar ()\n  3))"}, jmcp.CodeSyntaxError)
	e.ok("replace_top_level_form", map[string]any{"filePath": "init.el", "line": 8, "newForm": "(defun bar ()\n  3)"}, nil)
	if got := e.read("init.el"); !strings.HasSuffix(got, "\n\n(defun bar ()\n  3)\n") || !strings.Contains(got, "\"Foo.\"\n  1)") {
		t.Fatalf("init.el:\n%s", got)
	}
}

func TestInsertTopLevelForm(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, fixtureFiles(t, "forms")...)
	var out jmcp.FormResult
	e.ok("insert_top_level_form", map[string]any{"filePath": "core.clj", "line": 5, "targetLine": "(def limit 3)", "newForm": "(def other 1)"}, &out)
	got := e.read("core.clj")
	if !strings.Contains(got, "(:require [clojure.string :as str]))\n\n(def other 1)\n\n;; The limit.\n(def limit 3)") || out.Range.StartLine != 4 {
		t.Fatalf("insert before (comment stays with its form): %+v\n%s", out.Range, got)
	}
	e.ok("insert_top_level_form", map[string]any{"filePath": "core.clj", "line": 11, "insertMode": "after", "newForm": "(def after-greet 2)\n"}, &out)
	if got := e.read("core.clj"); !strings.Contains(got, "(str \"hi \" name))\n\n(def after-greet 2)\n\n(defn old-function") {
		t.Fatalf("insert after:\n%s", got)
	}
	e.ok("insert_top_level_form", map[string]any{"filePath": "core.clj", "line": 99, "newForm": "(def last 9)"}, nil)
	if got := e.read("core.clj"); !strings.HasSuffix(got, "(old-function 1)))\n\n(def last 9)\n") {
		t.Fatalf("append:\n%s", got)
	}
}

func TestInsertCommentAtLine(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, append(fixtureFiles(t, "forms"),
		"svc.py", "import os\n\ndef f():\n    return 1\n",
		"main.go", "package main\n\nfunc main() {\n\tprintln()\n}\n",
		"q.sql", "SELECT 1;\n",
		"s.css", "a { color: red; }\n",
		"crlf.clj", "(ns a)\r\n(def x 1)\r\n")...)
	var out jmcp.FormResult
	txt := e.ok("insert_comment_at_line", map[string]any{"filePath": "core.clj", "lineNumber": 2, "insertMode": "after",
		"commentText": "This module handles user authentication\nand session management"}, &out)
	got := e.read("core.clj")
	if !strings.Contains(got, "(:require [clojure.string :as str]))\n\n;; This module handles user authentication\n;; and session management\n\n;; The limit.") {
		t.Fatalf("after ns:\n%s", got)
	}
	if out.FinalLine != 4 || !strings.Contains(txt, "comment at line 4") {
		t.Fatalf("final line %+v", out)
	}
	e.ok("insert_comment_at_line", map[string]any{"filePath": "core.clj", "lineNumber": 10, "insertMode": "before", "commentText": "Helper functions"}, &out)
	if got := e.read("core.clj"); !strings.Contains(got, "\n\n;; Helper functions\n(defn greet") {
		t.Fatalf("before defn:\n%s", got)
	}
	// Line 12 after the session's own two writes: as numbered after the
	// first write it is "[name]" (now 13), as numbered now "\"Says hi.\"".
	// Ambiguous, refused; expected_version says "as numbered now".
	before := e.snapshot()
	te := e.fail("insert_comment_at_line", map[string]any{"filePath": "core.clj", "lineNumber": 12, "insertMode": "after", "commentText": ";; inside"}, jmcp.CodeEditConflict)
	if te.Retry == nil || te.Retry.Arguments["lineNumber"] != float64(13) || !strings.Contains(te.Hint, out.Version) || !sameFiles(before, e.snapshot()) {
		t.Fatalf("ambiguous line after own writes: %+v", te)
	}
	e.ok("insert_comment_at_line", map[string]any{"filePath": "core.clj", "lineNumber": 12, "insertMode": "after", "commentText": ";; inside", "expected_version": out.Version}, nil)
	if got := e.read("core.clj"); !strings.Contains(got, "  \"Says hi.\"\n  ;; inside\n  [name]") {
		t.Fatalf("inside a form:\n%s", got)
	}
	for file, want := range map[string]string{
		"svc.py":   "import os\n\n# note\ndef f():",
		"main.go":  "func main() {\n\t// note\n\tprintln()",
		"q.sql":    "-- note\nSELECT 1;",
		"s.css":    "/* note */\na {",
		"crlf.clj": "(ns a)\r\n\r\n;; note\r\n(def x 1)\r\n",
	} {
		line, mode := 1, "before"
		switch file {
		case "svc.py", "main.go", "crlf.clj":
			line, mode = map[string]int{"svc.py": 2, "main.go": 3, "crlf.clj": 1}[file], "after"
		}
		e.ok("insert_comment_at_line", map[string]any{"filePath": file, "lineNumber": line, "insertMode": mode, "commentText": "note"}, nil)
		if got := e.read(file); !strings.Contains(got, want) {
			t.Errorf("%s: want %q in\n%q", file, want, got)
		}
	}
	e.fail("insert_comment_at_line", map[string]any{"filePath": "core.clj", "lineNumber": 1, "insertMode": "above", "commentText": "x"}, jmcp.CodeInvalidInput)
}

func TestTopLevelForm_OtherLanguages(t *testing.T) {
	e := newEnv(t, jmcp.Options{}, fixtureFiles(t, "semantic/python")...)
	var out jmcp.FormResult
	e.ok("replace_top_level_form", map[string]any{"filePath": "service.py", "line": 24, "targetLine": "return 1", "newForm": "def helper():\n    return 2"}, &out)
	if got := e.read("service.py"); !strings.HasSuffix(got, "\n\n\ndef helper():\n    return 2\n") || out.Form.Name != "helper" {
		t.Fatalf("python:\n%s", got)
	}
	before := e.snapshot()
	te := e.fail("replace_top_level_form", map[string]any{"filePath": "service.py", "line": 23, "newForm": "def helper(:\n    return 2"}, jmcp.CodeSyntaxError)
	if len(te.Candidates) == 0 || !sameFiles(before, e.snapshot()) {
		t.Fatalf("refusal %+v", te)
	}
	e.ok("replace_top_level_form", map[string]any{"filePath": "service.py", "line": 23, "newForm": "def helper(:\n    return 2", "allowSyntaxErrors": true}, &out)
	if out.NewDiagnostics == 0 || len(out.DiagnosticsBefore) != 0 || !out.DiagnosticsAfter[0].New {
		t.Fatalf("diagnostics %+v", out)
	}
}
