package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/journalfs/journal/bench/mcpclient"
	"github.com/journalfs/journal/bench/report"
)

func sessionWith(target string, tools ...mcpclient.Tool) *session {
	s := &session{target: target, tools: map[string]mcpclient.Tool{}, used: map[string]string{}}
	for _, t := range tools {
		s.tools[t.Name] = t
	}
	return s
}

func TestEditArgs_PrefersEditContentApplied(t *testing.T) {
	s := sessionWith(report.Ours,
		mcpclient.Tool{Name: "file_replace"},
		mcpclient.Tool{Name: "edit_content", InputSchema: json.RawMessage(`{"properties":{"absolute_file_path":{},"fuzzy":{},"preview":{}}}`)})
	tool, args, err := s.editArgs("/w/a.txt", 4, "old", "new")
	if err != nil || tool != "edit_content" {
		t.Fatalf("tool %q, err %v", tool, err)
	}
	a := args.(map[string]any)
	if a["preview"] != false || a["fuzzy"] != false || a["search_text"] != "old" || a["replace_text"] != "new" || a["absolute_file_path"] != "/w/a.txt" {
		t.Fatalf("args = %v", a)
	}
}

func TestEditArgs_FallsBackToFileReplace(t *testing.T) {
	s := sessionWith(report.Ours, mcpclient.Tool{Name: "file_replace"})
	tool, args, err := s.editArgs("/w/a.txt", 4, "old", "new")
	if err != nil || tool != "file_replace" {
		t.Fatalf("tool %q, err %v", tool, err)
	}
	op := args.(map[string]any)["ops"].([]map[string]any)[0]
	if op["start_line"] != 5 || op["end_line"] != 5 || op["content"] != "new" {
		t.Fatalf("op = %v (line index 4 is line 5)", op)
	}
}

func TestEditArgs_FailsLoudlyWithoutATool(t *testing.T) {
	s := sessionWith(report.Ours, mcpclient.Tool{Name: "read_content"})
	if _, _, err := s.editArgs("/w/a.txt", 0, "a", "b"); err == nil || !strings.Contains(err.Error(), "edit_content") {
		t.Fatalf("err = %v", err)
	}
}

func TestEditArgs_Reference(t *testing.T) {
	s := sessionWith(report.Ref)
	tool, args, err := s.editArgs("/w/a.txt", 0, "a", "b")
	if err != nil || tool != "edit_file" {
		t.Fatalf("tool %q, err %v", tool, err)
	}
	b, _ := json.Marshal(args)
	if string(b) != `{"edits":[{"newText":"b","oldText":"a"}],"path":"/w/a.txt"}` {
		t.Fatalf("args = %s", b)
	}
}
