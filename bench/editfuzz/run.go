package editfuzz

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/journalfs/journal/bench/corpus"
)

// Reply is a tool call's answer as the client got it.
type Reply struct {
	IsError    bool
	Structured json.RawMessage
	Text       string
}

// Caller sends one tool call through an MCP client connected to a server
// serving Root; err is a failure of the client or the server (no reply, a
// protocol error), not a refusal.
type Caller interface {
	Call(tool string, args map[string]any) (Reply, error)
}

// Outcomes of a trial.
const (
	Intended = "intended" // success, the file as the agent meant
	Literal  = "literal"  // success, the request's literal result (allowed by its mutation)
	Refused  = "refused"  // refused, the file byte-identical, no event written
	Wrong    = "WRONG"
)

// Verdict is the oracle's judgement of one trial.
type Verdict struct {
	Outcome string
	// Class names a wrong outcome: mutation | tool | what went wrong (one of
	// the whys below). Empty unless Outcome is Wrong.
	Class  string
	Detail string
	// Got is the file the call left, when it differs from the one it had.
	Got string
}

// What can go wrong, the last part of a class.
const (
	whySuccessOther      = "success with other bytes than meant"
	whySuccessNoChange   = "success claimed, change not made"
	whyAlreadyNotThere   = "already_applied, but the file lacked the change"
	whyAlreadyWrote      = "already_applied, but the call wrote"
	whyRefusedChanged    = "refused, but the file changed"
	whyRefusedEvent      = "refused, but a journal event was written"
	whyEvents            = "applied with other than one journal event"
	whySuccessMustRefuse = "success where someone else's change to the lines had to be refused"
	whyRetryApplied      = "retry applied again"
	whyRetryNotAlready   = "retry answered success without already_applied"
	whyError             = "client or server error"
)

// Runner runs trials in a workspace through one client session.
type Runner struct {
	C    Caller
	Root string // the served workspace's directory
	n    int    // trials' files made so far
	seq  uint64 // the newest journal event seen
	init bool
}

// NewRunner returns a runner for the server c talks to, serving root.
func NewRunner(c Caller, root string) *Runner {
	return &Runner{C: c, Root: root}
}

// file names a new file for trial t, with the extension of the pair's:
// each trial edits a file of its own (written behind the server's back,
// as an editor or a checkout would, then read by the session), so no
// version of an earlier trial's file can stand in for it.
func (r *Runner) file(t Trial) string {
	r.n++
	return filepath.Join(r.Root, "fz", fmt.Sprintf("f%d%s", r.n, filepath.Ext(t.Path)))
}

// written returns how many events were written since the last look
// (the newest then) that are not observe events — a change made behind
// the server's back, which a call records before it writes, is not the
// call's.
func (r *Runner) written() (int, error) {
	rep, err := r.C.Call("journal_log", map[string]any{"limit": 20})
	if err != nil {
		return 0, err
	}
	if rep.IsError {
		return 0, fmt.Errorf("journal_log refused: %s", rep.Text)
	}
	var out struct {
		Events []struct {
			Seq  uint64 `json:"event"`
			Kind string `json:"kind"`
		} `json:"events"`
	}
	if err := json.Unmarshal(rep.Structured, &out); err != nil {
		return 0, fmt.Errorf("journal_log: %w", err)
	}
	n, newest := 0, r.seq
	for _, e := range out.Events {
		newest = max(newest, e.Seq)
		if e.Seq > r.seq && e.Kind != "observe" {
			n++
		}
	}
	r.seq = newest
	return n, nil
}

// prepare writes content to path and has the session read it, so its line
// numbers count from it.
func (r *Runner) prepare(path, content string) error {
	if !r.init {
		if _, err := r.written(); err != nil {
			return err
		}
		r.init = true
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return err
	}
	rep, err := r.C.Call("read_content", map[string]any{"absolute_file_path": path, "target": 1, "max_lines": 1000})
	if err != nil {
		return err
	}
	if rep.IsError {
		return fmt.Errorf("read of %s refused: %s", path, clip(rep.Text))
	}
	return nil
}

// claim reads what a success says it did: already_applied, or applied.
func claim(rep Reply) (already bool) {
	var out struct {
		Already bool   `json:"already_applied"`
		Status  string `json:"status"`
	}
	_ = json.Unmarshal(rep.Structured, &out)
	return out.Already || out.Status == "already_applied"
}

// Run sends t and judges it; err is a failure of the harness itself (a
// reset or read that failed), never of the call under test.
func (r *Runner) Run(t Trial) (Verdict, error) {
	path := r.file(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return Verdict{}, err
	}
	if err := r.prepare(path, t.Before); err != nil {
		return Verdict{}, err
	}
	start := t.Before
	if t.Outside != "" {
		if err := os.WriteFile(path, []byte(t.Outside), 0o644); err != nil {
			return Verdict{}, err
		}
		start = t.Outside
	}
	defer os.Remove(path)
	v, after := r.once(t, path, start, false)
	if v.Outcome == Wrong || !t.Repeat {
		return v, nil
	}
	v2, _ := r.once(t, path, after, true)
	if v2.Outcome == Wrong {
		return v2, nil
	}
	return v, nil
}

// once sends t's call on a file holding start and judges it; after is the
// file it leaves. retry: this is the second sending.
func (r *Runner) once(t Trial, path, start string, retry bool) (Verdict, string) {
	wrong := func(why, detail string) Verdict {
		v := Verdict{Outcome: Wrong, Class: t.Mutation + " | " + t.Tool() + " | " + why, Detail: detail}
		if b, err := os.ReadFile(path); err == nil && string(b) != start {
			v.Got = string(b)
		}
		return v
	}
	rep, err := r.C.Call(t.Call.Tool, corpus.Substitute(t.Call.Args, "$FILE", path).(map[string]any))
	if err != nil {
		return wrong(whyError, err.Error()), start
	}
	b, _ := os.ReadFile(path)
	after := string(b)
	written, err := r.written()
	if err != nil {
		return wrong(whyError, "journal_log after: "+err.Error()), after
	}
	ok := func(s string) bool { return !t.MustRefuse && (s == t.Intended || slices.Contains(t.Literal, s)) }
	outcome := func(s string) string {
		if s == t.Intended {
			return Intended
		}
		return Literal
	}
	if rep.IsError {
		switch {
		case after != start:
			return wrong(whyRefusedChanged, clip(rep.Text)), after
		case written > 0:
			return wrong(whyRefusedEvent, fmt.Sprintf("%d event(s): %s", written, clip(rep.Text))), after
		}
		return Verdict{Outcome: Refused, Detail: clip(rep.Text)}, after
	}
	already := claim(rep)
	switch {
	case retry && after != start:
		return wrong(whyRetryApplied, clip(rep.Text)), after
	case retry && !already:
		return wrong(whyRetryNotAlready, clip(rep.Text)), after
	case t.MustRefuse && after != start:
		return wrong(whySuccessMustRefuse, clip(rep.Text)), after
	case already && after != start:
		return wrong(whyAlreadyWrote, clip(rep.Text)), after
	case already && !ok(start):
		return wrong(whyAlreadyNotThere, clip(rep.Text)), after
	case already && written > 0:
		return wrong(whyAlreadyWrote, fmt.Sprintf("%d event(s)", written)), after
	case already:
		return Verdict{Outcome: outcome(start)}, after
	case after == start && (!ok(start) || written > 0):
		return wrong(whySuccessNoChange, clip(rep.Text)), after
	case after == start: // the file was as asked already (a literal no-op)
		return Verdict{Outcome: outcome(start)}, after
	case !ok(after):
		return wrong(whySuccessOther, clip(rep.Text)), after
	case written != 1:
		return wrong(whyEvents, fmt.Sprintf("%d event(s)", written)), after
	}
	return Verdict{Outcome: outcome(after)}, after
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s
}

// Tally counts outcomes per mutation and per tool.
type Tally struct {
	ByMutation map[string]map[string]int
	ByTool     map[string]map[string]int
	Total      map[string]int
	Classes    map[string]*Found // wrong outcomes by class
	Trials     int
	Elapsed    time.Duration
}

// NewTally returns an empty tally, for Merge.
func NewTally() *Tally { return newTally() }

// Found is one class of wrong outcomes: how often, and its first trial
// (minimized when Fuzz minimizes).
type Found struct {
	Class  string
	Count  int
	Trial  Trial
	Detail string
	Got    string
}

func newTally() *Tally {
	return &Tally{ByMutation: map[string]map[string]int{}, ByTool: map[string]map[string]int{}, Total: map[string]int{}, Classes: map[string]*Found{}}
}

func (t *Tally) add(tr Trial, v Verdict) {
	if t.ByMutation[tr.Mutation] == nil {
		t.ByMutation[tr.Mutation] = map[string]int{}
	}
	if t.ByTool[tr.Tool()] == nil {
		t.ByTool[tr.Tool()] = map[string]int{}
	}
	t.ByMutation[tr.Mutation][v.Outcome]++
	t.ByTool[tr.Tool()][v.Outcome]++
	t.Total[v.Outcome]++
	t.Trials++
	if v.Outcome == Wrong {
		f := t.Classes[v.Class]
		if f == nil {
			f = &Found{Class: v.Class, Trial: tr, Detail: v.Detail, Got: v.Got}
			t.Classes[v.Class] = f
		}
		f.Count++
	}
}

// Options of a fuzzing run.
type Options struct {
	Trials   int    // how many trials (each one or two calls of the tool under test)
	Seed     uint64 // the run's seed: the same seed and pairs give the same trials
	Minimize bool   // shrink the first trial of every wrong class not in KnownFailures
	// Progress, if set, is called every 1,000 trials.
	Progress func(t *Tally)
	// Only, if set, names the mutations to draw from (all by default).
	Only []string
	// Wrong, if set, gets every wrong trial (minimized, known classes too)
	// with its verdict: the material to study a class by (JOURNAL_FUZZ_DUMP).
	Wrong func(t Trial, v Verdict)
}

// Fuzz runs opts.Trials trials drawn from pairs: a pair, a form and a
// mutation at random (mutations uniformly, so each class is well covered),
// skipping combinations that do not apply.
func Fuzz(r *Runner, pairs []Pair, opts Options) (*Tally, error) {
	rng := rand.New(rand.NewPCG(opts.Seed, 0x6564697466757a7a))
	tally := newTally()
	start := time.Now()
	ms := Mutations
	if len(opts.Only) > 0 {
		ms = nil
		for _, m := range Mutations {
			if slices.Contains(opts.Only, m.Name) {
				ms = append(ms, m)
			}
		}
		if len(ms) == 0 {
			return tally, fmt.Errorf("editfuzz: no mutation named %q", opts.Only)
		}
	}
	for tally.Trials < opts.Trials {
		p := pairs[rng.IntN(len(pairs))]
		form := Forms[rng.IntN(len(Forms))]
		m := ms[rng.IntN(len(ms))]
		t, ok := Generate(p, form, m, rand.New(rand.NewPCG(rng.Uint64(), 1)))
		if !ok {
			continue
		}
		v, err := r.Run(t)
		if err != nil {
			return tally, fmt.Errorf("trial %d (%s, %s, %s %s): %w", tally.Trials, form, m.Name, p.Source, p.Path, err)
		}
		if _, known := KnownFailures[v.Class]; v.Outcome == Wrong && opts.Wrong != nil {
			t, v = Minimize(r, t, v)
			opts.Wrong(t, v)
		} else if v.Outcome == Wrong && tally.Classes[v.Class] == nil && opts.Minimize && !known {
			t, v = Minimize(r, t, v)
		}
		tally.add(t, v)
		if opts.Progress != nil && tally.Trials%1000 == 0 {
			tally.Elapsed = time.Since(start)
			opts.Progress(tally)
		}
	}
	tally.Elapsed = time.Since(start)
	return tally, nil
}

// Minimize shrinks a wrong trial (v its verdict) and its file while it fails with the same
// class: the pair is cut to fewer unchanged lines around the edit and the
// trial made again from it with the same form, mutation and choices.
func Minimize(r *Runner, t Trial, v Verdict) (Trial, Verdict) {
	m, ok := MutationByName(t.Mutation)
	if !ok {
		return t, v
	}
	fails := func(p Pair, seed uint64) (Trial, Verdict, bool) {
		nt, ok := Generate(p, t.Form, m, rand.New(rand.NewPCG(seed, 1)))
		if !ok {
			return nt, Verdict{}, false
		}
		nv, err := r.Run(nt)
		return nt, nv, err == nil && nv.Outcome == Wrong && nv.Class == v.Class
	}
	// the pair as the trial has it: before and intended, with no outside
	// change or CRLF (those the mutation makes again)
	p := Pair{Source: t.Source, Path: t.Path, Before: t.Before, After: t.Intended}
	if t.Outside != "" || t.MustRefuse || strings.Contains(t.Before, "\r\n") {
		return t, v // made from choices not kept; left as it is
	}
	best, bestV := t, v
	var seeds []uint64
	for s := range uint64(8) {
		seeds = append(seeds, s)
	}
	for changed := true; changed; {
		changed = false
		B, A := lines(p.Before), lines(p.After)
		for cut := max(len(B)/2, 1); cut >= 1 && !changed; cut /= 2 {
			for _, side := range []string{"top", "bottom"} {
				var nb, na []string
				switch side {
				case "top":
					if !equalPrefix(B, A, cut) {
						continue
					}
					nb, na = B[cut:], A[cut:]
				default:
					if !equalSuffix(B, A, cut) {
						continue
					}
					nb, na = B[:len(B)-cut], A[:len(A)-cut]
				}
				q := Pair{Source: p.Source, Path: p.Path, Before: strings.Join(nb, ""), After: strings.Join(na, "")}
				if q.Before == q.After || len(nb) == 0 {
					continue
				}
				for _, s := range seeds {
					if nt, nv, bad := fails(q, s); bad {
						p, best, bestV, changed = q, nt, nv, true
						break
					}
				}
				if changed {
					break
				}
			}
		}
	}
	return best, bestV
}

func equalPrefix(a, b []string, n int) bool {
	if n > len(a) || n > len(b) {
		return false
	}
	return slices.Equal(a[:n], b[:n])
}

func equalSuffix(a, b []string, n int) bool {
	if n > len(a) || n > len(b) {
		return false
	}
	return slices.Equal(a[len(a)-n:], b[len(b)-n:])
}

// Table renders the tally per mutation (and per tool) as Markdown.
func (t *Tally) Table() string {
	var b strings.Builder
	row := func(name string, c map[string]int) {
		n := c[Intended] + c[Literal] + c[Refused] + c[Wrong]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d |\n", name, n, c[Intended], c[Literal], c[Refused], c[Wrong])
	}
	b.WriteString("| mutation | trials | intended | literal | refused | wrong |\n|---|--:|--:|--:|--:|--:|\n")
	for _, m := range Mutations {
		if c := t.ByMutation[m.Name]; c != nil {
			row("`"+m.Name+"`", c)
		}
	}
	row("**all**", t.Total)
	b.WriteString("\n| tool | trials | intended | literal | refused | wrong |\n|---|--:|--:|--:|--:|--:|\n")
	var tools []string
	for k := range t.ByTool {
		tools = append(tools, k)
	}
	sort.Strings(tools)
	for _, k := range tools {
		row("`"+k+"`", t.ByTool[k])
	}
	return b.String()
}

// ClassList returns the wrong classes found, most frequent first.
func (t *Tally) ClassList() []*Found {
	var out []*Found
	for _, f := range t.Classes {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Count > out[j].Count || out[i].Count == out[j].Count && out[i].Class < out[j].Class
	})
	return out
}

// Slug is a file name for a class.
func Slug(class string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(class) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// Regression is a saved wrong trial: its class and the trial itself.
type Regression struct {
	Class  string `json:"class"`
	Detail string `json:"detail,omitempty"`
	// Got is the file the call left when it found the class.
	Got   string `json:"got,omitempty"`
	Trial Trial  `json:"trial"`
}

// SaveRegression writes f as dir/<slug>.json unless that file exists.
func SaveRegression(dir string, f *Found) (string, error) {
	p := filepath.Join(dir, Slug(f.Class)+".json")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	data, err := json.MarshalIndent(Regression{Class: f.Class, Detail: f.Detail, Got: f.Got, Trial: f.Trial}, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return p, os.WriteFile(p, append(data, '\n'), 0o644)
}

// SaveWrong writes one wrong trial as dir/<slug>-<n>.json, n counting
// the class's trials written so far in dir (for a run's JOURNAL_FUZZ_DUMP).
func SaveWrong(dir string, t Trial, v Verdict) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(Regression{Class: v.Class, Detail: v.Detail, Got: v.Got, Trial: t}, "", "  ")
	if err != nil {
		return err
	}
	for n := 1; ; n++ {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("%s-%d.json", Slug(v.Class), n)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		_, err = f.Write(append(data, '\n'))
		return errors.Join(err, f.Close())
	}
}

// LoadRegressions reads every saved regression of dir.
func LoadRegressions(dir string) ([]Regression, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []Regression
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var reg Regression
		if err := json.Unmarshal(data, &reg); err != nil {
			return nil, fmt.Errorf("editfuzz: %s: %w", p, err)
		}
		out = append(out, reg)
	}
	return out, nil
}

// Merge adds o's counts to t (a run split among workspaces); a class's
// first trial stays t's when both found it.
func (t *Tally) Merge(o *Tally) {
	for _, pair := range []struct{ dst, src map[string]map[string]int }{{t.ByMutation, o.ByMutation}, {t.ByTool, o.ByTool}} {
		for k, c := range pair.src {
			if pair.dst[k] == nil {
				pair.dst[k] = map[string]int{}
			}
			for o, n := range c {
				pair.dst[k][o] += n
			}
		}
	}
	for k, n := range o.Total {
		t.Total[k] += n
	}
	for k, f := range o.Classes {
		if g := t.Classes[k]; g != nil {
			g.Count += f.Count
		} else {
			t.Classes[k] = f
		}
	}
	t.Trials += o.Trials
}
