package gitai

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Stats is what a range of commits' notes say, per commit and in total.
type Stats struct {
	// Range is the revisions given (HEAD when none); Tip is the commit
	// whose blame decides which agent lines survived.
	Range   []string      `json:"range"`
	Tip     string        `json:"tip"`
	Commits []CommitStats `json:"commits"`
	Total   StatsTotal    `json:"total"`
	// Unreadable names commits whose note is not a Git AI log (counted as
	// without a note) and why.
	Unreadable map[string]string `json:"unreadable,omitempty"`
}

// CommitStats is one commit's added lines by author. Survived counts its
// agent lines that reached the tip unchanged (see Reader.Stats).
type CommitStats struct {
	Commit  string `json:"commit"`
	Summary string `json:"summary"`
	Time    int64  `json:"time"`
	Noted   bool   `json:"noted"`
	LineCounts
	Survived int            `json:"agent_survived"`
	Sessions []SessionLines `json:"sessions,omitempty"`
	Prompts  []PromptLines  `json:"prompts,omitempty"`
}

// PromptLines is the agent lines of the calls that served one prompt of one
// session (its id, as the note's session record names it per call: the
// text stays in the journal), in a commit or in total.
type PromptLines struct {
	Prompt   string `json:"prompt"`
	Session  string `json:"session"`
	Lines    int    `json:"lines"`
	Survived int    `json:"survived"`
}

// SessionLines is one agent session's lines (in a commit, or in total).
type SessionLines struct {
	Session  string `json:"session"`
	Tool     string `json:"tool"`
	ID       string `json:"session_id"`
	Model    string `json:"model,omitempty"`
	Lines    int    `json:"lines"`
	Survived int    `json:"survived"`
}

// Group is agent lines grouped by one name (a tool or a model).
type Group struct {
	Name     string `json:"name"`
	Lines    int    `json:"lines"`
	Survived int    `json:"survived"`
}

// StatsTotal sums a range's commits.
type StatsTotal struct {
	Commits int `json:"commits"`
	Noted   int `json:"noted"`
	LineCounts
	// AgentPercent is Agent / Added; SurvivedPercent is Survived / Agent.
	AgentPercent    float64        `json:"agent_percent"`
	Survived        int            `json:"agent_survived"`
	SurvivedPercent float64        `json:"survived_percent"`
	Tools           []Group        `json:"tools"`
	Models          []Group        `json:"models"`
	Sessions        []SessionLines `json:"sessions"`
	Prompts         []PromptLines  `json:"prompts"`
}

// Stats counts the lines each commit of revs adds (`git log --numstat -M`,
// one process) by who wrote them, from the commits' notes (one cat-file
// process): agent lines per session (and so per tool and model), a known
// person's lines, and untracked lines (added lines no entry names; all of
// a commit's lines when it has no note).
//
// An agent line of commit C survived when, at the tip (the range's one
// positive revision), git blame attributes a line to C at that same line
// of C's version of the file: the line reached the tip unchanged, so still
// the same session's. Lines changed, moved to another file or deleted since
// do not count; the blames run on the files at the tip that C's agent
// lines lead to (renames in the range followed), limited to the range.
// revs are revisions as git rev-list takes them (no options).
func (r Reader) Stats(ctx context.Context, revs ...string) (*Stats, error) {
	if len(revs) == 0 {
		revs = []string{"HEAD"}
	}
	for _, v := range revs {
		if strings.HasPrefix(v, "-") {
			return nil, fmt.Errorf("gitai: %q: a revision or range, not an option", v)
		}
	}
	parsed, err := r.rdOutput(ctx, append([]string{"rev-parse"}, revs...)...)
	if err != nil {
		return nil, err
	}
	var tips, bounds []string
	for _, l := range strings.Fields(string(parsed)) {
		if strings.HasPrefix(l, "^") {
			bounds = append(bounds, l)
		} else {
			tips = append(tips, l)
		}
	}
	if len(tips) == 0 {
		return nil, fmt.Errorf("gitai: %s names no commit", strings.Join(revs, " "))
	}
	idxc := make(chan struct {
		idx map[string]string
		err error
	}, 1)
	go func() {
		idx, err := r.rdNoteIndex(ctx)
		idxc <- struct {
			idx map[string]string
			err error
		}{idx, err}
	}()
	out, err := r.rdOutput(ctx, append([]string{"log", "-z", "--numstat", "-M", "--format=%x01%H %P%x02%ct%x02%s", "--end-of-options"}, append(tips, bounds...)...)...)
	ix := <-idxc
	if err != nil {
		return nil, err
	}
	if ix.err != nil {
		return nil, ix.err
	}
	logs, err := parseLogZ(out)
	if err != nil {
		return nil, err
	}
	if err := r.mergesAdd(ctx, logs); err != nil {
		return nil, err
	}
	notes, err := r.rdOpenNotes(ctx, ix.idx)
	if err != nil {
		return nil, err
	}
	defer notes.close()
	hashes := make([]string, len(logs))
	for i, c := range logs {
		hashes[i] = c.hash
	}
	notes.prefetch(hashes)
	st := &Stats{Range: revs, Tip: tips[0]}
	inRange := make(map[string]int, len(logs))
	for i, c := range logs {
		inRange[c.hash] = i
		cs := CommitStats{Commit: c.hash, Summary: c.summary, Time: c.time}
		n, err := notes.note(c.hash)
		if err != nil {
			if st.Unreadable == nil {
				st.Unreadable = map[string]string{}
			}
			st.Unreadable[c.hash] = err.Error()
		}
		added := c.addedBy()
		cs.Noted = n != nil
		counted := countNote(n, added)
		sess := map[string]*SessionLines{}
		prompts := map[[2]string]int{}
		for p, fc := range counted {
			cs.LineCounts.add(fc.LineCounts)
			delete(added, p)
			for key, k := range fc.byKey {
				if a := AuthorOf(n, key); a.Prompt != "" {
					prompts[[2]string{a.Prompt, a.Session}] += k
				}
			}
			for s, k := range fc.sessions {
				sl := sess[s]
				if sl == nil {
					a := AuthorOf(n, fc.keys[s])
					sl = &SessionLines{Session: s, Tool: a.Tool, ID: a.ID, Model: a.Model}
					sess[s] = sl
				}
				sl.Lines += k
			}
		}
		for _, k := range added {
			cs.Added += k
			cs.Untracked += k
		}
		for _, sl := range sess {
			cs.Sessions = append(cs.Sessions, *sl)
		}
		sortSessions(cs.Sessions)
		for ps, k := range prompts {
			cs.Prompts = append(cs.Prompts, PromptLines{Prompt: ps[0], Session: ps[1], Lines: k})
		}
		sortPrompts(cs.Prompts)
		st.Commits = append(st.Commits, cs)
	}
	if err := r.rdSurvival(ctx, st, logs, inRange, notes, bounds); err != nil {
		return nil, err
	}
	st.total()
	return st, nil
}

func (c *LineCounts) add(o LineCounts) {
	c.Added += o.Added
	c.Agent += o.Agent
	c.Human += o.Human
	c.Untracked += o.Untracked
}

func sortPrompts(s []PromptLines) {
	slices.SortFunc(s, func(x, y PromptLines) int {
		if c := cmp.Compare(y.Lines, x.Lines); c != 0 {
			return c
		}
		return cmp.Or(strings.Compare(x.Prompt, y.Prompt), strings.Compare(x.Session, y.Session))
	})
}

func sortSessions(s []SessionLines) {
	slices.SortFunc(s, func(x, y SessionLines) int {
		if c := cmp.Compare(y.Lines, x.Lines); c != 0 {
			return c
		}
		return strings.Compare(x.Session, y.Session)
	})
}

// total sums the commits into st.Total.
func (st *Stats) total() {
	t := &st.Total
	sess := map[string]*SessionLines{}
	prompts := map[[2]string]*PromptLines{}
	tools, models := map[string]*Group{}, map[string]*Group{}
	group := func(m map[string]*Group, name string, lines, surv int) {
		g := m[name]
		if g == nil {
			g = &Group{Name: name}
			m[name] = g
		}
		g.Lines += lines
		g.Survived += surv
	}
	for _, c := range st.Commits {
		t.Commits++
		if c.Noted {
			t.Noted++
		}
		t.LineCounts.add(c.LineCounts)
		t.Survived += c.Survived
		for _, p := range c.Prompts {
			k := [2]string{p.Prompt, p.Session}
			x := prompts[k]
			if x == nil {
				x = &PromptLines{Prompt: p.Prompt, Session: p.Session}
				prompts[k] = x
			}
			x.Lines += p.Lines
			x.Survived += p.Survived
		}
		for _, s := range c.Sessions {
			x := sess[s.Session]
			if x == nil {
				x = &SessionLines{Session: s.Session, Tool: s.Tool, ID: s.ID, Model: s.Model}
				sess[s.Session] = x
			}
			x.Lines += s.Lines
			x.Survived += s.Survived
			if x.Model == "" {
				x.Model = s.Model
			}
			group(tools, s.Tool, s.Lines, s.Survived)
			group(models, s.Model, s.Lines, s.Survived)
		}
	}
	if t.Added > 0 {
		t.AgentPercent = 100 * float64(t.Agent) / float64(t.Added)
	}
	if t.Agent > 0 {
		t.SurvivedPercent = 100 * float64(t.Survived) / float64(t.Agent)
	}
	t.Sessions = []SessionLines{}
	for _, s := range sess {
		t.Sessions = append(t.Sessions, *s)
	}
	sortSessions(t.Sessions)
	t.Prompts = []PromptLines{}
	for _, p := range prompts {
		t.Prompts = append(t.Prompts, *p)
	}
	sortPrompts(t.Prompts)
	flat := func(m map[string]*Group) []Group {
		out := []Group{}
		for _, g := range m {
			out = append(out, *g)
		}
		slices.SortFunc(out, func(x, y Group) int {
			if c := cmp.Compare(y.Lines, x.Lines); c != 0 {
				return c
			}
			return strings.Compare(x.Name, y.Name)
		})
		return out
	}
	t.Tools, t.Models = flat(tools), flat(models)
}

// fileCount is one file of one note counted: its lines by kind, agent
// lines per session (and one key of each session, to resolve it) and per
// key (to resolve each call's prompt).
type fileCount struct {
	LineCounts
	sessions map[string]int
	keys     map[string]string
	byKey    map[string]int
}

// countNote counts the lines each file of n names, against the lines the
// commit adds to it (added; a file's Added is never less than what its
// note names).
func countNote(n *Note, added map[string]int) map[string]fileCount {
	out := map[string]fileCount{}
	if n == nil {
		return out
	}
	for _, f := range n.Files {
		if _, ok := out[f.Path]; ok {
			continue // LineKeys took all of the path's entries
		}
		fc := fileCount{sessions: map[string]int{}, keys: map[string]string{}, byKey: map[string]int{}}
		for _, key := range LineKeys(n, f.Path) {
			a := AuthorOf(nil, key)
			if a.Kind == KindHuman {
				fc.Human++
			} else {
				fc.Agent++
				fc.sessions[a.Session]++
				fc.keys[a.Session] = key
				fc.byKey[key]++
			}
		}
		out[f.Path] = fc
	}
	for p, fc := range out {
		fc.Added = max(added[p], fc.Agent+fc.Human)
		fc.Untracked = fc.Added - fc.Agent - fc.Human
		out[p] = fc
	}
	return out
}

// logCommit is one commit of `git log -z --numstat`.
type logCommit struct {
	hash    string
	parents []string
	time    int64
	summary string
	files   []numstatFile
}

// numstatFile is one file a commit changes: its path (and the path it was
// renamed from) and its added lines (0 for a binary file).
type numstatFile struct {
	path, from string
	added      int
}

// addedBy maps each changed file to its added lines.
func (c logCommit) addedBy() map[string]int {
	m := make(map[string]int, len(c.files))
	for _, f := range c.files {
		m[f.path] += f.added
	}
	return m
}

// mergesAdd gives each merge of logs the lines it adds as its note counts
// them: those new against every parent (diffCommits: a conflict's
// resolution, an evil merge's own edits), where `git log --numstat` shows
// a merge no diff at all — so blame, the note, stats and show agree on a
// line a person wrote resolving a conflict.
func (r Reader) mergesAdd(ctx context.Context, logs []logCommit) error {
	var merges []commitInfo
	for _, c := range logs {
		if len(c.parents) > 1 {
			merges = append(merges, commitInfo{ID: c.hash, Parents: c.parents})
		}
	}
	if len(merges) == 0 {
		return nil
	}
	// the writers' diff, run where the reader runs (git finds the
	// repository from r.Dir, a work tree or a bare one)
	diffs, err := (&Repo{Top: r.Dir}).diffCommits(ctx, merges)
	if err != nil {
		return err
	}
	for i := range logs {
		if len(logs[i].parents) < 2 {
			continue
		}
		logs[i].files = nil
		if d := diffs[logs[i].hash]; d != nil {
			for _, f := range d.Files {
				logs[i].files = append(logs[i].files, numstatFile{path: f.Path, from: f.OldPath, added: len(f.Added)})
			}
		}
	}
	return nil
}

// parseLogZ reads records of the format "%x01%H %P%x02%ct%x02%s" followed
// by -z numstat entries: "added\tdeleted\tpath\0", or for a rename
// "added\tdeleted\t\0from\0to\0" ("-" for a binary file's counts).
func parseLogZ(out []byte) ([]logCommit, error) {
	var logs []logCommit
	for _, rec := range bytes.Split(out, []byte{1}) {
		if len(rec) == 0 {
			continue
		}
		head, rest, _ := bytes.Cut(rec, []byte{0})
		parts := strings.SplitN(string(head), "\x02", 3)
		if len(parts) != 3 {
			return nil, fmt.Errorf("gitai: git log: unexpected record %q", head)
		}
		ids := strings.Fields(parts[0])
		if len(ids) == 0 {
			return nil, fmt.Errorf("gitai: git log: unexpected record %q", head)
		}
		c := logCommit{hash: ids[0], parents: ids[1:], summary: parts[2]}
		c.time, _ = strconv.ParseInt(parts[1], 10, 64)
		toks := strings.Split(strings.TrimLeft(string(rest), "\n"), "\x00")
		for i := 0; i < len(toks); i++ {
			t := strings.TrimLeft(toks[i], "\n")
			if t == "" {
				continue
			}
			f := strings.SplitN(t, "\t", 3)
			if len(f) != 3 {
				return nil, fmt.Errorf("gitai: git log --numstat: unexpected entry %q", t)
			}
			nf := numstatFile{path: f[2]}
			nf.added, _ = strconv.Atoi(f[0]) // "-" (binary) counts 0
			if f[2] == "" {
				if i+2 >= len(toks) {
					return nil, fmt.Errorf("gitai: git log --numstat: a rename without its paths")
				}
				nf.from, nf.path = toks[i+1], toks[i+2]
				i += 2
			}
			c.files = append(c.files, nf)
		}
		logs = append(logs, c)
	}
	return logs, nil
}

// rdSurvival fills each commit's Survived (and its sessions'): it blames,
// at the tip and limited by bounds, every file at the tip that holds or
// inherited (through renames in the range) a path some note names an agent
// line in, and counts each tip line whose origin (commit, path, line) is
// an agent line of a commit in the range.
func (r Reader) rdSurvival(ctx context.Context, st *Stats, logs []logCommit, inRange map[string]int, notes *rdNotes, bounds []string) error {
	live := map[string]bool{}
	for i := len(logs) - 1; i >= 0; i-- { // oldest first
		c := logs[i]
		for _, f := range c.files {
			if f.from != "" && live[f.from] {
				delete(live, f.from)
				live[f.path] = true
			}
		}
		n, _ := notes.note(c.hash)
		if n == nil {
			continue
		}
		for _, f := range n.Files {
			for _, e := range f.Entries {
				if !strings.HasPrefix(e.Key, "h_") && len(e.Lines) > 0 {
					live[f.Path] = true
				}
			}
		}
	}
	if len(live) == 0 {
		return nil
	}
	tree, err := r.rdOutput(ctx, "ls-tree", "-r", "-z", "--name-only", st.Tip)
	if err != nil {
		return err
	}
	var paths []string
	for _, p := range strings.Split(string(tree), "\x00") {
		if live[p] {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	type origin struct {
		commit, path string
		line         int
	}
	results := make([][]origin, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, p := range paths {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			groups, err := r.rdBlameIncremental(ctx, st.Tip, p, bounds)
			if err != nil {
				errs[i] = err
				return
			}
			for _, g := range groups {
				if _, ok := inRange[g.commit]; !ok {
					continue
				}
				for k := 0; k < g.n; k++ {
					results[i] = append(results[i], origin{g.commit, g.path, g.orig + k})
				}
			}
		}()
	}
	wg.Wait()
	keys := map[string]map[int]string{}
	for i := range paths {
		if errs[i] != nil {
			return errs[i]
		}
		for _, o := range results[i] {
			n, _ := notes.note(o.commit)
			if n == nil {
				continue
			}
			k := o.commit + "\x00" + o.path
			lk, ok := keys[k]
			if !ok {
				lk = LineKeys(n, o.path)
				keys[k] = lk
			}
			key := lk[o.line]
			if key == "" || strings.HasPrefix(key, "h_") {
				continue
			}
			cs := &st.Commits[inRange[o.commit]]
			cs.Survived++
			a := AuthorOf(n, key)
			for j := range cs.Sessions {
				if cs.Sessions[j].Session == a.Session {
					cs.Sessions[j].Survived++
				}
			}
			for j := range cs.Prompts {
				if p := &cs.Prompts[j]; a.Prompt != "" && p.Prompt == a.Prompt && p.Session == a.Session {
					p.Survived++
				}
			}
		}
	}
	return nil
}

// blameGroup is one group of `git blame --incremental`: n lines of the
// blamed file that come from lines orig… of path in commit.
type blameGroup struct {
	commit, path string
	orig, n      int
}

// rdBlameIncremental runs git blame --incremental (groups, no line text).
func (r Reader) rdBlameIncremental(ctx context.Context, tip, path string, bounds []string) ([]blameGroup, error) {
	args := append([]string{"blame", "--incremental", tip}, bounds...)
	out, err := r.rdOutput(ctx, append(args, "--", path)...)
	if err != nil {
		return nil, err
	}
	var groups []blameGroup
	var cur *blameGroup
	for len(out) > 0 {
		var line []byte
		line, out, _ = bytes.Cut(out, []byte("\n"))
		s := string(line)
		if cur == nil {
			f := strings.Fields(s)
			if len(f) != 4 {
				return nil, fmt.Errorf("gitai: git blame --incremental: unexpected line %q", s)
			}
			orig, _ := strconv.Atoi(f[1])
			n, _ := strconv.Atoi(f[3])
			groups = append(groups, blameGroup{commit: f[0], orig: orig, n: n})
			cur = &groups[len(groups)-1]
			continue
		}
		if p, ok := strings.CutPrefix(s, "filename "); ok {
			cur.path = unquoteGitPath(p)
			cur = nil
		}
	}
	return groups, nil
}
