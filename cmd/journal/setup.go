package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay/setup"
	"github.com/journalfs/journal/replay/watch/agents"
)

func init() {
	extraCommands = append(extraCommands, newInitCmd, newDoctorCmd)
}

// setupEnv is where init and doctor look: the workspace holding the
// journal found (else the current directory, or the first --root), the
// home directory, the binary hooks run.
func (a *app) setupEnv(bin string) (setup.Env, bool, error) {
	found := a.locate() == nil
	e := setup.Env{LookPath: exec.LookPath, Bin: bin}
	if found {
		e.Root, e.Journal = a.wsDir, filepath.Dir(a.jpath)
	} else {
		root := "."
		if len(a.roots) > 0 {
			root = a.roots[0]
		}
		abs, err := filepath.Abs(root)
		if err != nil {
			return e, false, err
		}
		e.Root, e.Journal = abs, filepath.Join(abs, journal.DirName)
	}
	e.Home, _ = os.UserHomeDir()
	e.UserBin = e.Bin
	if e.Bin == "" {
		e.Bin, e.UserBin = "journal", setup.DefaultBin()
	}
	return e, found, nil
}

func newInitCmd() *cobra.Command {
	a := &app{}
	var dryRun, undo, user, noMCP bool
	var bin string
	cmd := &cobra.Command{
		Use:   "init [AGENT...]",
		Short: "Set the coding agents in use up: their hooks and journal's MCP server, merged into their settings",
		Long: `Find the coding agents in use here (their project or user directories, or their commands on PATH),
or take the ones named, and write into their settings (merged with what is there: your hooks, permissions
and key order kept) hooks on every tool call, prompt, subagent, turn and session running ` + "`journal hook AGENT`" + `,
and the MCP server entry ` + "`journal serve`" + ` where the agent lists MCP servers: in the project, in the form
that works from any clone of it (` + "`journal`" + ` found on PATH; no --root where the agent starts the server in the
project, which serve then finds from its working directory; Cursor's ` + "`--root ${workspaceFolder}`" + `), or for Cline
and Windsurf, which list them only in the user's files (for every project), there, with --root naming this
workspace — an entry journal there serving another project is left as it is, with the lines to add. The
project's files never name a path of this machine: when PATH does not find this binary as journal, init says
so (the user's own files run it by its absolute path), and an earlier init's entries naming this machine's
paths are rewritten in the new form. Settings may be JSON with
comments and trailing commas (JSONC): the comments are kept. The journal is made if there is none. A second
run changes nothing.

Files: Claude Code .claude/settings.json and .mcp.json; Codex .codex/hooks.json and .codex/config.toml;
Cursor .cursor/hooks.json and .cursor/mcp.json; Cline .clinerules/hooks/<Event> (executables) and its
cline_mcp_settings.json (the CLI's ~/.cline/data/settings/, the VS Code extension's in VS Code's global
storage); Gemini CLI .gemini/settings.json; Copilot CLI .github/hooks/journal.json and .github/mcp.json;
Windsurf .windsurf/hooks.json and ~/.codeium/windsurf/mcp_config.json; Kiro .kiro/hooks/journal.json and
.kiro/settings/mcp.json. With --user, the hooks go in the user's files instead
(~/.claude/settings.json, ~/.codex/hooks.json, ~/.cursor/hooks.json, ~/Documents/Cline/Hooks,
~/.gemini/settings.json, ~/.copilot/hooks/journal.json, ~/.codeium/windsurf/hooks.json, ~/.kiro/hooks).

What was written is recorded in .journal/init.json; ` + "`journal init --undo`" + ` takes out exactly that (a file
unchanged since gets its bytes back; one you changed since loses only journal's entries).

AGENT is one of: ` + strings.Join(agents.Names(), ", ") + `.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.journalFlag, a.roots = flagString(cmd, "journal"), flagStrings(cmd, "root")
			out := cmd.OutOrStdout()
			e, found, err := a.setupEnv(bin)
			if err != nil {
				return err
			}
			if user {
				e.Scope = setup.User
			}
			e.NoMCP = noMCP
			if undo {
				if len(args) > 0 {
					return usageError{errors.New("--undo takes no AGENT: it takes out everything journal init wrote")}
				}
				changes, rec, err := setup.PlanUndo(e)
				if err != nil {
					return err
				}
				if len(rec.Files) == 0 {
					fmt.Fprintln(out, "nothing to undo: journal init wrote nothing here (or it was undone)")
					return nil
				}
				for _, c := range changes {
					if dryRun {
						fmt.Fprint(out, c.Diff(e))
						continue
					}
					verb := "restored"
					if c.After == nil {
						verb = "removed"
					}
					fmt.Fprintf(out, "%s %s", verb, e.Show(c.Path))
					if c.What != "" {
						fmt.Fprintf(out, " (%s)", c.What)
					}
					fmt.Fprintln(out)
				}
				if dryRun {
					return nil
				}
				return setup.Undo(e, changes, rec)
			}
			var list []*setup.Agent
			for _, n := range args {
				ad, ok := agents.Lookup(n)
				if !ok || setup.Lookup(ad.Name) == nil {
					return usageError{fmt.Errorf("unknown agent %q (%s)", n, strings.Join(agents.Names(), ", "))}
				}
				list = append(list, setup.Lookup(ad.Name))
			}
			if len(args) == 0 {
				if list = setup.Found(e); len(list) == 0 {
					return withHint(errors.New("no coding agent found here (no .claude, .codex, .cursor, .clinerules, .gemini, .github/hooks, .windsurf or .kiro, in this project or your home directory, and none of their commands on PATH)"),
						"name the agent: journal init claude-code")
				}
			}
			changes, warn, err := setup.Plan(e, list)
			if err != nil {
				return err
			}
			for _, w := range warn {
				fmt.Fprintf(cmd.ErrOrStderr(), "journal init: %s\n", w)
			}
			var names []string
			for _, ag := range list {
				names = append(names, ag.Name)
			}
			if len(changes) == 0 {
				fmt.Fprintf(out, "nothing to do: journal's hooks are in place for %s\n", strings.Join(names, ", "))
				return nil
			}
			if dryRun {
				for _, c := range changes {
					fmt.Fprint(out, c.Diff(e))
				}
				return nil
			}
			if !found {
				eng, err := a.openWorkspace(true)
				if err != nil {
					return err
				}
				eng.Close()
				fmt.Fprintf(out, "made the journal %s\n", e.Show(filepath.Join(e.Journal, journal.FileName)))
			}
			if err := setup.Apply(e, changes); err != nil {
				return err
			}
			said := map[string]bool{}
			for _, c := range changes {
				verb := "updated"
				if c.Before == nil {
					verb = "wrote"
				}
				fmt.Fprintf(out, "%s %s: %s\n", verb, e.Show(c.Path), c.What)
				if ag := setup.Lookup(c.Agent); ag != nil && ag.Note != "" && !said[c.Agent] {
					said[c.Agent] = true
					defer fmt.Fprintf(out, "note: %s\n", ag.Note)
				}
			}
			fmt.Fprintln(out, "check with `journal doctor`; take it back with `journal init --undo`")
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&dryRun, "dry-run", false, "print the changes as a diff, write nothing")
	f.BoolVar(&undo, "undo", false, "take out everything journal init wrote here")
	f.BoolVar(&user, "user", false, "write the hooks in the user's files (every project) instead of the project's")
	f.BoolVar(&noMCP, "no-mcp", false, "write the hooks only, not the MCP server entry")
	f.StringVar(&bin, "bin", "", "the journal command hooks and MCP entries run (default: journal in the project's files; in your own files journal if PATH finds this binary, else its absolute path)")
	return cmd
}

func newDoctorCmd() *cobra.Command {
	a := &app{}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Say whether changes are being recorded and named: watcher, agents' hooks, inotify, git notes",
		Long: `Check what recording depends on, and say what to do about each problem: whether a journal is here,
whether a watcher runs (journal serve or journal watch), which agents' hooks are installed and when each
last fired, inotify's max_user_watches against the directories to watch, and in a git repository whether
journal's git notes are installed (journal git install) and which of the agents' settings files git tracks
name a path of this machine or one not on it (a teammate's). Exit status 1 when something needs doing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.journalFlag, a.roots = flagString(cmd, "journal"), flagStrings(cmd, "root")
			e, found, err := a.setupEnv("")
			if err != nil {
				return err
			}
			d := setup.DoctorEnv{Env: e, Now: time.Now(), MaxWatchesFile: os.Getenv("JOURNAL_MAX_WATCHES_FILE")}
			if found {
				d.JournalPath = a.jpath
			}
			checks := setup.Doctor(context.Background(), d)
			out := cmd.OutOrStdout()
			bad := 0
			for _, c := range checks {
				if !c.OK {
					bad++
				}
			}
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				enc.Encode(checks)
			} else {
				for _, c := range checks {
					mark := "ok "
					if !c.OK {
						mark = "!! "
					}
					fmt.Fprintf(out, "%s %-18s %s\n", mark, c.Name, c.Say)
					if c.Fix != "" {
						fmt.Fprintf(out, "    %-18s → %s\n", "", c.Fix)
					}
				}
			}
			if bad > 0 {
				return errFailed
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "the checks as JSON")
	return cmd
}
