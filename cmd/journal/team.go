package main

import (
	"cmp"
	"container/heap"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/journal/remote"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
	"github.com/spf13/cobra"
)

// teamFlags are the flags of journal team log and stats.
type teamFlags struct {
	remote, workspace, host, actor, agent, model, prompt string
	repo                                                 string // --repo: the workspaces of one git repository
	since, until                                         string
	n                                                    int
	jsonOut, csvOut                                      bool
	survival                                             bool   // team stats --survival
	by                                                   string // team stats --by: workspace ("" too) or repository
	filter                                               audit.ExportFilter
}

func newTeamCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "team",
		Short: "Every workspace's events on a remote: one timeline, lines by agent, model and person",
		Long: `team reads a remote (journal remote add) that several workspaces push to — several machines, people and
agents — and shows their events together, without cloning them: ` + "`team log`" + ` merges their timelines, newest first;
` + "`team stats`" + ` counts lines added and removed per day, workspace, agent or person and model, the agents'
events later reverted or undone, and (--survival) their lines the files still hold; ` + "`team blame`" + ` names, for each
line of a file, the workspace, event and author that wrote it across the checkouts of one git repository. Each
workspace is read through the index its pushes keep (its newest events in small pages), each event checked against
its hash and the chain from the workspace's head, as verify --remote checks it: an altered object is named (exit
status 1) and nothing of it is counted. Read-only credentials suffice.`,
	}
	cmd.AddCommand(newTeamLogCmd(a), newTeamStatsCmd(a), newTeamBlameCmd(a), newTeamWebCmd(a))
	return cmd
}

func addTeamFlags(cmd *cobra.Command, f *teamFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.remote, "remote", "", "the remote to read (journal remote list; the only one if not given)")
	fl.StringVar(&f.workspace, "workspace", "", "only workspace ID (or a prefix of it)")
	fl.StringVar(&f.repo, "repo", "", "only the workspaces of this git repository: a root commit (or a prefix of one) or its origin URL")
	fl.StringVar(&f.host, "host", "", "only events made on this machine (host name)")
	fl.StringVar(&f.actor, "actor", "", "only events whose actor (client name, user, kind, or client/session) is A")
	fl.StringVar(&f.agent, "agent", "", "only the events of this agent (its client name)")
	fl.StringVar(&f.model, "model", "", "only events whose model (from their prompt or call) contains M")
	fl.StringVar(&f.prompt, "prompt", "", "only events whose prompt's text (secrets masked) contains T")
	addTimeFlags(cmd, &f.since, &f.until)
	fl.BoolVar(&f.jsonOut, "json", false, "JSON")
	fl.BoolVar(&f.csvOut, "csv", false, "CSV, with a header line (for spreadsheets)")
}

func newTeamLogCmd(a *app) *cobra.Command {
	var f teamFlags
	cmd := &cobra.Command{
		Use:   "log [PATH...]",
		Short: "Every workspace's events on a remote, newest first",
		Long: `team log lists the events of every workspace on the remote, merged newest first: workspace (its ID's
first 8 characters), event, time, who, host, tool, files with added/removed lines, model and prompt (secrets
masked, --reveal to show them). PATH (relative to each workspace's root) keeps the events that touched it.
-n N reads the workspaces' newest index pages (16 workspaces at a time), and older pages only of a workspace whose
pages read do not yet reach back past the N-th newest matching event of them all: what it reads grows with N and
the workspaces' count, not with their events. --json prints one object per event (JSON lines), --csv one row per event.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.filter.Paths = args
			return a.runTeamLog(f)
		},
	}
	addTeamFlags(cmd, &f)
	cmd.Flags().IntVarP(&f.n, "max-count", "n", 50, "show at most N events (0: all)")
	a.addReveal(cmd)
	return cmd
}

func newTeamStatsCmd(a *app) *cobra.Command {
	var f teamFlags
	cmd := &cobra.Command{
		Use:   "stats [PATH...]",
		Short: "Lines added and removed per day, workspace, agent or person and model",
		Long: `team stats counts, from every workspace's events on the remote (filters as team log's), per day (UTC),
workspace (--by repository: per day and git repository, the checkouts of one counted together), author and model
(each row names the workspace's repository: its origin URL, else its short root commit, as its pushes recorded
it): the events that changed files, the lines they added and removed, and how many of
them were later taken back by a revert or by an undo. The author is the agent (its client name) for an agent's
events and the person (cli:USER) for edits made with the CLI; the model is the one the event's prompt or call
names. Reverts, undos, rewinds and gc are not authored lines and are not counted as such. --survival adds, per
row, how many of its lines each workspace's latest version of the file still holds (blame by content, as journal
blame attributes lines): it reads each workspace's events and its files' versions, not only the index. --json
prints {"rows": [...], "totals": [...]} (totals per author and model), --csv the rows.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.filter.Paths = args
			return a.runTeamStats(f)
		},
	}
	addTeamFlags(cmd, &f)
	cmd.Flags().StringVar(&f.by, "by", "workspace", "rows per day and workspace, or per day and repository (the git repository its pushes named: checkouts of one count together)")
	cmd.Flags().BoolVar(&f.survival, "survival", false, "count the lines each author wrote that each workspace's latest version of the file still holds (reads the files' versions)")
	return cmd
}

// teamEvent is one event of the team view: verified, with what it is
// attributed to.
type teamEvent struct {
	ws     string
	e      *journal.Event // masked unless --reveal
	prompt *promptRef     // masked
	model  string
	agent  string // the agent's client name; "" for a person's or an outside change
	person string // cli:USER for a person's edit
	who    string
}

// teamRead is what the team commands read: the events that match, newest
// first (masked), and the damage met.
type teamRead struct {
	events []*teamEvent
	// all is every event read, by workspace and number: those not in
	// events keep their arguments unmasked (for counting, not showing).
	all      map[string]map[uint64]*teamEvent
	problems []string
	notes    []string
	// repos names each workspace's git repository (teamRepoNames); ""
	// for one whose index names none.
	repos map[string]string
	store *remote.Store // what it was read from (stats --survival reads on)
}

// every is every event read, the filters aside, in no order.
func (tr *teamRead) every() []*teamEvent {
	var out []*teamEvent
	for _, m := range tr.all {
		for _, te := range m {
			out = append(out, te)
		}
	}
	return out
}

// readTeam reads every workspace of the remote (n > 0: until n events of
// each match) and keeps the events f selects.
func (a *app) readTeam(f *teamFlags, n int) (*teamRead, string, error) {
	if err := f.parse(); err != nil {
		return nil, "", err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := openRemote(ctx, f.remote)
	if err != nil {
		return nil, "", remoteErr(err)
	}
	tr, err := a.readTeamFrom(ctx, s, f, n)
	return tr, s.Remote().Name, err
}

// parse checks f's output flags and reads its times into its filter.
func (f *teamFlags) parse() error {
	if f.jsonOut && f.csvOut {
		return usageError{errors.New("team: --json or --csv, not both")}
	}
	var err error
	if f.filter.Since, err = parseTime(f.since); err != nil {
		return err
	}
	f.filter.Until, err = parseTime(f.until)
	return err
}

// readTeamFrom is readTeam over an open store, f's times parsed: what the
// team commands and the web app's team page (teamweb.go) read. The events
// it keeps (tr.events) are masked; tr.all, which counts, is not.
func (a *app) readTeamFrom(ctx context.Context, s *remote.Store, f *teamFlags, n int) (*teamRead, error) {
	wss, err := remote.TeamWorkspaces(ctx, s)
	if err != nil {
		return nil, remoteErr(err)
	}
	var sel []string
	for _, ws := range wss {
		if f.workspace == "" || strings.HasPrefix(ws, f.workspace) {
			sel = append(sel, ws)
		}
	}
	if f.repo != "" {
		if sel, err = teamOfRepo(ctx, s, sel, f.repo); err != nil {
			return nil, err
		}
	}
	type read struct {
		tw  *remote.TeamWorkspace
		tes []*teamEvent
		err error
	}
	reads := make([]read, len(sel))
	cut := &teamCut{n: n}
	sem := make(chan struct{}, teamReaders)
	var arrived, done sync.WaitGroup // arrived: every workspace's newest page is in (or it ended)
	arrived.Add(len(sel))
	done.Add(len(sel))
	for i, ws := range sel {
		go func() {
			sem <- struct{}{}
			arrive := sync.OnceFunc(arrived.Done)
			defer func() { arrive(); <-sem; done.Done() }()
			extra, seen := false, 0 // extra: a page read past the events shown, for their prompts
			o := remote.TeamOptions{Enough: func(evs []*journal.Event) bool {
				if len(evs) > 0 && !f.filter.Since.IsZero() && evs[0].Time.Before(f.filter.Since) {
					return true // older pages are older still
				}
				if n <= 0 {
					return false
				}
				tes := a.attributeRaw(ws, evs)
				for _, te := range tes[:len(tes)-seen] { // the page just read
					if f.match(te) {
						cut.add(te.e.Time)
					}
				}
				if seen == 0 { // the first page: wait for every workspace's, which set the cut
					<-sem
					arrive()
					arrived.Wait()
					sem <- struct{}{}
				}
				seen = len(tes)
				// an older event than the cut's is not shown, nor any of the
				// pages before it (older still)
				c := cut.time()
				k, unknown := 0, false
				for i := len(tes) - 1; i >= 0 && k < n && (c.IsZero() || !tes[i].e.Time.Before(c)); i-- { // the newest that may be shown
					if te := tes[i]; f.match(te) {
						k++
						// an agent's event whose prompt is on an older page
						unknown = unknown || te.agent != "" && (te.prompt == nil || te.prompt.Seq == 0)
					}
				}
				enough := k >= n || !c.IsZero() && len(evs) > 0 && evs[0].Time.Before(c)
				if !enough || extra || !unknown {
					return enough
				}
				extra = true
				return false
			}}
			tw, err := remote.ReadTeam(ctx, s, ws, o)
			reads[i] = read{tw: tw, err: err}
			if err == nil {
				reads[i].tes = a.attributeRaw(ws, tw.Events)
			}
		}()
	}
	done.Wait()
	tr := &teamRead{all: map[string]map[uint64]*teamEvent{}, store: s}
	if f.repo != "" && len(sel) == 0 {
		tr.notes = append(tr.notes, fmt.Sprintf("no workspace on the remote is a checkout of repository %q: `journal team stats --by repository` names the repositories its pushes recorded (a root commit, a prefix of one, or an origin URL)", f.repo))
	}
	repos := map[string]*remote.Repository{}
	for i, ws := range sel {
		r := reads[i]
		if r.err != nil {
			return nil, remoteErr(r.err)
		}
		repos[ws] = r.tw.Repository
		tr.problems = append(tr.problems, r.tw.Problems...)
		if r.tw.Note != "" {
			tr.notes = append(tr.notes, r.tw.Note)
		}
		byseq := map[uint64]*teamEvent{}
		for _, te := range r.tes {
			byseq[te.e.Seq] = te
			if f.match(te) {
				tr.events = append(tr.events, te)
			}
		}
		tr.all[ws] = byseq
	}
	sort.SliceStable(tr.events, func(i, j int) bool {
		x, y := tr.events[i], tr.events[j]
		if !x.e.Time.Equal(y.e.Time) {
			return x.e.Time.After(y.e.Time)
		}
		if x.ws != y.ws {
			return x.ws < y.ws
		}
		return x.e.Seq > y.e.Seq
	})
	if n > 0 && len(tr.events) > n {
		tr.events = tr.events[:n]
	}
	tr.repos = teamRepoNames(repos)
	m := a.mask()
	for _, te := range tr.events {
		te.e = m.Event(te.e)
	}
	return tr, nil
}

// teamRepoNames names each workspace's repository, as team stats shows
// it: its origin's URL (without user and password), else its first root
// commit's short form, else "". Workspaces whose repositories are one
// (Repository.Shares: a root commit in common) get one name — the
// smallest of their URLs, else of their roots — so that a clone with an
// origin and the checkout it came from, without one, count together.
func teamRepoNames(repos map[string]*remote.Repository) map[string]string {
	out, _ := teamRepoGroups(repos)
	return out
}

// teamOfRepo keeps of wss the workspaces of the git repository named
// (repoNamed: a root commit, a prefix of one, or the origin URL), with
// every checkout of it that shares a root commit with one so named (as
// team stats --by repository groups them): one GET of each workspace's
// index, teamReaders at once.
func teamOfRepo(ctx context.Context, s *remote.Store, wss []string, name string) ([]string, error) {
	repos := make([]*remote.Repository, len(wss))
	errs := make([]error, len(wss))
	snapshot.ParallelN(len(wss), teamReaders, func(i int) { repos[i], errs[i] = remote.TeamRepository(ctx, s, wss[i]) })
	byWS := map[string]*remote.Repository{}
	for i, ws := range wss {
		if errs[i] != nil {
			return nil, remoteErr(errs[i])
		}
		byWS[ws] = repos[i]
	}
	_, group := teamRepoGroups(byWS)
	named := map[int]bool{}
	for ws, r := range byWS {
		if r != nil && repoNamed(r, name) {
			named[group[ws]] = true
		}
	}
	var out []string
	for _, ws := range wss {
		if named[group[ws]] {
			out = append(out, ws)
		}
	}
	return out, nil
}

// teamRepoGroups names each workspace's repository, as teamRepoNames
// says, and gives each the number of its group: workspaces that share a
// root commit or an origin, directly or through others.
func teamRepoGroups(repos map[string]*remote.Repository) (map[string]string, map[string]int) {
	wss := slices.Sorted(maps.Keys(repos))
	group := make([]int, len(wss)) // union-find: each one's repository's first workspace
	find := func(i int) int {
		for group[i] != i {
			i = group[i]
		}
		return i
	}
	for i := range wss {
		group[i] = i
		for j := range i {
			if repos[wss[i]].Shares(repos[wss[j]]) {
				if a, b := find(i), find(j); a != b {
					group[max(a, b)] = min(a, b)
				}
			}
		}
	}
	for i := range group {
		group[i] = find(i)
	}
	urls, roots := map[int]string{}, map[int]string{}
	least := func(m map[int]string, g int, v string) {
		if v != "" && (m[g] == "" || v < m[g]) {
			m[g] = v
		}
	}
	for i, ws := range wss {
		if r := repos[ws]; r != nil {
			least(urls, group[i], cleanURL(r.URL))
			if len(r.Roots) > 0 {
				least(roots, group[i], r.Roots[0][:min(12, len(r.Roots[0]))])
			}
		}
	}
	out, groups := make(map[string]string, len(wss)), make(map[string]int, len(wss))
	for i, ws := range wss {
		out[ws] = cmp.Or(urls[group[i]], roots[group[i]])
		groups[ws] = group[i]
	}
	return out, groups
}

// teamReaders is how many workspaces a team command reads at once: each
// read waits on round trips to the store (tens of milliseconds to a cloud
// region), so requests in flight, not CPU, bound it.
const teamReaders = 16

// teamCut is the time of the n-th newest event matched so far across the
// workspaces read: an event older than it is not among the n newest, and
// reading more only makes it newer — so a workspace whose pages read reach
// back past it needs no older page.
type teamCut struct {
	mu    sync.Mutex
	n     int
	times timeHeap // the n newest times, oldest on top
}

func (c *teamCut) add(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.times) < c.n {
		heap.Push(&c.times, t)
	} else if c.n > 0 && t.After(c.times[0]) {
		c.times[0] = t
		heap.Fix(&c.times, 0)
	}
}

// time is the cut: zero until n events matched.
func (c *teamCut) time() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == 0 || len(c.times) < c.n {
		return time.Time{}
	}
	return c.times[0]
}

// timeHeap is a min-heap of times (container/heap).
type timeHeap []time.Time

func (h timeHeap) Len() int           { return len(h) }
func (h timeHeap) Less(i, j int) bool { return h[i].Before(h[j]) }
func (h timeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timeHeap) Push(x any)        { *h = append(*h, x.(time.Time)) }
func (h *timeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// attributeRaw gives each event (oldest first, one workspace's) its prompt,
// model and author, as the journal's readers do (replay.Prompts). A prompt
// older than the events read is not known. The prompts' text is masked, the
// events' arguments are not: masking scans every argument for secrets, the
// most of what reading a page costs, and only the events shown need it (the
// caller masks those: audit.Masking.Event).
func (a *app) attributeRaw(ws string, evs []*journal.Event) []*teamEvent {
	ps := replay.NewPrompts()
	m := a.mask()
	refs := map[uint64]*promptRef{}
	out := make([]*teamEvent, 0, len(evs))
	for _, e := range evs {
		te := &teamEvent{ws: ws}
		if p := ps.Next(e); p != nil { // forward: a prompt event comes before the events it serves
			te.model = p.Model
			switch {
			case e.Kind == journal.KindPrompt:
				te.prompt = newPromptRef(replay.PromptOfEvent(m.Event(e)))
				refs[e.Seq] = te.prompt
			case refs[p.Seq] != nil:
				te.prompt = refs[p.Seq]
			default: // a prompt only its calls name: no text
				te.prompt = newPromptRef(&replay.Prompt{ID: p.ID})
			}
		}
		if te.model == "" {
			te.model = teamCallModel(e)
		}
		te.agent, te.person, te.who = teamAuthor(e.Actor)
		te.e = e
		out = append(out, te)
	}
	return out
}

// teamAuthor is who an event of actor a is attributed to: the agent (its
// client name) for an agent's, the person (cli:USER) for an edit made with
// the CLI; who is the one of them, or the actor's name or kind.
func teamAuthor(a journal.Actor) (agent, person, who string) {
	switch a.Kind {
	case "mcp", "agent":
		agent = first(a.Name, a.Kind)
		return agent, "", agent
	case "cli":
		person = actorString(journal.Actor{Kind: "cli", User: a.User, Origin: a.Origin})
		return "", person, person
	}
	return "", "", first(a.Name, a.Kind, "?")
}

// teamCallModel is the model an agent's hook call names in e's arguments.
func teamCallModel(e *journal.Event) string {
	var c struct{ Call hookCall }
	json.Unmarshal(e.Args, &c)
	return c.Call.Model
}

// match reports whether f selects te.
func (f *teamFlags) match(te *teamEvent) bool {
	e := te.e
	if !f.filter.Match(e) || f.host != "" && !strings.EqualFold(e.Actor.Host, f.host) ||
		f.actor != "" && !actorMatches(e, f.actor) || f.agent != "" && !strings.EqualFold(te.agent, f.agent) {
		return false
	}
	if f.model != "" && !strings.Contains(strings.ToLower(te.model), strings.ToLower(f.model)) {
		return false
	}
	if f.prompt != "" && (te.prompt == nil || !strings.Contains(strings.ToLower(te.prompt.Excerpt), strings.ToLower(f.prompt))) {
		return false
	}
	return true
}

// end reports what reading found wrong after the output: each damaged
// object on stderr and an error naming them (exit status 1).
func (a *app) teamEnd(tr *teamRead, name string) error {
	for _, n := range tr.notes {
		fmt.Fprintf(os.Stderr, "note: %s\n", n)
	}
	if len(tr.problems) == 0 {
		return nil
	}
	for _, p := range tr.problems {
		fmt.Fprintf(os.Stderr, "bad: %s\n", p)
	}
	return withHint(fmt.Errorf("team: remote %s: %d object(s) missing or altered, nothing read from them is shown or counted: %s: %w",
		name, len(tr.problems), strings.Join(tr.problems, "; "), remote.ErrDamaged), "`journal verify --remote "+name+"` checks every object; push again from the workspace to rewrite its index")
}

// teamLogEntry is an event as team log --json prints it.
type teamLogEntry struct {
	Workspace string `json:"workspace"`
	// Repository names the workspace's git repository (its origin without
	// credentials, else its short root commit), as team stats does.
	Repository string `json:"repository,omitempty"`
	*journal.Event
	Agent  string     `json:"agent,omitempty"`
	Person string     `json:"person,omitempty"`
	Model  string     `json:"model,omitempty"`
	Prompt *promptRef `json:"prompt,omitempty"`
}

func (a *app) runTeamLog(f teamFlags) error {
	if f.n < 0 {
		return usageError{errors.New("team log: -n takes a count of events (0: all)")}
	}
	tr, name, err := a.readTeam(&f, f.n)
	if err != nil {
		return err
	}
	var cw *csv.Writer
	if f.csvOut {
		cw = csv.NewWriter(a.out)
		cw.Write([]string{"workspace", "seq", "time", "actor", "agent", "person", "host", "kind", "tool", "paths", "added", "removed", "model", "prompt_id", "prompt", "repository"})
	}
	for _, te := range tr.events {
		e := te.e
		added, removed := lines(e)
		switch {
		case f.jsonOut:
			b, err := json.Marshal(teamLogEntry{Workspace: te.ws, Repository: tr.repos[te.ws], Event: e, Agent: te.agent, Person: te.person, Model: te.model, Prompt: te.prompt})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.out, "%s\n", b)
		case cw != nil:
			var paths []string
			for _, fc := range e.Listed() {
				paths = append(paths, fc.Path)
			}
			pid, ptext := "", ""
			if te.prompt != nil {
				pid, ptext = te.prompt.ID, te.prompt.Excerpt
			}
			cw.Write([]string{te.ws, strconv.FormatUint(e.Seq, 10), e.Time.UTC().Format(time.RFC3339), actorString(e.Actor), te.agent, te.person,
				e.Actor.Host, string(e.Kind), e.Tool, strings.Join(paths, " "), strconv.Itoa(added), strconv.Itoa(removed), te.model, pid, ptext, tr.repos[te.ws]})
		default:
			var files []string
			for _, fc := range e.Listed() {
				files = append(files, fc.Path)
			}
			if len(files) > onelineFiles {
				files = append(files[:3:3], fmt.Sprintf("and %d more", len(files)-3))
			}
			s := fmt.Sprintf("%s %s %s %s", cDim(te.ws[:min(8, len(te.ws))]), cSeq(e.Seq), e.Time.In(zone()).Format("2006-01-02 15:04:05"), actorString(e.Actor))
			if e.Actor.Host != "" {
				s += "@" + e.Actor.Host
			}
			s += " " + what(e)
			if len(files) > 0 {
				s += fmt.Sprintf(" %s (+%d -%d)", strings.Join(files, ","), added, removed)
			}
			if te.model != "" {
				s += " [" + te.model + "]"
			}
			if te.prompt != nil && e.Kind != journal.KindPrompt {
				s += "  " + cDim(te.prompt.String())
			}
			if e.Status == journal.StatusRolledBack {
				s += " " + cStatus("[rolled back]")
			}
			fmt.Fprintln(a.out, s)
		}
	}
	if cw != nil {
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
	}
	if len(tr.events) == 0 && !f.jsonOut && !f.csvOut {
		fmt.Fprintln(os.Stderr, "no events match")
	}
	return a.teamEnd(tr, name)
}

// lines sums an event's added and removed line counts.
func lines(e *journal.Event) (added, removed int) {
	for _, fc := range e.Files {
		added += fc.Added
		removed += fc.Removed
	}
	return
}

// teamRow is one row of team stats.
type teamRow struct {
	Day       string `json:"day,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	// Repository is the workspace's git repository (teamRepoNames; its
	// origin URL, else its short root commit), "" when its pushes named none.
	Repository string `json:"repository,omitempty"`
	Author     string `json:"author"`
	Kind       string `json:"kind"` // agent, person or other
	Model      string `json:"model,omitempty"`
	Events     int    `json:"events"`
	Added      int    `json:"added"`
	Removed    int    `json:"removed"`
	Reverted   int    `json:"reverted"` // of its events, taken back by a revert later
	Undone     int    `json:"undone"`   // by an undo
	// Surviving (--survival) is how many of its lines each workspace's
	// latest version of the file still holds.
	Surviving *int `json:"surviving,omitempty"`
}

// authored reports whether e's lines are its author's: a change a tool
// call, an edit or an outside change made (not a revert, rewind or gc,
// nor a watcher's first scan).
func authored(e *journal.Event) bool {
	return e.Status == journal.StatusCommitted && (e.Kind == journal.KindApply || e.Kind == journal.KindObserve && !e.IsBaseline())
}

func (a *app) runTeamStats(f teamFlags) error {
	if f.by != "workspace" && f.by != "repository" {
		return withHint(usageError{fmt.Errorf("team stats: --by %q: rows are by workspace or by repository", f.by)}, "--by workspace (the default) or --by repository")
	}
	tr, name, err := a.readTeam(&f, 0)
	if err != nil {
		return err
	}
	rs, ts, err := a.teamStats(&f, tr)
	if err != nil {
		return err
	}
	switch {
	case f.jsonOut:
		b, err := json.MarshalIndent(struct {
			Rows   []teamRow `json:"rows"`
			Totals []teamRow `json:"totals"`
		}{rs, ts}, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(a.out, "%s\n", b)
	case f.csvOut:
		cw := csv.NewWriter(a.out)
		head := []string{"day", "workspace", "repository", "author", "kind", "model", "events", "added", "removed", "reverted", "undone"}
		if f.survival {
			head = append(head, "surviving")
		}
		cw.Write(head)
		for _, r := range rs {
			rec := []string{r.Day, r.Workspace, r.Repository, r.Author, r.Kind, r.Model, strconv.Itoa(r.Events), strconv.Itoa(r.Added), strconv.Itoa(r.Removed), strconv.Itoa(r.Reverted), strconv.Itoa(r.Undone)}
			if r.Surviving != nil {
				rec = append(rec, strconv.Itoa(*r.Surviving))
			}
			cw.Write(rec)
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
	default:
		printTeamTable(a.out, "by day and "+f.by, rs, true)
		printTeamTable(a.out, "totals", ts, false)
	}
	return a.teamEnd(tr, name)
}

// teamStats counts tr's events as team stats prints them: rows per day
// (UTC), workspace (f.by "repository": repository), author and model, and
// totals per author and model, each sorted; with f.survival, the lines
// each still has in the files.
func (a *app) teamStats(f *teamFlags, tr *teamRead) (rs, ts []teamRow, err error) {
	rows := map[teamRow]*teamRow{}
	totals := map[teamRow]*teamRow{}
	key := func(te *teamEvent) (teamRow, teamRow) {
		kind := "other"
		switch {
		case te.agent != "":
			kind = "agent"
		case te.person != "":
			kind = "person"
		}
		t := teamRow{Author: te.who, Kind: kind, Model: te.model}
		r := t
		r.Day, r.Workspace, r.Repository = te.e.Time.UTC().Format("2006-01-02"), te.ws, tr.repos[te.ws]
		if f.by == "repository" {
			r.Workspace = ""
		}
		return r, t
	}
	get := func(m map[teamRow]*teamRow, k teamRow) *teamRow {
		if m[k] == nil {
			c := k
			if f.survival {
				c.Surviving = new(int)
			}
			m[k] = &c
		}
		return m[k]
	}
	for _, te := range tr.events {
		if !authored(te.e) {
			continue
		}
		r, t := key(te)
		ad, rm := lines(te.e)
		for _, x := range []*teamRow{get(rows, r), get(totals, t)} {
			x.Events++
			x.Added += ad
			x.Removed += rm
		}
	}
	// reverts and undos (whoever made them): counted on the row of the
	// event taken back, when it is one the filters select
	for _, te := range tr.every() {
		e := te.e
		if e.Status != journal.StatusCommitted || e.Kind != journal.KindRevert && e.Kind != journal.KindUndo {
			continue
		}
		targets := e.Undone
		if e.Reverts != 0 {
			targets = append([]uint64{e.Reverts}, targets...)
		}
		for _, seq := range targets {
			t := tr.all[te.ws][seq]
			if t == nil || !authored(t.e) || !f.match(t) {
				continue
			}
			r, tt := key(t)
			for _, x := range []*teamRow{get(rows, r), get(totals, tt)} {
				if e.Kind == journal.KindUndo {
					x.Undone++
				} else {
					x.Reverted++
				}
			}
		}
	}
	if f.survival {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		err := a.teamSurvival(ctx, f, tr, func(te *teamEvent) {
			r, t := key(te)
			*get(rows, r).Surviving++
			*get(totals, t).Surviving++
		})
		if err != nil {
			return nil, nil, err
		}
	}
	sorted := func(m map[teamRow]*teamRow) []teamRow {
		out := make([]teamRow, 0, len(m))
		for _, r := range m {
			out = append(out, *r)
		}
		sort.Slice(out, func(i, j int) bool {
			x, y := out[i], out[j]
			return fmt.Sprint(x.Day, "\x00", x.Repository, "\x00", x.Workspace, "\x00", x.Author, "\x00", x.Model) < fmt.Sprint(y.Day, "\x00", y.Repository, "\x00", y.Workspace, "\x00", y.Author, "\x00", y.Model)
		})
		return out
	}
	rs, ts = sorted(rows), sorted(totals)
	return rs, ts, nil
}

// printTeamTable prints rows as aligned columns under a title.
func printTeamTable(w io.Writer, title string, rs []teamRow, daily bool) {
	fmt.Fprintf(w, "%s\n", cBold(title))
	if len(rs) == 0 {
		fmt.Fprintln(w, "  (no lines)")
		return
	}
	for _, r := range rs {
		where := ""
		if daily {
			w := strings.TrimSpace(r.Workspace[:min(8, len(r.Workspace))] + " " + r.Repository)
			where = fmt.Sprintf("%s %s  ", r.Day, cmp.Or(w, "-"))
		}
		model := r.Model
		if model == "" {
			model = "-"
		}
		surviving := ""
		if r.Surviving != nil {
			surviving = fmt.Sprintf(", surviving %d", *r.Surviving)
		}
		fmt.Fprintf(w, "  %s%-20s %-6s %-18s %5d events  +%-6d -%-6d reverted %d, undone %d%s\n", where, r.Author, r.Kind, model, r.Events, r.Added, r.Removed, r.Reverted, r.Undone, surviving)
	}
}
