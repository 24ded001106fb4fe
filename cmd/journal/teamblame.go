package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
	"github.com/spf13/cobra"
)

func newTeamBlameCmd(a *app) *cobra.Command {
	var remoteName, repo, workspace string
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "blame PATH",
		Short: "Every line of a file, with the workspace, event and author that wrote it, across a repository's workspaces",
		Long: `team blame shows the newest version of PATH among the workspaces on the remote that are checkouts of one git
repository, each line with the workspace and event that wrote it, who (the agent, or the person: cli:USER), the
model and the prompt. The repository is the one the current directory is in (PATH is then relative to the current
directory), or --repo (a root commit, or a prefix of one, or the origin URL; PATH relative to the repository's top).
A workspace's push records its repository — its root commits, origin URL and where the workspace's root is in it —
in the workspace's index on the remote; workspaces that share a root commit are one repository's.

The newest version is the one the latest change of PATH (by time) in those workspaces left (a workspace whose latest
change deleted it is passed over). Each of its lines is the
earliest event, in any of the workspaces, whose version of the file brought that line in (blame by content, as
journal blame attributes it): a line an agent wrote in one workspace and a git pull brought to another is the
agent's. A line no journal wrote shows no workspace. Only what blame needs is read: each workspace's index, and for
the workspaces of the repository their events and the contents of PATH's versions, each checked against its hash
and the workspace's chain (an altered object is named, exit status 1). --json prints one object: {"path",
"repository", "version": {"workspace", "event", "time", "content"}, "workspaces", "lines": [{"line", "workspace",
"event", "time", "who", "agent", "person", "model", "prompt", "text"}]}.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runTeamBlame(remoteName, repo, workspace, args[0], jsonOut)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&remoteName, "remote", "", "the remote to read (journal remote list; the only one if not given)")
	fl.StringVar(&repo, "repo", "", "the repository: a root commit (or a prefix of one) or its origin URL (default: the current directory's)")
	fl.StringVar(&workspace, "workspace", "", "only workspace ID (or a prefix of it)")
	fl.BoolVar(&jsonOut, "json", false, "one JSON object (see above)")
	a.addReveal(cmd)
	return cmd
}

// gitRepository is the git repository dir is in, as a push records it
// (nil: dir is in none, or git is not installed).
func gitRepository(dir string) *remote.Repository {
	git := func(args ...string) (string, error) {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
		return strings.TrimSpace(string(out)), err
	}
	prefix, err := git("rev-parse", "--show-prefix")
	if err != nil {
		return nil
	}
	r := &remote.Repository{Prefix: prefix}
	if roots, err := git("rev-list", "--max-parents=0", "HEAD"); err == nil && roots != "" {
		r.Roots = strings.Fields(roots)
		slices.Sort(r.Roots)
	}
	if u, err := git("config", "--get", "remote.origin.url"); err == nil {
		r.URL = cleanURL(u)
	}
	return r
}

// cleanURL is a repository URL without its user and password.
func cleanURL(u string) string {
	if p, err := url.Parse(u); err == nil && p.User != nil && p.Host != "" {
		p.User = nil
		return p.String()
	}
	return u
}

// teamBlameLine is a line of team blame --json.
type teamBlameLine struct {
	Line      int        `json:"line"`
	Workspace string     `json:"workspace,omitempty"`
	Event     uint64     `json:"event,omitempty"`
	Time      *time.Time `json:"time,omitempty"`
	Who       string     `json:"who,omitempty"`
	Agent     string     `json:"agent,omitempty"`
	Person    string     `json:"person,omitempty"`
	Model     string     `json:"model,omitempty"`
	Prompt    string     `json:"prompt,omitempty"`
	Text      string     `json:"text"`
}

// teamBlameWS is one workspace of the repository, cloned for blame.
type teamBlameWS struct {
	ws, key string
	j       *journal.Journal
	last    *journal.Event // the newest event that changed key
}

// teamCloners is how many workspaces team blame clones at once.
const teamCloners = 4

// clone clones w's workspace into dir (its journal, with key's contents),
// opens that journal as w.j and finds w.last.
func (w *teamBlameWS) clone(ctx context.Context, s *remote.Store, dir string) error {
	if _, err := remote.Clone(ctx, s, w.ws, dir, remote.CloneOptions{Paths: []string{w.key}}); err != nil {
		return err
	}
	j, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{})
	if err != nil {
		return err
	}
	w.j = j
	return j.View(func(tx *journal.Tx) error { w.last, err = lastChange(tx, w.key); return err })
}

func (a *app) runTeamBlame(name, repo, only, arg string, jsonOut bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var want *remote.Repository
	rel := path.Clean(filepath.ToSlash(arg))
	if repo == "" {
		cwd, err := os.Getwd()
		if err != nil {
			return err
		}
		if want = gitRepository(cwd); want == nil || len(want.Roots) == 0 && want.URL == "" {
			return withHint(usageError{errors.New("team blame: the current directory is in no git repository with a commit or an origin")},
				"run it in a checkout of the repository, or name it: --repo ROOT-COMMIT (git rev-list --max-parents=0 HEAD)")
		}
		rel = path.Clean(want.Prefix + rel)
	}
	if rel == "." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return withHint(usageError{fmt.Errorf("team blame: %s is not a file inside the repository", arg)}, "name a file of the repository")
	}
	s, err := openRemote(ctx, name)
	if err != nil {
		return remoteErr(err)
	}
	wss, err := remote.TeamWorkspaces(ctx, s)
	if err != nil {
		return remoteErr(err)
	}
	// each workspace's repository: one GET of its index, 16 at a time
	repos := make([]*remote.Repository, len(wss))
	errs := make([]error, len(wss))
	snapshot.ParallelN(len(wss), teamReaders, func(i int) {
		if only == "" || strings.HasPrefix(wss[i], only) {
			repos[i], errs[i] = remote.TeamRepository(ctx, s, wss[i])
		}
	})
	var mine []*teamBlameWS
	for i, ws := range wss {
		if errs[i] != nil {
			return remoteErr(errs[i])
		}
		r := repos[i]
		if r == nil || want != nil && !want.Shares(r) || repo != "" && !repoNamed(r, repo) || !strings.HasPrefix(rel, r.Prefix) {
			continue
		}
		mine = append(mine, &teamBlameWS{ws: ws, key: strings.TrimPrefix(rel, r.Prefix)})
	}
	if len(mine) == 0 {
		return withHint(fmt.Errorf("team blame: no workspace on remote %s is a checkout of that repository holding %s", s.Remote().Name, rel),
			"a push records the repository of the workspace it is run in: `journal push` from each checkout (journal team log lists the workspaces)")
	}
	tmp, err := os.MkdirTemp("", "journal-team-blame-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// the checkouts' journals, teamCloners at once (each clone waits on
	// the remote more than on a core)
	cloneErrs := make([]error, len(mine))
	snapshot.ParallelN(len(mine), teamCloners, func(i int) {
		cloneErrs[i] = mine[i].clone(ctx, s, filepath.Join(tmp, strconv.Itoa(i)))
	})
	defer func() {
		for _, w := range mine {
			if w.j != nil {
				w.j.Close()
			}
		}
	}()
	for i, w := range mine {
		if err := cloneErrs[i]; err != nil {
			if errors.Is(err, remote.ErrDamaged) || errors.Is(err, remote.ErrNotFound) {
				return withHint(fmt.Errorf("team blame: workspace %s: %w", w.ws, err), "`journal verify --remote "+s.Remote().Name+"` checks every object")
			}
			return remoteErr(err)
		}
	}
	// the newest version: the latest change of the file that left it there
	var top *teamBlameWS
	for _, w := range mine {
		if w.last != nil && !changeOf(w.last, w.key).After.IsZero() && (top == nil || w.last.Time.After(top.last.Time)) {
			top = w
		}
	}
	if top == nil {
		return withHint(fmt.Errorf("team blame: %s: no workspace of the repository holds it (never journaled, or deleted)", rel), "`journal team log "+rel+"` lists the events that touched it")
	}
	slices.SortStableFunc(mine, func(x, y *teamBlameWS) int { // the newest version's workspace first: it wins a tie
		if x == top {
			return -1
		} else if y == top {
			return 1
		}
		return 0
	})
	var data bytes.Buffer
	if err := top.j.View(func(tx *journal.Tx) error {
		return snapshot.Get(tx.Bolt(), changeOf(top.last, top.key).After, &data)
	}); err != nil {
		return err
	}
	lines := make([]teamBlameLine, 0)
	for _, w := range mine {
		err := w.j.View(func(tx *journal.Tx) error {
			b, err := replay.BlameContent(tx, w.key, data.Bytes())
			if errors.Is(err, journal.ErrNotFound) {
				return nil // a workspace that never had the file
			}
			if err != nil {
				return err
			}
			if len(lines) == 0 {
				a.maskBlame(b)
				for i, l := range b.Lines {
					lines = append(lines, teamBlameLine{Line: i + 1, Text: string(l.Text)})
				}
			}
			for i, l := range b.Lines {
				e := b.Events[l.Seq]
				if l.Seq == 0 || e == nil || i >= len(lines) || lines[i].Time != nil && !e.Time.Before(*lines[i].Time) {
					continue // the earliest event wins; on a tie, the workspace read first
				}
				t := e.Time
				x := &lines[i]
				x.Workspace, x.Event, x.Time = w.ws, e.Seq, &t
				x.Agent, x.Person, x.Who = teamAuthor(e.Actor)
				x.Model, x.Prompt = "", ""
				if p, err := replay.PromptOf(tx, e); err == nil && p != nil {
					x.Model, x.Prompt = p.Model, p.ID
				}
				if x.Model == "" {
					x.Model = teamCallModel(e)
				}
			}
			return nil
		})
		if errors.Is(err, replay.ErrBinary) {
			return withHint(fmt.Errorf("team blame: %s: %w: it has no lines to blame", rel, err), "`journal team log "+rel+"` lists the events that changed it")
		}
		if err != nil {
			return err
		}
	}
	var ws []string
	for _, w := range mine {
		ws = append(ws, w.ws)
	}
	var r *remote.Repository
	for i, w := range wss {
		if w == top.ws {
			r = repos[i]
		}
	}
	if jsonOut {
		t := top.last.Time
		return json.NewEncoder(a.out).Encode(struct {
			Path       string             `json:"path"`
			Repository *remote.Repository `json:"repository"`
			Version    any                `json:"version"`
			Workspaces []string           `json:"workspaces"`
			Lines      []teamBlameLine    `json:"lines"`
		}{rel, r, struct {
			Workspace string      `json:"workspace"`
			Event     uint64      `json:"event"`
			Time      time.Time   `json:"time"`
			Content   snapshot.ID `json:"content"`
		}{top.ws, top.last.Seq, t, changeOf(top.last, top.key).After}, ws, lines})
	}
	return printTeamBlame(a.out, lines)
}

// repoNamed reports whether --repo names r: a prefix of a root commit
// (at least 4 hex digits) or its URL.
func repoNamed(r *remote.Repository, name string) bool {
	if cleanURL(name) == r.URL && r.URL != "" {
		return true
	}
	for _, x := range r.Roots {
		if len(name) >= 4 && strings.HasPrefix(x, strings.ToLower(name)) {
			return true
		}
	}
	return false
}

// lastChange is the newest event of tx that changed key (nil: none).
func lastChange(tx *journal.Tx, key string) (*journal.Event, error) {
	var found *journal.Event
	errFound := errors.New("found")
	err := tx.Each(tx.Last(), true, func(e *journal.Event) error {
		if e.Status == journal.StatusCommitted && changeOf(e, key) != nil {
			found = e
			return errFound
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFound) {
		return nil, err
	}
	return found, nil
}

// changeOf is e's change of key (nil: none).
func changeOf(e *journal.Event, key string) *journal.FileChange {
	for i := range e.Files {
		if e.Files[i].Path == key {
			return &e.Files[i]
		}
	}
	return nil
}

// printTeamBlame prints the lines as columns: workspace, event, who,
// model, time, line number, then the line.
func printTeamBlame(out io.Writer, lines []teamBlameLine) error {
	w := bufio.NewWriter(out)
	seqW, whoW, modelW := 1, 1, 1
	for _, l := range lines {
		seqW = max(seqW, len(strconv.FormatUint(l.Event, 10)))
		whoW = max(whoW, min(len(l.Who), 24))
		modelW = max(modelW, min(len(l.Model), 20))
	}
	numW := len(strconv.Itoa(len(lines)))
	for _, l := range lines {
		ws, seq, who, when := "-", "-", "(before the journals)", strings.Repeat(" ", 19)
		if l.Time != nil {
			ws, seq, who, when = l.Workspace[:min(8, len(l.Workspace))], strconv.FormatUint(l.Event, 10), l.Who, l.Time.In(zone()).Format("2006-01-02 15:04:05")
		}
		model := l.Model
		if model == "" {
			model = "-"
		}
		fmt.Fprintf(w, "%s %s %s %s %s %*d) %s\n", cDim(pad(ws, 8)), cSeq(fmt.Sprintf("%*s", seqW, seq)), pad(who, whoW), cDim(pad(model, modelW)), cDim(when),
			numW, l.Line, strings.TrimRight(l.Text, "\r\n"))
	}
	return w.Flush()
}
