package main

// The -robustness mode (issue #16): the corpus of imperfect edit requests in
// testdata/robustness (format and classes: testdata/robustness/README.md),
// side by side on our server and on the reference filesystem server's
// edit_file, through the harness's own client, one fresh server and
// workspace per case.
//
// Ours runs every case as the corpus says (the same judgement as
// mcp.TestRobustness in-process and mcp/e2e TestSDK_Robustness through the
// TypeScript SDK). The reference runs the cases refCase can express, judged
// by the same rules except where it has no way to answer:
//
//   - it has no retry: a refusal where an edit (or a refusal with a next
//     step) was expected is refused-usable only when its message shows, as
//     whole lines, the file's own text of the lines the careful edit
//     changes (for an insertion, its neighbour line) — what an agent
//     needs to send a working call — beyond the text the request itself
//     sent; otherwise refused-bare. (edit_file's message is "Could not find
//     exact match for edit:" and the request's oldText, so in practice
//     every such refusal is refused-bare.)
//   - it has no error codes: an expected refusal is correct whatever it says.
//   - it cannot say "already applied": success leaving the files as they
//     were is correct on such a case; a refusal is refused-bare, as it is for
//     ours (it tells the agent its change failed when it is in the file).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/journalfs/journal/bench/corpus"
	"github.com/journalfs/journal/bench/mcpclient"
	"github.com/journalfs/journal/bench/report"
)

// RobustHeading is the heading of the BENCHMARKS.md section the
// -robustness mode owns.
const RobustHeading = "## Edit robustness (issue #16)"

// The classes of a case's result (testdata/robustness/README.md), plus the
// harness's own: error (the client or server failed: no reply, a crash) and
// n/a (the reference cannot express the case).
const (
	classCorrect = corpus.Correct
	classUsable  = corpus.RefusedUsable
	classBare    = corpus.RefusedBare
	classWrong   = corpus.Wrong
	classError   = "error"
	classNA      = "n/a"
)

// robustClasses are the table's columns, in order.
var robustClasses = []string{classCorrect, classUsable, classBare, classWrong}

// RobustResult is one case's result on one target.
type RobustResult struct {
	Family   string `json:"family"`
	Name     string `json:"name"`
	Class    string `json:"class"`
	Detail   string `json:"detail,omitempty"`
	KnownGap string `json:"known_gap,omitempty"`
	About    string `json:"-"` // the case's about, for the Markdown
}

// RobustReport is one -robustness run, as written by -json.
type RobustReport struct {
	Date     time.Time                 `json:"date"`
	Duration float64                   `json:"duration_s"`
	Commit   string                    `json:"commit"`
	Machine  report.Machine            `json:"machine"`
	Commands []string                  `json:"commands"`
	Corpus   string                    `json:"corpus"`
	Servers  map[string]string         `json:"servers"` // target → command (serverInfo)
	Results  map[string][]RobustResult `json:"results"` // target → one per case, in corpus order
}

// refEditKeys are the edit_content arguments edit_file has an equivalent
// for; a call with any other argument is not expressible.
var refEditKeys = map[string]bool{"absolute_file_path": true, "search_text": true, "replace_text": true, "changes": true, "preview": true}

// refCall maps one edit_content call to the reference's edit_file {path,
// edits: [{oldText, newText}], dryRun}, or a read_content of a whole file to
// read_text_file {path}; why says why a call cannot be expressed.
func refCall(c corpus.Call) (corpus.Call, string) {
	a := c.Args
	if c.Tool == "read_content" {
		if len(a) != 1 || a["absolute_file_path"] == nil {
			return corpus.Call{}, "read_content of part of a file"
		}
		return corpus.Call{Tool: "read_text_file", Args: map[string]any{"path": a["absolute_file_path"]}}, ""
	}
	if c.Tool != "edit_content" {
		return corpus.Call{}, c.Tool + " has no equivalent"
	}
	for k := range a {
		if !refEditKeys[k] {
			return corpus.Call{}, "edit_content with " + k
		}
	}
	path, ok := a["absolute_file_path"].(string)
	if !ok {
		return corpus.Call{}, "no absolute_file_path"
	}
	var changes []any
	if cs, ok := a["changes"].([]any); ok {
		if a["search_text"] != nil || a["replace_text"] != nil {
			return corpus.Call{}, "changes and search_text together"
		}
		changes = cs
	} else {
		changes = []any{map[string]any{"search_text": a["search_text"], "replace_text": a["replace_text"]}}
	}
	var edits []map[string]string
	for _, ch := range changes {
		m, _ := ch.(map[string]any)
		old, ok1 := m["search_text"].(string)
		nw, ok2 := m["replace_text"].(string)
		if !ok1 || !ok2 || len(m) != 2 {
			return corpus.Call{}, "a change other than search_text/replace_text (occurrence, replace_all, allow_repeat, …)"
		}
		edits = append(edits, map[string]string{"oldText": old, "newText": nw})
	}
	dry, _ := a["preview"].(bool)
	return corpus.Call{Tool: "edit_file", Args: map[string]any{"path": path, "edits": edits, "dryRun": dry}}, ""
}

// refCase maps a whole case for the reference: its setup and its call must
// all be expressible, and nothing may change behind the server's back (the
// reference keeps no view of what the agent saw, so a stale request cannot
// be told from a fresh one: those cases test what it does not claim).
func refCase(c corpus.Case) (setup []corpus.Call, call corpus.Call, why string) {
	if call, why = refCall(c.Call); why != "" {
		return nil, corpus.Call{}, why
	}
	for _, s := range c.Setup {
		m, why := refCall(s)
		if why != "" {
			return nil, corpus.Call{}, "setup: " + why
		}
		setup = append(setup, m)
	}
	if len(c.Outside) > 0 {
		return nil, corpus.Call{}, "files changed behind the server's back"
	}
	return setup, call, ""
}

// caller is what a case or a writer needs of a server: a connected MCP
// client (an *mcpclient.Process, or an *mcpclient.Client over HTTP).
type caller interface {
	CallTool(name string, args any) (*mcpclient.CallResult, error)
}

// reply is one tool call's answer: refused is a result with isError or a
// JSON-RPC error (text is then its message); err is a failure of the
// client or the server (no reply, a crash).
type reply struct {
	refused    bool
	text       string
	structured json.RawMessage
	err        error
}

func callOnce(cl caller, tool string, args any) reply {
	res, err := cl.CallTool(tool, args)
	var te *mcpclient.ToolError
	var re *mcpclient.RPCError
	switch {
	case errors.As(err, &te):
		return reply{refused: true, text: res.Text(), structured: res.StructuredContent}
	case errors.As(err, &re):
		return reply{refused: true, text: re.Message}
	case err != nil:
		return reply{err: err}
	}
	return reply{text: res.Text(), structured: res.StructuredContent}
}

// oursError is the JSON object on the last line of our server's error text.
type oursError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Retry   *struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"retry"`
}

func parseOursError(text string) oursError {
	var e oursError
	if i := strings.LastIndex(text, "\n{"); i >= 0 {
		text = text[i+1:]
	}
	_ = json.Unmarshal([]byte(text), &e)
	return e
}

// snapshotFiles returns every regular file under dir (slash paths relative
// to it) with its bytes; .journal directories are not the workspace's.
func snapshotFiles(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".journal" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return out, err
}

// sameFiles reports whether two snapshots are equal.
func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// filesOff names the files of got that are not as meant: those of want with
// other bytes, and any other file changed, made or removed since before.
func filesOff(want, before, got map[string]string) []string {
	var off []string
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			off = append(off, k)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok && before[k] != v {
			off = append(off, k+" (not meant to change)")
		}
	}
	for k := range before {
		if _, ok := got[k]; !ok {
			if _, ok := want[k]; !ok {
				off = append(off, k+" (removed)")
			}
		}
	}
	sort.Strings(off)
	return off
}

// judgeCase runs case c on a server serving root (its files already
// written) and classifies the result; reference selects the reference's
// mapping and rules. A success that leaves a file which parsed before
// unparsable is WRONG (corpus.Unparsed), unless the case says its expected
// file does not parse.
func judgeCase(cl caller, c corpus.Case, root string, reference bool) (class, detail string) {
	var before map[string]string
	class, detail = judgeCall(cl, c, root, reference, &before)
	if (class != classCorrect && class != classUsable) || before == nil || c.UnparsableOK != "" {
		return class, detail
	}
	after, err := snapshotFiles(root)
	if err != nil {
		return classError, err.Error()
	}
	if u := corpus.Unparsed(before, after); u != "" {
		return classWrong, "reported success and left unparsable what parsed before: " + u
	}
	return class, detail
}

// judgeCall is judgeCase but for the parse check; *seen gets the files
// before the call.
func judgeCall(cl caller, c corpus.Case, root string, reference bool, seen *map[string]string) (class, detail string) {
	setup, call := c.Setup, c.Call
	if reference {
		var why string
		if setup, call, why = refCase(c); why != "" {
			return classNA, why
		}
	}
	for i, s := range setup {
		r := callOnce(cl, s.Tool, corpus.Rooted(s.Args, root))
		if r.err != nil {
			return classError, fmt.Sprintf("setup %d (%s): %v", i+1, s.Tool, r.err)
		}
		if r.refused {
			// the corpus says setup calls succeed: on ours a refusal is
			// the case's or the server's fault, on the reference an answer
			class := classError
			if reference {
				class = classBare
			}
			return class, fmt.Sprintf("setup %d (%s) was refused: %s", i+1, s.Tool, oneLineClip(r.text))
		}
	}
	for p, s := range c.Outside {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(p)), []byte(s), 0o644); err != nil {
			return classError, err.Error()
		}
	}
	before, err := snapshotFiles(root)
	if err != nil {
		return classError, err.Error()
	}
	*seen = before
	r := callOnce(cl, call.Tool, corpus.Rooted(call.Args, root))
	if r.err != nil {
		return classError, r.err.Error()
	}
	after, err := snapshotFiles(root)
	if err != nil {
		return classError, err.Error()
	}
	want := c.Expect.Files
	if c.Expect.Outcome == "already_applied" {
		want = before
	}
	if !r.refused {
		switch c.Expect.Outcome {
		case "refused":
			if !sameFiles(before, after) {
				return classWrong, "reported success and changed " + strings.Join(filesOff(before, before, after), ", ") + " where a refusal was expected"
			}
			return classBare, "succeeded without changing anything where a refusal was expected"
		case "already_applied":
			if !sameFiles(before, after) {
				return classWrong, "reported success and changed " + strings.Join(filesOff(before, before, after), ", ") + " where the change was in the file already"
			}
			if reference {
				return classCorrect, "success, files unchanged (it cannot say already_applied)"
			}
			var out struct {
				AlreadyApplied bool `json:"already_applied"`
			}
			if json.Unmarshal(r.structured, &out) != nil || !out.AlreadyApplied {
				return classBare, "left the files as they were but did not say already_applied"
			}
			return classCorrect, ""
		}
		if off := filesOff(want, before, after); len(off) > 0 {
			return classWrong, "reported success with other bytes than meant in " + strings.Join(off, ", ")
		}
		return classCorrect, ""
	}
	if !sameFiles(before, after) {
		return classWrong, "refused but changed " + strings.Join(filesOff(before, before, after), ", ")
	}
	if reference {
		switch {
		case c.Expect.Outcome == "refused" && !c.Expect.Retry:
			return classCorrect, ""
		case c.Expect.Outcome != "already_applied" && quotesWorkingText(r.text, c, before):
			return classUsable, oneLineClip(r.text)
		}
		return classBare, oneLineClip(r.text)
	}
	te := parseOursError(r.text)
	if c.Expect.Outcome != "refused" {
		if te.Retry != nil {
			return retryOurs(cl, root, te, want, before)
		}
		return classBare, fmt.Sprintf("refused (%s: %s) where %s was expected", te.Code, te.Message, c.Expect.Outcome)
	}
	if c.Expect.Code != "" && te.Code != c.Expect.Code {
		return classBare, fmt.Sprintf("refused with %s, want %s: %s", te.Code, c.Expect.Code, te.Message)
	}
	if !c.Expect.Retry {
		return classCorrect, ""
	}
	if te.Retry == nil {
		return classBare, "refused without a retry: " + te.Message
	}
	class, detail = retryOurs(cl, root, te, want, before)
	if class == classUsable {
		class = classCorrect
	}
	return class, detail
}

// retryOurs sends our error's retry as it is and checks the files it leaves.
func retryOurs(cl caller, root string, te oursError, want, before map[string]string) (string, string) {
	r := callOnce(cl, te.Retry.Tool, te.Retry.Arguments)
	if r.err != nil {
		return classError, "the retry: " + r.err.Error()
	}
	after, err := snapshotFiles(root)
	if err != nil {
		return classError, err.Error()
	}
	if r.refused {
		if !sameFiles(before, after) {
			return classWrong, "the retry was refused and changed " + strings.Join(filesOff(before, before, after), ", ")
		}
		return classBare, "the retry was refused too: " + oneLineClip(r.text)
	}
	if off := filesOff(want, before, after); len(off) > 0 {
		return classWrong, "the retry wrote other bytes than meant in " + strings.Join(off, ", ")
	}
	return classUsable, ""
}

// quotesWorkingText reports whether a refusal's text shows, as whole lines,
// for every file the careful edit changes, the file's own lines it changes (for an
// insertion, the line it goes after, or before at the top), with the text
// the request itself sent taken out first: something the agent did not know
// and needs for a call that works.
func quotesWorkingText(msg string, c corpus.Case, before map[string]string) bool {
	lf := func(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
	msg = lf(msg)
	for _, s := range sentTexts(c.Call) {
		if s = lf(s); strings.TrimSpace(s) != "" {
			msg = strings.ReplaceAll(msg, s, "")
		}
	}
	n := 0
	for p, after := range c.Expect.Files {
		old, ok := before[p]
		if !ok || old == after {
			continue
		}
		span := strings.TrimRight(lf(changedLines(old, after)), "\n")
		if strings.TrimSpace(span) == "" || !strings.Contains("\n"+msg+"\n", "\n"+span+"\n") {
			return false
		}
		n++
	}
	return n > 0
}

// sentTexts returns every search and replace text of an edit_content call.
func sentTexts(c corpus.Call) []string {
	var out []string
	add := func(m map[string]any) {
		for _, k := range []string{"search_text", "replace_text"} {
			if s, ok := m[k].(string); ok {
				out = append(out, s)
			}
		}
	}
	add(c.Args)
	if cs, ok := c.Args["changes"].([]any); ok {
		for _, ch := range cs {
			if m, ok := ch.(map[string]any); ok {
				add(m)
			}
		}
	}
	return out
}

// changedLines returns the lines of old that differ from new once the
// lines both share at the start and the end are set aside; for a pure
// insertion, the line before it (or after it, at the top).
func changedLines(old, new string) string {
	a, b := strings.SplitAfter(old, "\n"), strings.SplitAfter(new, "\n")
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	j := 0
	for j < len(a)-i && j < len(b)-i && a[len(a)-1-j] == b[len(b)-1-j] {
		j++
	}
	span := a[i : len(a)-j]
	if strings.Join(span, "") == "" {
		switch {
		case i > 0:
			span = a[i-1 : i]
		case i < len(a):
			span = a[i : i+1]
		}
	}
	return strings.Join(span, "")
}

func oneLineClip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// robustness is the -robustness mode: every case on every target, then the
// report. It returns the exit status.
func (b *bench) robustness(corpusDir string, parallel int, jsonOut, mdOut string, args []string) int {
	cases, err := corpus.Load(corpusDir)
	if err != nil {
		b.logf("%v", err)
		return 2
	}
	start := time.Now()
	rep := &RobustReport{Date: start.UTC(), Commit: commitOf(), Machine: machine(b.workdir), Corpus: filepath.ToSlash(corpusDir),
		Servers: map[string]string{}, Results: map[string][]RobustResult{}}
	rep.Commands = []string{"bash bench/setup.sh", "go run ./bench/cmd/mcpbench " + strings.Join(args, " ")}
	for _, t := range b.targets {
		t0 := time.Now()
		rs, info := b.runRobust(t, cases, max(parallel, 1))
		rep.Results[t] = rs
		cmd := strings.Join(b.sv.argv(t, "{WORKSPACE}"), " ")
		if t == report.Ours {
			cmd = "journal " + strings.Join(b.sv.argv(t, "{WORKSPACE}")[1:], " ")
		} else if b.sv.refArgv == nil {
			cmd = "node .../@modelcontextprotocol/server-filesystem/dist/index.js {WORKSPACE}"
		}
		rep.Servers[t] = fmt.Sprintf("`%s` (%s)", cmd, info)
		b.logf("robustness %-9s %d cases in %.1f s: %s", t, len(rs), time.Since(t0).Seconds(), tallyLine(rs))
	}
	rep.Duration = time.Since(start).Seconds()
	if err := saveReport(rep, jsonOut, mdOut, RobustHeading, rep.Markdown()); err != nil {
		b.logf("%v", err)
		return 2
	}
	status := 0
	for _, r := range rep.Results[report.Ours] {
		switch {
		case r.Class == classWrong || r.Class == classError:
			b.logf("ours %s %s/%s: %s", r.Class, r.Family, r.Name, r.Detail)
			status = 1
		case r.Class == classBare && r.KnownGap == "":
			b.logf("ours missed its expectation on %s/%s: %s", r.Family, r.Name, r.Detail)
		}
	}
	return status
}

// runRobust runs every case on target, parallel at a time, each with a
// fresh server on a fresh workspace; it returns the results in case order
// and the server's serverInfo.
func (b *bench) runRobust(target string, cases []corpus.Case, parallel int) ([]RobustResult, string) {
	out := make([]RobustResult, len(cases))
	var mu sync.Mutex
	info := ""
	next := 0
	var wg sync.WaitGroup
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(cases) {
					return
				}
				c := cases[i]
				class, detail, si := b.robustCase(target, c, i)
				out[i] = RobustResult{Family: c.Family, Name: c.Name, Class: class, Detail: detail, KnownGap: c.KnownGap, About: c.About}
				if si != "" {
					mu.Lock()
					info = si
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return out, info
}

// robustCase runs case c (the i-th) on target in a fresh workspace.
func (b *bench) robustCase(target string, c corpus.Case, i int) (class, detail, info string) {
	if target == report.Ref {
		if _, _, why := refCase(c); why != "" {
			return classNA, why, ""
		}
	}
	root := filepath.Join(b.workdir, "robust-"+strings.ReplaceAll(target, "+", "-"), fmt.Sprintf("%03d-%s", i, c.Name))
	if !b.keep {
		defer os.RemoveAll(root)
	}
	for p, s := range c.Files {
		f := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return classError, err.Error(), ""
		}
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			return classError, err.Error(), ""
		}
	}
	s, err := b.sv.start(target, root)
	if err != nil {
		return classError, "start: " + err.Error(), ""
	}
	defer s.close()
	class, detail = judgeCase(s.p, c, root, target != report.Ours)
	if s.hang != "" || s.p.Exited() {
		detail += "; server stderr: " + lastLines(s.p.Stderr(), 5)
	}
	return class, detail, s.info
}

// tallyLine is a one-line count of results by class.
func tallyLine(rs []RobustResult) string {
	n := map[string]int{}
	for _, r := range rs {
		n[r.Class]++
	}
	var parts []string
	for _, c := range append(slices.Clone(robustClasses), classError, classNA) {
		if n[c] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[c], c))
		}
	}
	return strings.Join(parts, ", ")
}

// commitOf names the commit the run was made at, and whether the work tree
// had changes to tracked files (Markdown and bench/results, which the run
// writes, aside).
func commitOf() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!*.md", ":!bench/results").Output()
	if err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += " with uncommitted changes"
	}
	return c
}

// Markdown renders the report as the "Edit robustness (issue #16)" section
// of BENCHMARKS.md, heading included.
func (r *RobustReport) Markdown() string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	ours, ref := r.Results[report.Ours], r.Results[report.Ref]
	expressible := map[string]bool{}
	for _, x := range ref {
		if x.Class != classNA {
			expressible[x.Family+"/"+x.Name] = true
		}
	}
	all := ours
	if all == nil {
		all = ref
	}
	var fams []string
	for _, x := range all {
		if !slices.Contains(fams, x.Family) {
			fams = append(fams, x.Family)
		}
	}
	sort.Strings(fams)
	p("%s\n\n", RobustHeading)
	p("<!-- Generated by bench/cmd/mcpbench -robustness; do not edit by hand. -->\n\n")
	p("The corpus of imperfect edit requests in `%s` (%d cases in %d families, each with what a careful person would have made of it: see its README) through the harness's own stdio JSON-RPC client, one fresh server on a fresh workspace per case: ours as the corpus says (each tool's defaults but `preview: false`; language servers off, `--lsp=false`, as in the tests), and the reference filesystem server's `edit_file` on the %d cases it can express. Ours is being improved while the corpus grows: the figures are as of the commit below.\n\n",
		r.Corpus, len(all), len(fams), len(expressible))
	m := r.Machine
	p("- **Date:** %s (%.0f s)\n", r.Date.UTC().Format("2006-01-02 15:04 UTC"), r.Duration)
	p("- **Commit:** %s\n", r.Commit)
	p("- **Machine:** %s, %d cores, %d GiB RAM, Linux %s, work dir on %s; %s, node %s\n", m.CPU, m.Cores, m.MemoryGiB, m.Kernel, m.Disk, m.Go, m.Node)
	for _, t := range []string{report.Ours, report.Ref} {
		if s, ok := r.Servers[t]; ok {
			p("- **%s:** %s\n", t, s)
		}
	}
	p("- **Reproduce** (from the repository root):\n\n```sh\n%s\n```\n\n", strings.Join(r.Commands, "\n"))

	type tally map[string]int
	count := func(rs []RobustResult, fam string, keep func(RobustResult) bool) (tally, int) {
		t, n := tally{}, 0
		for _, x := range rs {
			if (fam == "" || x.Family == fam) && keep(x) {
				t[x.Class]++
				n++
			}
		}
		return t, n
	}
	cell := func(t tally, n int, ran bool) string {
		if !ran {
			return "not run"
		}
		if n == 0 {
			return "–"
		}
		var xs []string
		for _, c := range robustClasses {
			xs = append(xs, fmt.Sprint(t[c]))
		}
		s := strings.Join(xs, " / ")
		if t[classError] > 0 {
			s += fmt.Sprintf(" (+%d errors)", t[classError])
		}
		return s
	}
	every := func(RobustResult) bool { return true }
	isExpr := func(x RobustResult) bool { return expressible[x.Family+"/"+x.Name] }
	ranRef := func(x RobustResult) bool { return x.Class != classNA }
	p("| family | cases | ours (all cases) | ours (cases `edit_file` can express) | reference `edit_file` |\n")
	p("|---|--:|---|---|---|\n")
	for _, f := range append(fams, "") {
		name := f
		if f == "" {
			name = "**all**"
		}
		_, n := count(all, f, every)
		ot, on := count(ours, f, every)
		et, en := count(ours, f, isExpr)
		rt, rn := count(ref, f, ranRef)
		p("| %s | %d | %s | %s | %s |\n", name, n, cell(ot, on, ours != nil), cell(et, en, ours != nil && ref != nil), cell(rt, rn, ref != nil))
	}
	p("\ncells: correct / refused-usable / refused-bare / wrong\n\n")
	p("How a case is judged (the same rules as `go test ./mcp -run TestRobustness`, in process, and `go test ./mcp/e2e -run TestSDK_Robustness`, through the official TypeScript SDK client): **correct** is the expected outcome — success with every file byte-equal to what was meant (and no other file changed); for a change already in the file, success that says `already_applied` and changes nothing; for an expected refusal, a refusal with the expected code and, where a next step is expected, a `retry` that, sent as it is, writes the meant bytes. **Refused-usable**: refused where an edit was expected, with such a retry. **Refused-bare**: any other refusal, or a success that changes nothing where a refusal was expected. **Wrong**: success with other bytes than meant, files changed by a refusal, or a retry that writes other bytes.\n\n")
	p("What the reference can express: `edit_content` calls whose only arguments are `absolute_file_path`, `search_text`/`replace_text` or `changes` of `{search_text, replace_text}`, and `preview`, sent as `edit_file {path, edits: [{oldText, newText}], dryRun}`; setup steps likewise (a whole-file `read_content` as `read_text_file`); no case with files changed behind the server's back (the reference keeps no view of what the agent saw). Not `occurrence`, `replace_all`, `allow_repeat`, nor the line-number and symbol tools (– in the table).\n\n")
	p("How the reference is judged where it has no way to answer as ours does: it has no retry, so a refusal where an edit (or a refusal with a next step) was expected counts as refused-usable only if its message shows, as whole lines, the file's own text of the lines the meant edit changes (for an insertion, its neighbour line), beyond the text the request sent — what an agent needs to build a call that works; its message is `Could not find exact match for edit:` and the request's own `oldText`, so none does. It has no error codes: any refusal where one was expected is correct. It cannot say \"already applied\": success that leaves the files as they were is correct there, and a refusal is refused-bare, as for ours (it tells the agent its change failed when it is in the file).\n\n")
	why := map[string]int{}
	var whys []string
	for _, x := range ref {
		if x.Class == classNA {
			if why[x.Detail] == 0 {
				whys = append(whys, x.Detail)
			}
			why[x.Detail]++
		}
	}
	if len(whys) > 0 {
		sort.Slice(whys, func(i, j int) bool {
			return why[whys[i]] > why[whys[j]] || why[whys[i]] == why[whys[j]] && whys[i] < whys[j]
		})
		var parts []string
		for _, w := range whys {
			parts = append(parts, fmt.Sprintf("%s (%d)", w, why[w]))
		}
		p("Not expressible here: %s.\n\n", strings.Join(parts, "; "))
	}
	p("What `edit_file` does (version pinned in `bench/setup.sh`): CRLF is turned into LF in the file and the request; each edit in turn replaces the first exact occurrence of `oldText`, else the first run of lines equal to it once each line is trimmed, re-indented from that run's first line; a miss fails the whole call. Hence its wrong edits: a change sent again whose `newText` contains its `oldText` (an insertion, \"thre\" → \"three\") is written twice; a CRLF file comes back with LF on every line; a block matched only once trimmed is written as the request has it, with the first line's indentation and, for the rest, spaces counted from the request's own indentation (tabs become spaces, depths shift, trailing spaces the request lost stay lost); a batch's later edit can match text an earlier one wrote. Its refusals never say what to send instead.\n")
	list := func(title string, rs []RobustResult, keep func(RobustResult) bool) {
		var items []string
		for _, x := range rs {
			if keep(x) {
				d := x.About
				if d == "" {
					d = x.Detail
				}
				if x.Class != classWrong {
					d = x.Class + ": " + x.Detail
				}
				items = append(items, fmt.Sprintf("- `%s/%s` — %s", x.Family, x.Name, strings.ReplaceAll(oneLineClip(d), "|", "\\|")))
			}
		}
		if len(items) == 0 {
			return
		}
		p("\n<details><summary>%s (%d)</summary>\n\n%s\n\n</details>\n", title, len(items), strings.Join(items, "\n"))
	}
	list("The reference's wrong edits", ref, func(x RobustResult) bool { return x.Class == classWrong })
	list("Ours, cases not correct", ours, func(x RobustResult) bool { return x.Class != classCorrect })
	return b.String()
}
