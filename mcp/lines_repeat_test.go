package mcp_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// newestEvent is the sequence number of the journal's newest event that is
// not an observation of an outside change.
func (e *env) newestEvent() uint64 {
	e.t.Helper()
	var lg struct {
		Events []struct {
			Seq  uint64 `json:"event"`
			Kind string `json:"kind"`
		} `json:"events"`
	}
	e.ok("journal_log", map[string]any{}, &lg)
	var n uint64
	for _, ev := range lg.Events {
		if ev.Kind != "observe" {
			n = max(n, ev.Seq)
		}
	}
	return n
}

// lineToolCall is one line tool's call replacing lines start..end of path
// by content, as the tool takes it.
func lineToolCall(tool, path string, start, end int, content string, extra map[string]any) map[string]any {
	var a map[string]any
	switch tool {
	case "file_replace":
		a = map[string]any{"ops": []any{map[string]any{"path": path, "start_line": start, "end_line": end, "content": content}}}
	case "ai_code_editing.edit_file":
		a = map[string]any{"target_file": path, "edit_instruction": "edit", "start_line": start, "end_line": end, "code_block": content, "edit_type": "replace"}
	default:
		a = map[string]any{"file": path, "startLine": start, "endLine": end, "code": content}
	}
	for k, v := range extra {
		a[k] = v
	}
	return a
}

// readEnv is a workspace holding name with before, read by the session.
func readEnv(t *testing.T, name, before string) (*env, string) {
	t.Helper()
	e := newEnv(t, jmcp.Options{}, name, before)
	path := filepath.Join(e.dir, name)
	e.ok("read_content", map[string]any{"absolute_file_path": path, "target": 1}, nil)
	return e, path
}

var lineTools = []string{"file_replace", "ai_code_editing.edit_file", "file_edit"}

// claimsAlready reads already_applied from a line tool's structured result.
func claimsAlready(t *testing.T, raw any) bool {
	t.Helper()
	b, _ := json.Marshal(raw)
	var out struct {
		Already bool `json:"already_applied"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out.Already
}

// TestLineTools_RetryAnswersAlreadyApplied: the same line-range call sent
// twice — its content longer than its range, or as long — answers
// already_applied the second time, writing nothing and recording no event;
// sent with the file's current version as expected version, it applies
// again on purpose (its numbers count from now: another request).
func TestLineTools_RetryAnswersAlreadyApplied(t *testing.T) {
	const before = "package p\n\nimport (\n\t\"testing\"\n)\n"
	for _, tool := range lineTools {
		for _, tc := range []struct{ name, content, want string }{
			{"longer", "import (\n\t\"strings\"\n", "package p\n\nimport (\n\t\"strings\"\n\t\"testing\"\n)\n"},
			{"as long", "import (\n\t\"strings\"\n", "package p\n\nimport (\n\t\"strings\"\n)\n"},
		} {
			t.Run(tool+"/"+tc.name, func(t *testing.T) {
				e, path := readEnv(t, "a.go", before)
				end := 3
				if tc.name == "as long" {
					end = 4
				}
				args := lineToolCall(tool, path, 3, end, tc.content, nil)
				var first, second map[string]any
				e.ok(tool, args, &first)
				if got := e.read("a.go"); got != tc.want || claimsAlready(t, first) {
					t.Fatalf("first call: already=%v, file\n%q", claimsAlready(t, first), got)
				}
				seq := e.newestEvent()
				txt := e.ok(tool, args, &second)
				if got := e.read("a.go"); got != tc.want {
					t.Fatalf("the retry applied again:\n%q", got)
				}
				if !claimsAlready(t, second) || e.newestEvent() != seq {
					t.Fatalf("the retry: already_applied=%v, events %d → %d: %s", claimsAlready(t, second), seq, e.newestEvent(), txt)
				}
				if !strings.Contains(strings.ToLower(txt), "already applied") || !strings.Contains(txt, "expected version") {
					t.Fatalf("the retry's text does not say it: %s", txt)
				}
				// the same lines written again, on purpose: numbered from now
				var rd struct {
					Version string `json:"version"`
				}
				e.ok("read_content", map[string]any{"absolute_file_path": path, "target": 1}, &rd)
				pin := map[string]any{"expected_version": rd.Version}
				if tool == "file_replace" {
					pin = map[string]any{"expected_versions": map[string]any{path: rd.Version}}
				}
				var third map[string]any
				e.ok(tool, lineToolCall(tool, path, 3, end, tc.content, pin), &third)
				if claimsAlready(t, third) && tc.name == "longer" {
					t.Fatalf("the call pinned to the current version answered already_applied")
				}
				if tc.name == "longer" && strings.Count(e.read("a.go"), "\"strings\"") != 2 {
					t.Fatalf("the call pinned to the current version did not apply again:\n%q", e.read("a.go"))
				}
			})
		}
	}
}

// TestLineTools_RepeatAfterOtherChangeIsNotAlready: the evidence is the
// file's last change being this request and the file its result; a repeat
// after another change of the file (another request, or an edit outside)
// is judged by the line-number rules, never answered already_applied.
func TestLineTools_RepeatAfterOtherChangeIsNotAlready(t *testing.T) {
	const before = "a\nb\nc\nd\n"
	for _, tool := range lineTools {
		t.Run(tool, func(t *testing.T) {
			e, path := readEnv(t, "a.txt", before)
			args := lineToolCall(tool, path, 4, 4, "D\n", nil)
			e.ok(tool, args, nil)
			e.ok(tool, lineToolCall(tool, path, 1, 1, "A\n", nil), nil)
			// the first request again: its line still holds its content, so
			// the answer may be "already applied" by the file's own lines —
			// but never by the fingerprint, which the second call broke
			var out map[string]any
			txt := e.ok(tool, args, &out)
			if strings.Contains(txt, "journal event") && strings.Contains(txt, "already applied by") {
				t.Fatalf("a fingerprint claimed after another change: %s", txt)
			}
			if got := e.read("a.txt"); got != "A\nb\nc\nD\n" {
				t.Fatalf("file %q", got)
			}
			// an outside edit since: the repeat is not found made already
			write(t, e.dir, "a.txt", "A\nb\nc\nD\ne\n")
			e.ok("read_content", map[string]any{"absolute_file_path": path, "target": 1}, nil)
			args = lineToolCall(tool, path, 5, 5, "e\nf\n", nil)
			e.ok(tool, args, nil)
			write(t, e.dir, "a.txt", "A\nb\nc\nD\ne\nf\ng\n")
			res := e.call(nil, tool, args)
			if !res.IsError && claimsAlready(t, res.StructuredContent) {
				t.Fatalf("already_applied after an outside change: %s", text(res))
			}
		})
	}
}

// TestLineTools_ContentAlreadyThere: a call whose content is what its
// lines already hold — a retry of a call that changed nothing, or of one
// whose content was as long as its range — answers already_applied, each
// time, writing nothing.
func TestLineTools_ContentAlreadyThere(t *testing.T) {
	const before = "a\nb\nc\n"
	for _, tool := range lineTools {
		t.Run(tool, func(t *testing.T) {
			e, path := readEnv(t, "a.txt", before)
			seq := e.newestEvent()
			for range 2 {
				var out map[string]any
				txt := e.ok(tool, lineToolCall(tool, path, 2, 2, "b\n", nil), &out)
				if !claimsAlready(t, out) || e.read("a.txt") != before || e.newestEvent() != seq {
					t.Fatalf("already_applied=%v, events %d → %d: %s", claimsAlready(t, out), seq, e.newestEvent(), txt)
				}
			}
		})
	}
}
