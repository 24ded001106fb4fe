package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/bench/corpus"
	"github.com/journalfs/journal/bench/mcpclient"
	"github.com/journalfs/journal/bench/report"
)

func decodeCase(t *testing.T, s string) corpus.Case {
	t.Helper()
	var c corpus.Case
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRefCase_WhatEditFileCanExpress(t *testing.T) {
	for _, tc := range []struct{ name, c, why, edits string }{
		{"single", `{"call":{"tool":"edit_content","args":{"absolute_file_path":"$ROOT/a","search_text":"x","replace_text":"y","preview":false}}}`, "", `[{"newText":"y","oldText":"x"}]`},
		{"changes", `{"call":{"tool":"edit_content","args":{"absolute_file_path":"$ROOT/a","changes":[{"search_text":"x","replace_text":"y"},{"search_text":"p","replace_text":"q"}]}}}`, "", `[{"newText":"y","oldText":"x"},{"newText":"q","oldText":"p"}]`},
		{"read-then-edit", `{"setup":[{"tool":"read_content","args":{"absolute_file_path":"$ROOT/a"}}],"call":{"tool":"edit_content","args":{"absolute_file_path":"$ROOT/a","search_text":"x","replace_text":"y"}}}`, "", `[{"newText":"y","oldText":"x"}]`},
		{"occurrence", `{"call":{"tool":"edit_content","args":{"absolute_file_path":"$ROOT/a","changes":[{"search_text":"x","replace_text":"y","occurrence":2}]}}}`, "a change other than", ""},
		{"allow_repeat", `{"call":{"tool":"edit_content","args":{"absolute_file_path":"$ROOT/a","search_text":"x","replace_text":"y","allow_repeat":true}}}`, "edit_content with allow_repeat", ""},
		{"line-tool", `{"call":{"tool":"file_replace","args":{"ops":[]}}}`, "file_replace has no equivalent", ""},
		{"partial-read", `{"setup":[{"tool":"read_content","args":{"absolute_file_path":"$ROOT/a","start_line":3}}],"call":{"tool":"edit_content","args":{"absolute_file_path":"$ROOT/a","search_text":"x","replace_text":"y"}}}`, "setup: read_content of part", ""},
		{"outside", `{"outside":{"a":"z"},"call":{"tool":"edit_content","args":{"absolute_file_path":"$ROOT/a","search_text":"x","replace_text":"y"}}}`, "behind the server's back", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setup, call, why := refCase(decodeCase(t, tc.c))
			if tc.why != "" {
				if !strings.Contains(why, tc.why) {
					t.Fatalf("why = %q, want %q", why, tc.why)
				}
				return
			}
			if why != "" || call.Tool != "edit_file" {
				t.Fatalf("why %q, call %+v", why, call)
			}
			a := corpus.Rooted(call.Args, "/w").(map[string]any)
			edits, _ := json.Marshal(a["edits"])
			if a["path"] != "/w/a" || a["dryRun"] != false || string(edits) != tc.edits {
				t.Fatalf("args = %v (edits %s)", a, edits)
			}
			if tc.name == "read-then-edit" && (len(setup) != 1 || setup[0].Tool != "read_text_file") {
				t.Fatalf("setup = %+v", setup)
			}
		})
	}
}

func TestChangedLines(t *testing.T) {
	for _, tc := range []struct{ old, new, want string }{
		{"a\nb\nc\n", "a\nB\nc\n", "b\n"},
		{"a\nb\nc\n", "a\nb\nx\nc\n", "b\n"}, // insertion: the line before
		{"a\nb\n", "x\na\nb\n", "a\n"},       // at the top: the line after
		{"a\nb\nc\nd\n", "a\nd\n", "b\nc\n"},
	} {
		if got := changedLines(tc.old, tc.new); got != tc.want {
			t.Errorf("changedLines(%q, %q) = %q, want %q", tc.old, tc.new, got, tc.want)
		}
	}
}

func TestQuotesWorkingText(t *testing.T) {
	c := decodeCase(t, `{"call":{"tool":"edit_content","args":{"search_text":"    retrun x\n    y = 1","replace_text":"    return x\n    y = 1"}},
		"expect":{"outcome":"applied","files":{"a.py":"def f():\n    return x\n    y = 1\n"}}}`)
	before := map[string]string{"a.py": "def f():\n    return_ x\n    y = 1\n"}
	if quotesWorkingText("Could not find exact match for edit:\n    retrun x\n    y = 1", c, before) {
		t.Error("a message quoting only the request's own text counts as usable")
	}
	if !quotesWorkingText("no match; nearest, line 2:\n    return_ x\n", c, before) {
		t.Error("a message quoting the file's line to change does not count")
	}
	if quotesWorkingText("no match; nearest, line 2:     return_ x (score 0.9)", c, before) {
		t.Error("the file's line inside a line of the message counts")
	}
}

// fakeOurs is an in-process stand-in for our server: each tool call runs do.
type fakeOurs struct {
	do func(tool string, args map[string]any) (*mcpclient.CallResult, error)
}

func (f fakeOurs) CallTool(name string, args any) (*mcpclient.CallResult, error) {
	b, _ := json.Marshal(args)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return f.do(name, m)
}

func ok(structured string) (*mcpclient.CallResult, error) {
	r := &mcpclient.CallResult{Content: []mcpclient.Content{{Type: "text", Text: "done"}}}
	if structured != "" {
		r.StructuredContent = json.RawMessage(structured)
	}
	return r, nil
}

func refuse(errJSON string) (*mcpclient.CallResult, error) {
	text := "refused\n" + errJSON
	return &mcpclient.CallResult{IsError: true, Content: []mcpclient.Content{{Type: "text", Text: text}}}, &mcpclient.ToolError{Text: text}
}

func TestJudgeCase_Ours(t *testing.T) {
	const applied = `{"files":{"a.txt":"one\ntwo\n"},"call":{"tool":"edit_content","args":{"absolute_file_path":"$ROOT/a.txt","search_text":"twp","replace_text":"TWO"}},
		"expect":{"outcome":"applied","files":{"a.txt":"one\nTWO\n"}}}`
	const refused = `{"files":{"a.txt":"one\ntwo\n"},"call":{"tool":"edit_content","args":{"absolute_file_path":"$ROOT/a.txt","search_text":"o","replace_text":"0"}},
		"expect":{"outcome":"refused","code":"AMBIGUOUS","retry":true,"files":{"a.txt":"0ne\ntwo\n"}}}`
	const already = `{"files":{"a.txt":"one\nTWO\n"},"call":{"tool":"edit_content","args":{"absolute_file_path":"$ROOT/a.txt","search_text":"two","replace_text":"TWO"}},
		"expect":{"outcome":"already_applied"}}`
	retryTo := func(content string) string {
		return `{"code":"AMBIGUOUS","message":"m","retry":{"tool":"write","arguments":{"content":` + strconvQuote(content) + `}}}`
	}
	for _, tc := range []struct {
		name, c, class string
		do             func(root, tool string, args map[string]any) (*mcpclient.CallResult, error)
	}{
		{"applied", applied, classCorrect, func(root, tool string, a map[string]any) (*mcpclient.CallResult, error) {
			os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\nTWO\n"), 0o644)
			return ok("")
		}},
		{"applied-other-bytes", applied, classWrong, func(root, tool string, a map[string]any) (*mcpclient.CallResult, error) {
			os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\nTWO"), 0o644)
			return ok("")
		}},
		{"applied-and-a-stray-file", applied, classWrong, func(root, tool string, a map[string]any) (*mcpclient.CallResult, error) {
			os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\nTWO\n"), 0o644)
			os.WriteFile(filepath.Join(root, "a.txt.orig"), []byte("one\ntwo\n"), 0o644)
			return ok("")
		}},
		{"refused-with-working-retry", applied, classUsable, func(root, tool string, a map[string]any) (*mcpclient.CallResult, error) {
			if tool == "write" {
				os.WriteFile(filepath.Join(root, "a.txt"), []byte(a["content"].(string)), 0o644)
				return ok("")
			}
			return refuse(retryTo("one\nTWO\n"))
		}},
		{"refused-with-wrong-retry", applied, classWrong, func(root, tool string, a map[string]any) (*mcpclient.CallResult, error) {
			if tool == "write" {
				os.WriteFile(filepath.Join(root, "a.txt"), []byte(a["content"].(string)), 0o644)
				return ok("")
			}
			return refuse(retryTo("one\nTWO\nTWO\n"))
		}},
		{"refused-bare", applied, classBare, func(root, tool string, a map[string]any) (*mcpclient.CallResult, error) {
			return refuse(`{"code":"NO_MATCH","message":"m"}`)
		}},
		{"refused-but-wrote", applied, classWrong, func(root, tool string, a map[string]any) (*mcpclient.CallResult, error) {
			os.WriteFile(filepath.Join(root, "a.txt"), []byte(""), 0o644)
			return refuse(`{"code":"NO_MATCH","message":"m"}`)
		}},
		{"expected-refusal-with-retry", refused, classCorrect, func(root, tool string, a map[string]any) (*mcpclient.CallResult, error) {
			if tool == "write" {
				os.WriteFile(filepath.Join(root, "a.txt"), []byte(a["content"].(string)), 0o644)
				return ok("")
			}
			return refuse(retryTo("0ne\ntwo\n"))
		}},
		{"expected-refusal-other-code", refused, classBare, func(root, tool string, a map[string]any) (*mcpclient.CallResult, error) {
			return refuse(`{"code":"NO_MATCH","message":"m"}`)
		}},
		{"expected-refusal-applied", refused, classWrong, func(root, tool string, a map[string]any) (*mcpclient.CallResult, error) {
			os.WriteFile(filepath.Join(root, "a.txt"), []byte("0ne\ntw0\n"), 0o644)
			return ok("")
		}},
		{"already-applied-said", already, classCorrect, func(root, tool string, a map[string]any) (*mcpclient.CallResult, error) {
			return ok(`{"already_applied":true}`)
		}},
		{"already-applied-not-said", already, classBare, func(root, tool string, a map[string]any) (*mcpclient.CallResult, error) {
			return ok(`{}`)
		}},
		{"already-applied-refused-retry-rewrites", already, classWrong, func(root, tool string, a map[string]any) (*mcpclient.CallResult, error) {
			if tool == "write" {
				os.WriteFile(filepath.Join(root, "a.txt"), []byte(a["content"].(string)), 0o644)
				return ok("")
			}
			return refuse(retryTo("one\nTWO\nTWO\n"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := decodeCase(t, tc.c)
			root := t.TempDir()
			for p, s := range c.Files {
				os.WriteFile(filepath.Join(root, p), []byte(s), 0o644)
			}
			cl := fakeOurs{do: func(tool string, a map[string]any) (*mcpclient.CallResult, error) { return tc.do(root, tool, a) }}
			if class, detail := judgeCase(cl, c, root, false); class != tc.class {
				t.Fatalf("class %s (%s), want %s", class, detail, tc.class)
			}
		})
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The whole mode on the fake reference server (TestMain): a corpus in a
// temp dir, the section written into a Markdown file among others.
func TestRobustness_FakeReference(t *testing.T) {
	corpus := t.TempDir()
	cases := `[
 {"name":"exact","about":"","files":{"a.txt":"one\ntwo\n"},"call":{"tool":"edit_content","args":{"absolute_file_path":"$ROOT/a.txt","search_text":"two","replace_text":"TWO","preview":false}},"expect":{"outcome":"applied","files":{"a.txt":"one\nTWO\n"}}},
 {"name":"typo","about":"","files":{"a.txt":"one\ntwo\n"},"call":{"tool":"edit_content","args":{"absolute_file_path":"$ROOT/a.txt","search_text":"twp","replace_text":"TWO","preview":false}},"expect":{"outcome":"applied","files":{"a.txt":"one\nTWO\n"}}},
 {"name":"retried-insert","about":"an insertion sent twice","files":{"a.txt":"one\nnew\ntwo\n"},"call":{"tool":"edit_content","args":{"absolute_file_path":"$ROOT/a.txt","search_text":"one\n","replace_text":"one\nnew\n","preview":false}},"expect":{"outcome":"already_applied"}},
 {"name":"ambiguous","about":"","files":{"a.txt":"x\nx\n"},"call":{"tool":"edit_content","args":{"absolute_file_path":"$ROOT/a.txt","search_text":"x","replace_text":"y","preview":false}},"expect":{"outcome":"refused","code":"AMBIGUOUS"}},
 {"name":"by-line","about":"","files":{"a.txt":"x\n"},"call":{"tool":"file_replace","args":{"ops":[]}},"expect":{"outcome":"applied","files":{"a.txt":"y\n"}}}
]`
	if err := os.WriteFile(filepath.Join(corpus, "fam.json"), []byte(cases), 0o644); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(t.TempDir(), "B.md")
	os.WriteFile(md, []byte("# B\n\n## Other\n\nkept\n\n"+RobustHeading+"\n\nold\n\n## Last\n\nkept too\n"), 0o644)
	b := fakeBench(t, "ok")
	b.log = io.Discard
	jsonOut := filepath.Join(t.TempDir(), "r.json")
	if st := b.robustness(corpus, 2, jsonOut, md, nil); st != 0 {
		t.Fatalf("status %d", st)
	}
	var rep RobustReport
	data, _ := os.ReadFile(jsonOut)
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rep.Results[report.Ref] {
		got = append(got, r.Name+":"+r.Class)
	}
	if s := strings.Join(got, " "); s != "exact:correct typo:refused-bare retried-insert:WRONG ambiguous:WRONG by-line:n/a" {
		t.Fatalf("classes: %s", s)
	}
	out, _ := os.ReadFile(md)
	doc := string(out)
	for _, want := range []string{"## Other\n\nkept\n", "## Last\n\nkept too\n", "| **all** | 5 | not run | not run | 1 / 0 / 1 / 2 |", "`fam/retried-insert` — an insertion sent twice"} {
		if !strings.Contains(doc, want) {
			t.Errorf("section lacks %q:\n%s", want, doc)
		}
	}
	if strings.Contains(doc, "\nold\n") {
		t.Errorf("the old section is still there:\n%s", doc)
	}
}
