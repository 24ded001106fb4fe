package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/replay/setup"
	"github.com/journalfs/journal/replay/watch"
	"github.com/journalfs/journal/replay/watch/agents"
)

func init() {
	extraCommands = append(extraCommands, newHookCmd)
}

// hookBudget bounds a hook's work: an agent waits for its hook, and a
// journal that is damaged, locked by a long batch or on a hung disk must
// not hold it. A watcher asked in time finishes the call's event itself.
const hookBudget = 1500 * time.Millisecond

// isHookCall reports whether args run journal hook: whatever goes wrong
// then, journal exits 0 and writes nothing on stdout (exit 2 is "block this
// call" to Claude Code, Codex, Cursor, Gemini CLI, Windsurf and Kiro, and
// stdout goes into some agents' context).
func isHookCall(root *cobra.Command, args []string) bool {
	c, _, err := root.Find(args)
	return err == nil && c != nil && c.Name() == "hook"
}

// runHookCall runs journal hook: help and errors on stderr, a panic
// reported there, exit 0 always.
func runHookCall(root *cobra.Command, args []string, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "journal hook: internal error: %v (the call goes on)\n", r)
			code = 0
		}
	}()
	root.SetArgs(args)
	root.SetOut(stderr)
	root.SetErr(stderr)
	if err := root.Execute(); err != nil {
		fmt.Fprintf(stderr, "journal hook: %s (the call goes on)\n", strings.TrimSuffix(cleanMessage(err), " (see `journal hook --help`)"))
	}
	return 0
}

func newHookCmd() *cobra.Command {
	a := &app{out: os.Stderr, errOut: os.Stderr}
	var event, agent string
	cmd := &cobra.Command{
		Use:   "hook AGENT",
		Short: "Record a coding agent's tool calls as events naming them (the agent's command hooks)",
		Long: `Read the JSON an agent's hook sends on stdin and record the changes each tool call makes as one
event naming the agent, its session, the call, its input, and where the agent says them the model, the
prompt's id and the subagent. A before-hook (PreToolUse, beforeShellExecution, BeforeTool, pre_run_command,
...) records what changed before the call as the watcher's own changes and opens the call; its after-hook
(PostToolUse, PostToolUseFailure, afterShellExecution, AfterTool, ...) records what changed since, named for
the call. A prompt's hook (UserPromptSubmit, beforeSubmitPrompt, BeforeAgent, userPromptSubmitted,
pre_user_prompt) closes the session's calls whose after-hook never came and records the prompt — its
text, id, agent, model and session — as a prompt event that changes no file, after what changed before
it; the session's events until its next prompt are that prompt's (journal log --prompts, journal undo
--prompt P, journal restore --before-prompt P). Other events (sessions, turns) record nothing, but
close the calls of their session whose after-hook never came; so does the agent's process ending (a
before-hook records the pid and start time of the process that ran it) and the call's tool's time
limit. What changed while such a call was open is tied to no one (the watcher's event lists it under
"unproven", "closed": "exited", "prompt", "stop", "session-end" or "timeout"). A file-edit call (Write,
Edit, ...) claims only the file its input names. journal init writes these hooks for the agents in use.

AGENT is one of: ` + strings.Join(agents.Names(), ", ") + `
(also claude, codex-cli, gemini-cli, copilot-cli, kiro-cli). For Claude Code, in .claude/settings.json:

  {"hooks": {
    "PreToolUse":         [{"matcher": "*", "hooks": [{"type": "command", "command": "journal hook claude-code"}]}],
    "PostToolUse":        [{"matcher": "*", "hooks": [{"type": "command", "command": "journal hook claude-code"}]}],
    "PostToolUseFailure": [{"matcher": "*", "hooks": [{"type": "command", "command": "journal hook claude-code"}]}],
    "UserPromptSubmit":   [{"hooks": [{"type": "command", "command": "journal hook claude-code"}]}],
    "SessionStart":       [{"hooks": [{"type": "command", "command": "journal hook claude-code"}]}]}}

With journal serve or journal watch running the call's window is the watcher's; without, the hook walks
the workspace itself. It never blocks the agent: it exits 0 whatever happens (a bad command line, an
unknown agent, input that is not JSON, a damaged or busy journal), writes nothing on stdout, says why on
stderr, and returns within about 2 seconds.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if agent != "" {
				args = append([]string{agent}, args...)
			}
			if len(args) != 1 {
				return fmt.Errorf("want one AGENT (%s), got %d arguments", strings.Join(agents.Names(), ", "), len(args))
			}
			if _, ok := agents.Lookup(args[0]); !ok {
				return fmt.Errorf("unknown agent %q (%s)", args[0], strings.Join(agents.Names(), ", "))
			}
			a.journalFlag, a.roots = flagString(cmd, "journal"), flagStrings(cmd, "root")
			done := make(chan error, 1)
			go func() {
				defer func() { // a panic here would exit 2: "block this call"
					if r := recover(); r != nil {
						done <- fmt.Errorf("internal error: %v", r)
					}
				}()
				done <- runHook(a, args[0], event, os.Stdin)
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(hookBudget):
				err = fmt.Errorf("gave up after %v (the journal or its watcher is busy, or the journal damaged)", hookBudget)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "journal hook: %v (the call goes on; its changes are recorded by the next watcher or hook)\n", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent, instead of the argument AGENT")
	cmd.Flags().StringVar(&event, "event", "", "the event's name, for agents whose payloads do not carry it (Copilot CLI's camelCase hooks)")
	return cmd
}

// recordPrompt records a prompt's hook: through the running watcher, else
// in this process; the session's later calls then name it (Remember).
func recordPrompt(a *app, wdir string, h agents.Hook) error {
	if h.Call.Session == "" {
		return errors.New("the prompt's hook names no session: not recorded")
	}
	actor := replay.CLIActor()
	h.Call.User, h.Call.Host = actor.User, actor.Host
	p := watch.PromptRecord{Call: h.Call, Text: h.Text, Event: h.Event}
	ctx, cancel := context.WithTimeout(context.Background(), hookBudget)
	defer cancel()
	_, err := watch.AskPrompt(ctx, wdir, p)
	if errors.Is(err, watch.ErrNoWatcher) {
		var eng *replay.Engine
		if eng, err = a.engine(); err != nil {
			return err
		}
		defer eng.Close()
		_, err = watch.RecordPrompt(ctx, eng, p)
	}
	if _, merr := agents.Remember(wdir, h); err == nil {
		err = merr
	}
	return err
}

// runHook reads one hook's payload from in and records what it says.
func runHook(a *app, agent, event string, in *os.File) (err error) {
	if term.IsTerminal(int(in.Fd())) {
		return errors.New("reads the JSON an agent's hook sends on stdin (nothing to read from a terminal)")
	}
	raw, err := io.ReadAll(io.LimitReader(in, 16<<20))
	if err != nil {
		return fmt.Errorf("reading the hook's input: %w", err)
	}
	h, err := agents.Parse(agent, raw, event)
	if err != nil {
		return err
	}
	if a.journalFlag == "" && len(a.roots) == 0 && h.Dir != "" {
		if err := os.Chdir(h.Dir); err != nil {
			return err
		}
	}
	if err := a.locate(); err != nil {
		if errors.Is(err, errNoJournal) {
			return nil // not a journaled workspace: nothing to record
		}
		return err
	}
	wdir := filepath.Join(filepath.Dir(a.jpath), "watch")
	setup.Fired(wdir, h.Call.Agent, h.Event)
	if h.Op == agents.Other {
		if _, err := agents.Remember(wdir, h); err != nil {
			return err
		}
		if reason := agents.Closes(h); reason != "" {
			if err := errors.Join(watch.CloseMCPSessions(wdir, h.Call.Agent, h.Call.Session),
				watch.CloseOpenSessions(wdir, h.Call.Agent, h.Call.Session)); err != nil {
				return err
			}
			// the session's calls still open get no after-hook: the
			// watcher closes them (without one, nothing is open)
			ctx, cancel := context.WithTimeout(context.Background(), hookBudget)
			defer cancel()
			if _, err := watch.HandTurn(ctx, wdir, h.Call, reason); !errors.Is(err, watch.ErrNoWatcher) {
				return err
			}
		}
		return nil
	}
	agents.Recall(wdir, &h)
	if h.Op == agents.Prompt {
		return errors.Join(watch.CloseMCPSessions(wdir, h.Call.Agent, h.Call.Session),
			watch.CloseOpenSessions(wdir, h.Call.Agent, h.Call.Session), recordPrompt(a, wdir, h))
	}
	for i, f := range h.Call.Files {
		if abs, err := filepath.Abs(f); err == nil {
			h.Call.Files[i] = abs
		}
	}
	actor := replay.CLIActor()
	h.Call.User, h.Call.Host = actor.User, actor.Host
	if h.Op == agents.Begin {
		// the agent's process: once it is gone, so is the call's window
		h.Call.Proc = watch.AgentProc()
	}
	if wd, err := os.Getwd(); err == nil { // the agent's directory (h.Dir), or the hook's
		h.Call.Dir = wd
	}
	noted := mcpNote(wdir, h) // its failure leaves the call to the watcher or the walk, as any call's
	defer func() { err = errors.Join(err, noted) }()
	ctx, cancel := context.WithTimeout(context.Background(), hookBudget)
	defer cancel()
	// handed over: the watcher answers once it has taken and read what
	// changed, and stores it after answering
	ask, alone := watch.HandBegin, watch.Begin
	if h.Op == agents.End {
		ask, alone = watch.HandEnd, watch.End
	}
	// the running watcher first: the journal is not opened (nor its lock
	// waited for) when one answers
	if _, err := ask(ctx, wdir, h.Call); !errors.Is(err, watch.ErrNoWatcher) {
		return err
	}
	// no watcher: this process walks the tree itself, allocating per
	// file; fewer collections for a process that lives a tenth of a second
	debug.SetGCPercent(400)
	eng, err := a.engine()
	if err != nil {
		return err
	}
	defer eng.Close()
	_, err = alone(ctx, eng, h.Call)
	return err
}

// mcpNote leaves, for a call of an MCP tool, the note of the open call the
// MCP server's event of it names (watch.OpenMCP: one small file, with or
// without a watcher), and takes it away once the call is over. The agent
// names the tool and its arguments in the call (Claude Code's
// mcp__SERVER__TOOL), or its adapter says them (h.MCP: Cline's, Copilot
// CLI's).
func mcpNote(wdir string, h agents.Hook) error {
	m := watch.MCPCall{Tool: h.Call.Tool, Args: h.Call.Input}
	if h.MCP != nil {
		m = *h.MCP
	}
	if !watch.IsMCPTool(m.Tool) {
		return nil
	}
	if h.Op == agents.End {
		return watch.CloseMCP(wdir, h.Call)
	}
	return watch.OpenMCPCall(wdir, h.Call, m, time.Now())
}
