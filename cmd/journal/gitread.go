package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote"
	"github.com/journalfs/journal/replay/gitai"
	"github.com/spf13/cobra"
)

func init() {
	gitCommands = append(gitCommands, newGitShowCmd, newGitBlameCmd, newGitStatsCmd, newGitTraceCmd)
}

// gitReader is the reader of the repository the command runs in.
func grReader() (gitai.Reader, error) {
	wd, err := os.Getwd()
	return gitai.Reader{Dir: wd}, err
}

// gitError gives a git failure its hint.
func grError(err error) error {
	var ge *gitai.GitError
	switch {
	case errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository"):
		return withHint(errors.New("not in a git repository"), "run it inside the repository's work tree")
	case errors.As(err, &ge) && strings.Contains(ge.Stderr, "no such path"):
		return withHint(errors.New(strings.TrimSpace(ge.Stderr)), "name a file as it is at that revision (`git ls-tree -r --name-only REV`)")
	case errors.As(err, &ge) && (strings.Contains(ge.Stderr, "unknown revision") || strings.Contains(ge.Stderr, "Needed a single revision") || strings.Contains(ge.Stderr, "bad revision") || strings.Contains(ge.Stderr, "ambiguous argument")):
		return withHint(err, "name a commit: a hash, a branch, HEAD~2, or a range A..B")
	case errors.Is(err, gitai.ErrNoNote):
		return withHint(err, "`git log --notes=ai` shows which commits have one; `journal git note REV` computes it")
	}
	return err
}

func grJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func grShort(h string) string {
	if len(h) > 10 {
		return h[:10]
	}
	return h
}

// authorLine is an author in one line, with its session and trace.
func grAuthor(a gitai.Author) string {
	switch a.Kind {
	case gitai.KindAgent:
		s := a.String()
		if a.Trace != "" {
			s += " (" + a.Session + ", tool call " + a.Trace + ")"
		} else if a.Session != "" {
			s += " (" + a.Session + ")"
		}
		if a.Prompt != "" {
			s += " prompt " + strconv.Quote(a.Prompt)
		}
		return s
	case gitai.KindHuman:
		return a.String()
	}
	return "untracked"
}

func newGitShowCmd(a *app) *cobra.Command {
	var jsonOut, raw bool
	cmd := &cobra.Command{
		Use:   "show [REV]",
		Short: "Show a commit's note (refs/notes/ai) readably: who wrote which lines it adds",
		Long: `show prints the Git AI note of REV (default HEAD): per file, the lines it adds, by range, with who
wrote them — an agent (tool, model, session, the tool call's trace id, the prompt when the note has
one) or a known person — and how many added lines no entry names (untracked: nothing is known of
them); then the note's sessions and people.

--raw prints the note exactly as stored. --json prints {"commit", "summary", "files": [{"path",
"added", "agent", "human", "untracked", "ranges": [{"start", "end", "author"}]}], "metadata",
"added", "agent", "human", "untracked"}; an author is {"kind": "agent"|"human", "key", "session",
"trace", "tool", "session_id", "model", "human_author", "prompt", "custom_attributes", "person"}.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if jsonOut && raw {
				return usageError{errors.New("--json and --raw are alternatives")}
			}
			rev := "HEAD"
			if len(args) == 1 {
				rev = args[0]
			}
			r, err := grReader()
			if err != nil {
				return err
			}
			res, err := r.Show(context.Background(), rev)
			if err != nil {
				return grError(err)
			}
			switch {
			case raw:
				_, err := a.out.Write(res.Raw)
				return err
			case jsonOut:
				return grJSON(a.out, res)
			}
			printGitShow(a.out, res)
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	cmd.Flags().BoolVar(&raw, "raw", false, "print the note as stored")
	return cmd
}

func grPercent(n, of int) string {
	if of == 0 {
		return "0%"
	}
	return strconv.FormatFloat(100*float64(n)/float64(of), 'f', 1, 64) + "%"
}

func printGitShow(out io.Writer, res *gitai.ShowResult) {
	fmt.Fprintf(out, "commit %s %s\n", res.Commit, res.Summary)
	fmt.Fprintf(out, "%d lines added: %d by agents (%s), %d by people, %d untracked\n",
		res.Added, res.Agent, grPercent(res.Agent, res.Added), res.Human, res.Untracked)
	for _, f := range res.Files {
		fmt.Fprintf(out, "\n%s  (%d added: %d agent, %d human, %d untracked)\n", f.Path, f.Added, f.Agent, f.Human, f.Untracked)
		for _, rg := range f.Ranges {
			lines := strconv.Itoa(rg.Start)
			if rg.End != rg.Start {
				lines += "-" + strconv.Itoa(rg.End)
			}
			fmt.Fprintf(out, "  %-9s %s\n", lines, grAuthor(rg.Author))
		}
	}
	if len(res.Meta.Sessions) > 0 || len(res.Meta.Humans) > 0 {
		fmt.Fprintln(out, "\nsessions")
		for _, k := range grKeys(res.Meta.Sessions) {
			s := res.Meta.Sessions[k]
			line := fmt.Sprintf("  %s  %s  %s", k, s.AgentID.Tool, s.AgentID.ID)
			if s.AgentID.Model != "" {
				line += "  " + s.AgentID.Model
			}
			if s.HumanAuthor != "" {
				line += "  run by " + s.HumanAuthor
			}
			fmt.Fprintln(out, line)
			for _, ak := range grKeys(s.CustomAttributes) {
				fmt.Fprintf(out, "      %s: %s\n", ak, strconv.Quote(s.CustomAttributes[ak]))
			}
		}
		for _, k := range grKeys(res.Meta.Humans) {
			fmt.Fprintf(out, "  %s  %s\n", k, res.Meta.Humans[k].Author)
		}
	}
}

func newGitBlameCmd(a *app) *cobra.Command {
	var jsonOut, porcelain bool
	cmd := &cobra.Command{
		Use:   "blame FILE [REV]",
		Short: "Show, for every line of a file at a commit, the commit that last changed it and who wrote it by its note",
		Long: `blame runs git blame on FILE at REV (default HEAD) and reads, for each line, the Git AI note of the
commit that last changed it: the note's entry for that line in that commit's version of the file
(renames followed as git blame follows them). A line is an agent's (tool, model, session, the tool
call's trace id, the prompt when the note has one), a known person's, or untracked: its commit has
no note ("no note"), or the note names nobody for it. Notes are read with one git cat-file process.
When this workspace has a journal holding the tool call a trace id names, the line names its event
("#42 edit_file"); otherwise the trace id.

--porcelain prints, for each line, "<commit> <orig-line> <line> <kind> <key>" (kind agent, human,
untracked or no-note; key "-" when none), then, the first time a commit's file or a key appears,
"path <file in that commit>", "tool", "session-id", "model", "human-author", "prompt" or "person"
lines (quoted), and "call <event> <tool>" where the journal holds the tool call, then the line
itself after a tab.
--json prints {"path", "rev", "lines": [{"line", "commit", "path", "orig_line", "noted", "author",
"text"}], "commits": {hash: {"author", "author_mail", "author_time", "summary"}}, "unreadable"}.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if jsonOut && porcelain {
				return usageError{errors.New("--json and --porcelain are alternatives")}
			}
			rev := "HEAD"
			if len(args) == 2 {
				rev = args[1]
			}
			r, err := grReader()
			if err != nil {
				return err
			}
			res, err := r.Blame(context.Background(), args[0], rev)
			if err != nil {
				return grError(err)
			}
			for c, why := range res.Unreadable {
				fmt.Fprintf(a.errOut, "journal: %s: %s (its lines are untracked)\n", grShort(c), why)
			}
			if tr := res.Traces(); len(tr) > 0 && a.locate() == nil {
				// the tool calls, where this workspace's journal holds them
				// (a missing or busy journal only leaves them out)
				a.view(func(tx *journal.Tx) error {
					if calls, err := gitai.FindCalls(tx, tr); err == nil {
						res.AttachCalls(calls)
					}
					return nil
				})
			}
			switch {
			case jsonOut:
				return grJSON(a.out, res)
			case porcelain:
				return printGitBlamePorcelain(a.out, res)
			}
			a.startPager()
			return printGitBlame(a.out, res)
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	cmd.Flags().BoolVar(&porcelain, "porcelain", false, "print a stable format for scripts")
	return cmd
}

// blameWho is a line's author column.
func grWho(l gitai.BlameLine) string {
	switch {
	case !l.Noted && l.Author.Kind == gitai.KindUntracked:
		return "no note"
	case l.Author.Kind == gitai.KindAgent:
		s := l.Author.String()
		if c := l.Author.Call; c != nil {
			s += fmt.Sprintf(" #%d %s", c.Event, c.Tool)
		} else if l.Author.Trace != "" {
			s += " " + l.Author.Trace
		}
		return s
	}
	return l.Author.String()
}

func printGitBlame(out io.Writer, res *gitai.BlameResult) error {
	width, numw := 0, len(strconv.Itoa(len(res.Lines)))
	who := make([]string, len(res.Lines))
	for i, l := range res.Lines {
		who[i] = grWho(l)
		width = max(width, len(who[i]))
	}
	w := bufio.NewWriter(out)
	for i, l := range res.Lines {
		fmt.Fprintf(w, "%s %-*s %*d) %s\n", grShort(l.Commit), width, who[i], numw, l.Line, l.Text)
	}
	return w.Flush()
}

func printGitBlamePorcelain(out io.Writer, res *gitai.BlameResult) error {
	w := bufio.NewWriter(out)
	seenPath := map[string]bool{}
	seenKey := map[string]bool{}
	for _, l := range res.Lines {
		kind, key := l.Author.Kind, l.Author.Key
		if !l.Noted && kind == gitai.KindUntracked {
			kind = "no-note"
		}
		if key == "" {
			key = "-"
		}
		fmt.Fprintf(w, "%s %d %d %s %s\n", l.Commit, l.OrigLine, l.Line, kind, key)
		if pk := l.Commit + "\x00" + l.Path; !seenPath[pk] {
			seenPath[pk] = true
			fmt.Fprintf(w, "path %s\n", strconv.Quote(l.Path))
		}
		if dk := l.Commit + "\x00" + key; key != "-" && !seenKey[dk] {
			seenKey[dk] = true
			au := l.Author
			for _, kv := range [][2]string{{"tool", au.Tool}, {"session-id", au.ID}, {"model", au.Model},
				{"human-author", au.Directed}, {"prompt", au.Prompt}, {"person", au.Person}} {
				if kv[1] != "" {
					fmt.Fprintf(w, "%s %s\n", kv[0], strconv.Quote(kv[1]))
				}
			}
			if c := au.Call; c != nil {
				fmt.Fprintf(w, "call %d %s\n", c.Event, strconv.Quote(c.Tool))
			}
		}
		fmt.Fprintf(w, "\t%s\n", l.Text)
	}
	return w.Flush()
}

func newGitStatsCmd(a *app) *cobra.Command {
	var jsonOut, markdown bool
	cmd := &cobra.Command{
		Use:   "stats [RANGE...]",
		Short: "Count, per commit and in total, the lines agents, people and nobody known added, from the notes",
		Long: `stats reads the Git AI notes of the commits of RANGE (revisions as git log takes them, e.g. main..topic
or v1.0..; default HEAD: all of its history) and prints, per commit (newest first) and in total: lines
added (git log --numstat, renames followed), by agents (in total per tool, model and session), by
known people, and untracked (added lines no entry names, and all of a commit's lines without a note);
the share of added lines by agents; and the agent lines that survived.

An agent line of commit C survived when, at the tip (the range's newest revision), git blame (limited
to the range) attributes a line to C at that same line of C's version of the file: the line reached
the tip unchanged, so it is still the same session's. Lines edited, deleted, or moved to another file
since C do not count. A merge adds only what its note names (git shows no diff for a merge).

--json prints {"range", "tip", "commits": [{"commit", "summary", "time", "noted", "added", "agent",
"human", "untracked", "agent_survived", "sessions": [{"session", "tool", "session_id", "model",
"lines", "survived"}], "prompts": [{"prompt", "session", "lines", "survived"}]}], "total": {"commits",
"noted", "added", "agent", "human", "untracked", "agent_percent", "agent_survived", "survived_percent",
"tools", "models", "sessions", "prompts"}}; a prompt is its id, as the notes name the prompt each tool
call served.

--markdown prints the summary a CI step posts on a pull request (journal git stats --markdown
BASE..HEAD): a table of the lines added by agent and model, people and untracked, with their share;
the agent lines that survived review (reached the tip unchanged) and those changed or removed
within the range; the sessions, and the prompts with the start of their text (secrets masked)
where this workspace's journal records them, else their ids. docs/ci/github-actions-journal-report.yml
posts it.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if jsonOut && markdown {
				return usageError{errors.New("--json and --markdown are alternatives")}
			}
			r, err := grReader()
			if err != nil {
				return err
			}
			st, err := r.Stats(context.Background(), args...)
			if err != nil {
				return grError(err)
			}
			for c, why := range st.Unreadable {
				fmt.Fprintf(a.errOut, "journal: %s: %s (counted as without a note)\n", grShort(c), why)
			}
			switch {
			case jsonOut:
				return grJSON(a.out, st)
			case markdown:
				return printGitStatsMarkdown(a.out, st, a.grPromptTexts(st))
			}
			a.startPager()
			return printGitStats(a.out, st)
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print a pull request's summary in GitHub Markdown")
	return cmd
}

func printGitStats(out io.Writer, st *gitai.Stats) error {
	w := bufio.NewWriter(out)
	fmt.Fprintf(w, "%-10s %6s %6s %6s %9s %7s %8s  %s\n", "commit", "added", "agent", "human", "untracked", "agent%", "survived", "summary")
	for _, c := range st.Commits {
		mark := ""
		if !c.Noted {
			mark = " (no note)"
		}
		fmt.Fprintf(w, "%-10s %6d %6d %6d %9d %7s %8d  %s%s\n", grShort(c.Commit), c.Added, c.Agent, c.Human, c.Untracked,
			grPercent(c.Agent, c.Added), c.Survived, c.Summary, mark)
	}
	t := st.Total
	fmt.Fprintf(w, "\n%d commits (%d with a note), %d lines added: %d by agents (%s), %d by people, %d untracked\n",
		t.Commits, t.Noted, t.Added, t.Agent, grPercent(t.Agent, t.Added), t.Human, t.Untracked)
	fmt.Fprintf(w, "agent lines that reached %s unchanged: %d of %d (%s)\n", grShort(st.Tip), t.Survived, t.Agent, grPercent(t.Survived, t.Agent))
	groups := func(title string, gs []gitai.Group) {
		if len(gs) == 0 {
			return
		}
		var parts []string
		for _, g := range gs {
			name := g.Name
			if name == "" {
				name = "(unnamed)"
			}
			parts = append(parts, fmt.Sprintf("%s %d (%d survived)", name, g.Lines, g.Survived))
		}
		fmt.Fprintf(w, "%-9s %s\n", title, strings.Join(parts, ", "))
	}
	groups("by tool", t.Tools)
	groups("by model", t.Models)
	if len(t.Sessions) > 0 {
		fmt.Fprintln(w, "by session")
		for _, s := range t.Sessions {
			name := strings.TrimSpace(strings.Join([]string{s.Tool, s.ID, s.Model}, " "))
			fmt.Fprintf(w, "  %s  %s: %d lines, %d survived\n", s.Session, name, s.Lines, s.Survived)
		}
	}
	return w.Flush()
}

func newGitTraceCmd(a *app) *cobra.Command {
	var pretty bool
	cmd := &cobra.Command{
		Use:   "trace [REV...]",
		Short: "Print Agent Trace v0.1.0 records of commits, from their notes",
		Long: `trace prints, for each REV (default HEAD), an Agent Trace record (cursor/agent-trace, v0.1.0; its
schema's "version" is major.minor, "0.1") built from the commit's Git AI note, one JSON object per
line (--pretty: indented). Each attestation key is a conversation: an agent's session and tool call
(contributor "ai" and its model; related "urn:git-ai:session:s_…" and "urn:git-ai:trace:t_…") or a
known person (contributor "human"); each range has content_hash "sha256:<hex>" of its lines at the
commit (each with its "\n"). vcs.revision is the commit, timestamp its committer time (UTC), and
the id a UUID derived from the commit and the note, so a note always gives the same record. The
note's sessions and people are under metadata."dev.journal". Untracked lines are not listed.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"HEAD"}
			}
			r, err := grReader()
			if err != nil {
				return err
			}
			recs, err := r.Trace(context.Background(), gitai.TraceOptions{Generator: "journal " + binVersion()}, args...)
			if err != nil {
				return grError(err)
			}
			enc := json.NewEncoder(a.out)
			if pretty {
				enc.SetIndent("", "  ")
			}
			for _, rec := range recs {
				if err := enc.Encode(rec); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&pretty, "pretty", false, "indent each record")
	return cmd
}

func grKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// gitRemoteJournals clones the workspaces of remote name (only those of
// workspaces when given) into a temporary directory and returns their
// journals for gitai.ComputeAll, and what removes them. A workspace's root
// is taken to be the repository's top: its journal's keys are the
// repository's paths. Each clone holds the contents of paths' histories
// alone (remote.CloneOptions.Paths) and writes no file.
func (a *app) gitRemoteJournals(ctx context.Context, name string, workspaces, paths []string) ([]gitai.Journal, func(), error) {
	s, err := openRemote(ctx, name)
	if err != nil {
		return nil, nil, remoteErr(err)
	}
	if len(workspaces) == 0 {
		if workspaces, err = s.Workspaces(ctx); err != nil {
			return nil, nil, remoteErr(err)
		}
	}
	if len(workspaces) == 0 {
		return nil, nil, withHint(fmt.Errorf("remote %s holds no workspace", name), "`journal push "+name+"` from the workspace the agents worked in")
	}
	tmp, err := os.MkdirTemp("", "journal-git-remote-")
	if err != nil {
		return nil, nil, err
	}
	var opened []*journal.Journal
	cleanup := func() {
		for _, j := range opened {
			j.Close()
		}
		os.RemoveAll(tmp)
	}
	var js []gitai.Journal
	for i, ws := range workspaces {
		dir := filepath.Join(tmp, strconv.Itoa(i))
		if _, err := remote.Clone(ctx, s, ws, dir, remote.CloneOptions{Paths: paths}); err != nil {
			cleanup()
			return nil, nil, remoteErr(err)
		}
		j, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{})
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		opened = append(opened, j)
		js = append(js, gitai.Journal{View: j.View, Key: func(p string) (string, bool) { return p, true }})
	}
	fmt.Fprintf(a.errOut, "journal: read %d workspace(s) of %s\n", len(js), name)
	return js, cleanup, nil
}

// gitNoteRemote is `journal git note --remote`: the notes of commits from
// the remote's journals, merged with the repository's remotes' notes and
// written (WriteNotes), or printed with dryRun.
func (a *app) gitNoteRemote(ctx context.Context, r *gitai.Repo, commits []string, name string, workspaces []string, jsonOut, dryRun bool) error {
	// only what the commits' notes read: their files' histories
	paths, err := gitai.NotePaths(ctx, r, commits)
	if err != nil {
		return err
	}
	js, cleanup, err := a.gitRemoteJournals(ctx, name, workspaces, append([]string{}, paths...))
	if err != nil {
		return err
	}
	defer cleanup()
	if _, err := gitai.MergeRemotes(ctx, r); err != nil {
		return err
	}
	notes, err := gitai.ComputeAll(ctx, r, js, commits)
	if err != nil {
		return err
	}
	res := &gitai.NoteResult{Notes: notes}
	if !dryRun && len(notes) > 0 {
		if res.Changed, err = gitai.WriteNotes(context.WithoutCancel(ctx), r, notes); err != nil {
			return err
		}
	}
	return printNotes(a.out, commits, res, jsonOut, dryRun)
}
