package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay/gitai"
	"github.com/journalfs/journal/replay/watch"
	"github.com/journalfs/journal/snapshot"
)

func init() {
	gitCommands = append(gitCommands, newGitNoteCmd, newGitInstallCmd, newGitUninstallCmd, newGitHookCmd)
}

// gitJournal is the journal's side of computing notes in repository r: the
// journal found from the repository's top (as any command finds it), its
// keys, and the flush that records what it has not yet.
func (a *app) gitJournal(r *gitai.Repo) (*gitai.Journal, error) {
	if a.journalFlag != "" { // given relative to where the command was run
		if p, err := filepath.Abs(a.journalFlag); err == nil {
			a.journalFlag = p
		}
	}
	for i, root := range a.roots {
		if p, err := filepath.Abs(root); err == nil {
			a.roots[i] = p
		}
	}
	if err := os.Chdir(r.Top); err != nil {
		return nil, err
	}
	if err := a.locate(); err != nil {
		return nil, err
	}
	return &gitai.Journal{
		View: a.view,
		Key: func(p string) (string, bool) {
			k := a.key(filepath.Join(r.Top, filepath.FromSlash(p)))
			return k, !filepath.IsAbs(k)
		},
		Flush: func(ctx context.Context, keys []string) error {
			_, err := watch.FlushRunning(ctx, a.jpath)
			if !errors.Is(err, watch.ErrNoWatcher) {
				return err
			}
			// No watcher: the files that differ from the journal's heads
			// are recorded through the engine (opened only if one does).
			var differ []string
			err = a.view(func(tx *journal.Tx) error {
				differ = nil
				for _, k := range keys {
					h, known := tx.Head(k)
					data, rerr := os.ReadFile(filepath.Join(a.rootD[0], filepath.FromSlash(k)))
					if !known || rerr != nil || snapshot.Sum(data) != h.ID {
						differ = append(differ, k)
					}
				}
				return nil
			})
			if err != nil || len(differ) == 0 {
				return err
			}
			keys = differ
			eng, err := a.engine()
			if err != nil {
				return err
			}
			defer eng.Close()
			// inside an agent's call (a commit in its Bash call): named
			// for the calls its hooks left open, the rest untracked
			return watch.ObserveOpen(ctx, eng, keys)
		},
	}, nil
}

func newGitNoteCmd(a *app) *cobra.Command {
	var dryRun, jsonOut bool
	var remoteName string
	var remoteWorkspaces []string
	cmd := &cobra.Command{
		Use:   "note [REV... | RANGE]",
		Short: "Compute or refresh the notes of commits (default HEAD), and write the pending ones",
		Long: `note computes, for each commit named (revisions or ranges such as main..topic; default HEAD), the
note of the lines it adds against its first parent, each attributed from the journal's history of
that exact content: an agent's session and tool call, a person who edited through the journal, or
nothing (untracked) where the journal cannot prove it. Notes already there and unchanged are left as
they are; commits the hooks left pending (a busy or missing journal) are written too.
--dry-run prints the notes instead of writing them; --json prints {"commit", "note", "written"} per line.
--remote NAME computes them from the journals of the remote's workspaces (all, or each --workspace),
read from S3 into a temporary directory — every event, and only the contents of the commits' files'
histories; no file is written — instead of this workspace's: a CI job notes a squash merge
made on the server (docs/ci/). A workspace's root is taken to be the repository's top; a line two
workspaces attribute differently is untracked.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			r, err := openRepo(ctx)
			if err != nil {
				return err
			}
			defer r.Close()
			commits, err := gitai.ResolveCommits(ctx, r, args)
			if err != nil {
				return usageError{err}
			}
			if remoteName != "" {
				return a.gitNoteRemote(ctx, r, commits, remoteName, remoteWorkspaces, jsonOut, dryRun)
			}
			j, err := a.gitJournal(r)
			if err != nil {
				return err
			}
			if _, err := gitai.MergeRemotes(ctx, r); err != nil {
				return err
			}
			var res *gitai.NoteResult
			if dryRun {
				res, err = gitai.NoteCommits(ctx, r, *j, commits, true)
			} else {
				res, err = gitai.Flush(ctx, r, *j, commits)
			}
			if err != nil {
				return err
			}
			return printNotes(a.out, commits, res, jsonOut, dryRun)
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the notes, write nothing")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "one JSON object per commit")
	cmd.Flags().StringVar(&remoteName, "remote", "", "compute from the journals of this remote's workspaces (S3)")
	cmd.Flags().StringArrayVar(&remoteWorkspaces, "workspace", nil, "with --remote: only this workspace (repeatable)")
	return cmd
}

func printNotes(out io.Writer, commits []string, res *gitai.NoteResult, jsonOut, dryRun bool) error {
	for c := range res.Notes {
		if !slices.Contains(commits, c) {
			commits = append(commits, c) // a pending one
		}
	}
	for _, c := range commits {
		n := res.Notes[c]
		if n == nil {
			continue
		}
		b, err := gitai.Format(n)
		if err != nil {
			return err
		}
		written := slices.Contains(res.Changed, c)
		switch {
		case jsonOut:
			json.NewEncoder(out).Encode(map[string]any{"commit": c, "note": string(b), "written": written})
		case dryRun:
			fmt.Fprintf(out, "commit %s\n%s\n", c, b)
		case written:
			fmt.Fprintf(out, "%s: note written\n", c[:12])
		default:
			fmt.Fprintf(out, "%s: note unchanged\n", c[:12])
		}
	}
	return nil
}

func openRepo(ctx context.Context) (*gitai.Repo, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	r, err := gitai.OpenRepo(ctx, wd)
	if err != nil {
		return nil, withHint(err, "run it inside a git repository")
	}
	return r, nil
}

func newGitInstallCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "install",
		Short: "Install the hooks that note every commit, chained after the repository's own hooks",
		Long: `install makes git run, after the hooks this repository already has (.git/hooks, husky's, the
pre-commit framework's, or any core.hooksPath), journal's post-commit, post-rewrite, post-merge and
pre-push hooks, which write every new commit's note under refs/notes/ai and push and fetch the notes
beside what git pushes and fetches. No hook file of yours is changed: core.hooksPath points at a
directory under .git/journal whose scripts run yours first. ` + "`journal git uninstall`" + ` takes it back.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := openRepo(cmd.Context())
			if err != nil {
				return err
			}
			bin, err := os.Executable()
			if err != nil {
				bin = "journal"
			}
			rep, err := gitai.Install(cmd.Context(), r, bin)
			if err != nil {
				return err
			}
			if rep.Already {
				fmt.Fprintln(a.out, "already installed")
				return nil
			}
			fmt.Fprintf(a.out, "hooks installed in %s (running %s first)\n", rep.HooksDir, rep.Chained)
			if len(rep.Remotes) > 0 {
				fmt.Fprintf(a.out, "fetching notes from %s\n", strings.Join(rep.Remotes, ", "))
			}
			return nil
		},
	}
}

func newGitUninstallCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "uninstall",
		Short: "Take back what journal git install did (hooks and config as they were; the notes stay)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := openRepo(cmd.Context())
			if err != nil {
				return err
			}
			rep, err := gitai.Uninstall(cmd.Context(), r)
			if err != nil {
				return err
			}
			if rep.Already {
				fmt.Fprintln(a.out, "not installed")
				return nil
			}
			fmt.Fprintf(a.out, "hooks uninstalled (git runs %s again)\n", rep.Chained)
			return nil
		},
	}
}

// gitHookBudget bounds a hook's own work, so that git (and whoever waits
// on it) never waits long for a note: past it the commits stay pending
// (written by the next hook or `journal git note`). A push's hook talks to
// the remote (it fetches and pushes the notes), so it gets a network's
// time; the others only read the journal and write local refs.
func gitHookBudget(name string) time.Duration {
	if name == "pre-push" {
		return 20 * time.Second
	}
	return 3 * time.Second
}

func newGitHookCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:    "hook NAME [ARGS...]",
		Short:  "Run journal's part of a git hook (the installed hooks call it); always exits 0",
		Hidden: true,
		Args:   cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// What the journal says while it waits (another process's
			// lock) is not for git's output: the one line below is.
			stderr := os.Stderr
			if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
				os.Stderr = null
				defer func() { os.Stderr = stderr; null.Close() }()
			}
			if err := runGitHook(a, args[0], args[1:]); err != nil {
				fmt.Fprintf(stderr, "journal git: %s: %v (the note is pending: the next commit or `journal git note` writes it)\n", args[0], oneLine(err))
			}
			return nil
		},
	}
}

func runGitHook(a *app, name string, args []string) error {
	in := gitai.HookIO{Args: args}
	if name == "post-rewrite" || name == "pre-push" {
		data, err := io.ReadAll(io.LimitReader(os.Stdin, 64<<20))
		if err != nil {
			return err
		}
		in.Stdin = data
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitHookBudget(name))
	defer cancel()
	r, err := gitai.OpenHookRepo(ctx, ".")
	if err != nil {
		return err
	}
	defer r.Close()
	j, jerr := a.gitJournal(r)
	if jerr != nil {
		j = nil
	}
	done := make(chan error, 1)
	go func() { done <- gitai.Hook(ctx, r, name, in, j) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		err = fmt.Errorf("gave up after %s", gitHookBudget(name))
	}
	if err == nil && jerr != nil && name != "pre-push" {
		if p, _ := gitai.Pending(r); len(p) > 0 {
			err = jerr
		}
	}
	return err
}

// oneLine is err's message on one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
