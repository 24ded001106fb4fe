package mcp_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/journalfs/journal/bench/corpus"
	jmcp "github.com/journalfs/journal/mcp"
)

// The classes a case's result falls in.
const (
	classCorrect       = corpus.Correct
	classRefusedUsable = corpus.RefusedUsable
	classRefusedBare   = corpus.RefusedBare
	classWrong         = corpus.Wrong
)

func loadCorpus(t *testing.T) []corpus.Case {
	t.Helper()
	cases, err := corpus.Load("../testdata/robustness")
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// runCase runs one case in a fresh workspace and classifies the result.
func runCase(t *testing.T, c corpus.Case) (class, detail string) {
	var files []string
	for p, s := range c.Files {
		files = append(files, p, s)
	}
	return runCaseIn(t, c, newEnv(t, jmcp.Options{}, files...))
}

// runCaseIn runs one case in e, a fresh workspace holding the case's files.
func runCaseIn(t *testing.T, c corpus.Case, e *env) (class, detail string) {
	root := e.eng.Roots()[0].Dir
	for i, s := range c.Setup {
		if r := e.call(e.c, s.Tool, corpus.Rooted(s.Args, root)); r.IsError {
			t.Fatalf("setup %d (%s) failed: %s", i, s.Tool, text(r))
		}
	}
	for p, s := range c.Outside {
		write(t, e.dir, p, s)
	}
	before := e.snapshot()
	r := e.call(e.c, c.Call.Tool, corpus.Rooted(c.Call.Args, root))
	after := e.snapshot()
	class, detail = classify(t, e, c, r, before, after)
	if class == classCorrect || class == classRefusedUsable {
		if u := unparsed(c, before, e.snapshot()); u != "" {
			return classWrong, "reported success and left unparsable what parsed before: " + u
		}
	}
	return class, detail
}

// unparsed is the runners' parse check (corpus.Unparsed) on a case's files,
// unless the case says its expected file does not parse.
func unparsed(c corpus.Case, before, after map[string]string) string {
	if c.UnparsableOK != "" {
		return ""
	}
	return corpus.Unparsed(before, after)
}

// classify judges a case's call r, which left the files before as after.
func classify(t *testing.T, e *env, c corpus.Case, r *mcpgo.CallToolResult, before, after map[string]string) (class, detail string) {
	if !r.IsError {
		switch c.Expect.Outcome {
		case "refused":
			if !sameFiles(before, after) {
				return classWrong, "reported success and changed files where a refusal was expected:\n" + filesDiff(c.Files, after)
			}
			return classRefusedBare, "succeeded without changing anything where a refusal was expected"
		case "already_applied":
			if !sameFiles(before, after) {
				return classWrong, "reported success and changed files where the change was applied already:\n" + filesDiff(before, after)
			}
			var out struct {
				AlreadyApplied bool `json:"already_applied"`
			}
			b, _ := json.Marshal(r.StructuredContent)
			if json.Unmarshal(b, &out) != nil || !out.AlreadyApplied {
				return classRefusedBare, "left the files as they were but did not say already_applied"
			}
			return classCorrect, ""
		}
		if d := filesDiff(c.Expect.Files, after); d != "" {
			return classWrong, "reported success with other bytes than meant:\n" + d
		}
		return classCorrect, ""
	}
	if !sameFiles(before, after) {
		return classWrong, "refused but changed files:\n" + filesDiff(before, after)
	}
	te, _ := jmcp.ParseToolError(text(r))
	if c.Expect.Outcome != "refused" {
		if te.Retry != nil {
			return retried(t, e, te, c.Expect.Files, before)
		}
		return classRefusedBare, fmt.Sprintf("refused (%s: %s) where %s was expected", te.Code, te.Message, c.Expect.Outcome)
	}
	if c.Expect.Code != "" && te.Code != c.Expect.Code {
		return classRefusedBare, fmt.Sprintf("refused with %s, want %s: %s", te.Code, c.Expect.Code, te.Message)
	}
	if !c.Expect.Retry {
		return classCorrect, ""
	}
	if te.Retry == nil {
		return classRefusedBare, "refused without a retry: " + te.Message
	}
	class, detail = retried(t, e, te, c.Expect.Files, before)
	if class == classRefusedUsable {
		class = classCorrect
	}
	return class, detail
}

// retried sends an error's retry and checks the files it leaves.
func retried(t *testing.T, e *env, te jmcp.ToolError, want, before map[string]string) (string, string) {
	r := e.call(e.c, te.Retry.Tool, te.Retry.Arguments)
	after := e.snapshot()
	if r.IsError {
		if !sameFiles(before, after) {
			return classWrong, "the retry failed and changed files"
		}
		return classRefusedBare, "the retry was refused too: " + text(r)
	}
	if d := filesDiff(want, after); d != "" {
		return classWrong, "the retry wrote other bytes than meant:\n" + d
	}
	return classRefusedUsable, ""
}

// filesDiff names the files of want whose bytes differ in got, with both
// versions made visible (tabs, CR, no-break spaces); "" when all are equal.
func filesDiff(want, got map[string]string) string {
	var b strings.Builder
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	vis := strings.NewReplacer("\t", "→", "\r", "␍", "\u00a0", "⍽", "\u200b", "<ZWSP>")
	for _, k := range keys {
		g, ok := got[filepath.ToSlash(k)]
		if !ok {
			g, ok = got[k]
		}
		if ok && g == want[k] {
			continue
		}
		fmt.Fprintf(&b, "--- %s want:\n%s\n--- %s got:\n%s\n", k, vis.Replace(want[k]), k, vis.Replace(g))
	}
	return b.String()
}

// TestRobustness runs the corpus of imperfect edit requests through the
// in-process client. Any wrong edit fails; so does any case that misses its
// expectation unless it is marked known_gap; and correct plus usefully
// refused must be at least 95 % of the cases.
func TestRobustness(t *testing.T) {
	robustness(t, loadCorpus(t), runCase, true)
}

// TestRobustness_Streamed runs the corpus's edit_content cases with every
// file read in place, mapped or streamed, as files of 50 MiB and more are
// (the stream threshold lowered to nothing): the matching there is bounded
// (largefile_stream.go) and may refuse what the in-memory cascade applies,
// but it must never write a wrong edit.
func TestRobustness_Streamed(t *testing.T) {
	var cases []corpus.Case
	for _, c := range loadCorpus(t) {
		if c.Call.Tool == "edit_content" && len(c.Setup) == 0 && len(c.Outside) == 0 {
			cases = append(cases, c)
		}
	}
	run := func(t *testing.T, c corpus.Case) (string, string) {
		dir := t.TempDir()
		for p, s := range c.Files {
			write(t, dir, p, s)
		}
		e := newThresholdEnv(t, dir, 1)
		var ov jmcp.OverviewOut
		for p := range c.Files {
			if e.ok("get_overview", map[string]any{"absolute_file_path": filepath.Join(dir, p)}, &ov); ov.Access == "memory" && len(c.Files[p]) > 0 {
				t.Fatalf("%s is read in memory, not in place", p)
			}
		}
		return runCaseIn(t, c, e)
	}
	robustness(t, cases, run, false)
}

// robustness runs cases and tallies their classes per family; wrong edits
// fail, and with strict, so do refusals where an edit was expected and a
// share of correct or usefully refused below 95 %.
func robustness(t *testing.T, cases []corpus.Case, run func(*testing.T, corpus.Case) (string, string), strict bool) {
	type tally struct{ n, correct, usable, bare, wrong int }
	fams := map[string]*tally{}
	total := &tally{}
	for _, c := range cases {
		var class, detail string
		t.Run(c.Family+"/"+c.Name, func(t *testing.T) {
			class, detail = run(t, c)
			switch {
			case class == classWrong:
				t.Errorf("WRONG EDIT (%s): %s", c.About, detail)
			case class == classRefusedBare && !strict:
				t.Logf("refused: %s", detail)
			case class == classRefusedBare && c.KnownGap == "":
				t.Errorf("%s: %s", c.About, detail)
			case class == classRefusedBare:
				t.Logf("known gap (%s): %s", c.KnownGap, detail)
			}
		})
		if class == "" {
			continue // not run (-run picked other cases)
		}
		f := fams[c.Family]
		if f == nil {
			f = &tally{}
			fams[c.Family] = f
		}
		for _, x := range []*tally{f, total} {
			x.n++
			switch class {
			case classCorrect:
				x.correct++
			case classRefusedUsable:
				x.usable++
			case classRefusedBare:
				x.bare++
			case classWrong:
				x.wrong++
			}
		}
	}
	var names []string
	for k := range fams {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "\n| family | cases | correct | refused-usable | refused-bare | wrong |\n|---|---|---|---|---|---|\n")
	for _, k := range names {
		f := fams[k]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d |\n", k, f.n, f.correct, f.usable, f.bare, f.wrong)
	}
	fmt.Fprintf(&b, "| all | %d | %d | %d | %d | %d |\n", total.n, total.correct, total.usable, total.bare, total.wrong)
	t.Log(b.String())
	if total.n == 0 || !strict {
		return
	}
	if ok := float64(total.correct+total.usable) / float64(total.n); ok < 0.95 {
		t.Errorf("correct or usefully refused: %.1f%% of %d cases, want ≥ 95%%", 100*ok, total.n)
	}
}
