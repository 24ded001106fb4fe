package setup

import (
	"path/filepath"
	"slices"
	"strings"
)

// Scope is where an agent's hooks are written: the project's files (the
// default) or the user's (--user), which every project of theirs runs.
type Scope int

const (
	Project Scope = iota
	User
)

func (s Scope) String() string {
	if s == User {
		return "user"
	}
	return "project"
}

// Agent is what init writes for one coding agent (paths and events from
// ../shared/agents/*.md: each agent's hooks reference).
type Agent struct {
	Name string // the adapter's name: journal hook NAME
	// Marks say the agent is in use: directories relative to the project
	// (Project) or to the home directory (User), and executables on PATH.
	ProjectMarks, UserMarks, Bins []string
	// HookFile is the file its hooks go in, relative to the project or to
	// the home directory; for Cline, the hooks directory.
	HookFile map[Scope]string
	// hooks adds the agent's hooks to the file's tree (nil for Cline,
	// whose hooks are executables, see ClineHooks).
	hooks func(root *node, cmd string) error
	// MCPFile is the project's file its MCP servers are listed in, "" when
	// the agent has none there.
	MCPFile string
	// MCPUserFiles are, for an agent that lists its MCP servers only in
	// the user's files (Cline, Windsurf), those files: each is written
	// when the agent's directory beside it (Mark) is there.
	MCPUserFiles []UserFile
	// ProjectRoot is the --root the project's MCP entry gives journal
	// serve, in the form that holds in every clone: "" for none (the agent
	// starts its stdio servers in the project: serve finds the workspace
	// from its working directory), or the variable the agent expands to
	// the workspace (Cursor's ${workspaceFolder}: it starts them in /).
	// The user's files (MCPUserFiles), which serve every project from one
	// machine, name the workspace's absolute path.
	ProjectRoot string
	// mcp adds the entry running bin serve (with --root wsRoot unless "").
	mcp func(root *node, bin, wsRoot string) error
	// Note is what the user must still do, said once the files are written.
	Note string
}

// UserFile is a file of the user's, relative to the home directory, and the
// directory whose presence says the agent keeps its settings there.
type UserFile struct{ File, Mark string }

// clineStorage is where the Cline VS Code extension keeps its settings,
// under the home directory (Linux, macOS).
const clineStorage = "Code/User/globalStorage/saoudrizwan.claude-dev"

// ClineHooks are the executables written for Cline, by event.
var ClineHooks = []string{"TaskStart", "TaskResume", "UserPromptSubmit", "PreToolUse", "PostToolUse", "TaskComplete", "TaskCancel"}

// Agents are the agents init knows, in the order it writes them.
//
// Where each starts a project's stdio MCP server, hence its ProjectRoot
// (from the agents' docs and issue trackers, 2026): Claude Code in the
// directory it runs in (.mcp.json's cwd is ignored, anthropics/claude-code
// #17565; it expands ${VAR:-default} from its own environment, which holds
// no project path); Codex, Gemini CLI, Copilot CLI and Kiro's CLI in the
// session's directory; Cursor in / (it expands ${workspaceFolder} in
// command, args, env); Cline in / (cline/cline#9950), from user-level
// settings only, as Windsurf. Where a client starts serve elsewhere than
// the project without --root, serve refuses in / or the home directory
// rather than serve the wrong tree. Hooks run in the project (Claude Code's
// $CLAUDE_PROJECT_DIR, Cursor's CURSOR_PROJECT_DIR, Gemini's
// GEMINI_PROJECT_DIR) and find the journal from their payload's cwd.
var Agents = []*Agent{
	{Name: "claude-code", ProjectMarks: []string{".claude"}, UserMarks: []string{".claude"}, Bins: []string{"claude"},
		HookFile: map[Scope]string{Project: ".claude/settings.json", User: ".claude/settings.json"},
		hooks: claudeHooks([]string{"SessionStart", "UserPromptSubmit", "PreToolUse*", "PostToolUse*", "PostToolUseFailure*",
			"SubagentStart", "SubagentStop", "Stop", "SessionEnd"}, "timeout", 10, false),
		MCPFile: ".mcp.json", mcp: mcpServers(obj{"type", "stdio"})},
	{Name: "codex", ProjectMarks: []string{".codex"}, UserMarks: []string{".codex"}, Bins: []string{"codex"},
		HookFile: map[Scope]string{Project: ".codex/hooks.json", User: ".codex/hooks.json"},
		hooks: claudeHooks([]string{"SessionStart", "UserPromptSubmit", "PreToolUse*", "PostToolUse*",
			"SubagentStart", "SubagentStop", "Stop"}, "timeout", 10, false),
		MCPFile: ".codex/config.toml",
		Note:    "Codex runs a new hook only once you trust it: open /hooks in Codex and trust journal's"},
	{Name: "cursor", ProjectMarks: []string{".cursor"}, UserMarks: []string{".cursor"}, Bins: []string{"cursor", "cursor-agent"},
		HookFile: map[Scope]string{Project: ".cursor/hooks.json", User: ".cursor/hooks.json"},
		// both the tool hooks and the shell and file-edit hooks of the
		// Cursors before them: one shell command both name is one call
		// (agents' cursor.go), an afterFileEdit inside an open Write call
		// is the call's (the watcher's claimedLocked)
		hooks: flatHooks([]string{"sessionStart", "beforeSubmitPrompt", "preToolUse", "postToolUse", "postToolUseFailure",
			"beforeShellExecution", "afterShellExecution", "afterFileEdit",
			"subagentStart", "subagentStop", "stop", "sessionEnd"}, true, nil),
		MCPFile: ".cursor/mcp.json", ProjectRoot: "${workspaceFolder}", mcp: mcpServers(nil)},
	{Name: "cline", ProjectMarks: []string{".clinerules"}, UserMarks: []string{"Documents/Cline", ".cline"}, Bins: []string{"cline"},
		HookFile: map[Scope]string{Project: ".clinerules/hooks", User: "Documents/Cline/Hooks"},
		MCPUserFiles: []UserFile{{".cline/data/settings/cline_mcp_settings.json", ".cline/data"},
			{".config/" + clineStorage + "/settings/cline_mcp_settings.json", ".config/" + clineStorage},
			{"Library/Application Support/" + clineStorage + "/settings/cline_mcp_settings.json", "Library/Application Support/" + clineStorage}},
		mcp:  mcpServers(nil),
		Note: `Cline runs hooks only with "Enable Hooks" on in its settings`},
	{Name: "gemini", ProjectMarks: []string{".gemini"}, UserMarks: []string{".gemini"}, Bins: []string{"gemini"},
		HookFile: map[Scope]string{Project: ".gemini/settings.json", User: ".gemini/settings.json"},
		hooks: claudeHooks([]string{"SessionStart", "BeforeAgent", "BeforeTool*", "AfterTool*", "AfterAgent", "SessionEnd"},
			"timeout", 10000, true),
		MCPFile: ".gemini/settings.json", mcp: mcpServers(nil),
		Note: "Gemini CLI asks you to trust a project's new hooks the first time they run"},
	{Name: "copilot", ProjectMarks: []string{".github/hooks"}, UserMarks: []string{".copilot"}, Bins: []string{"copilot"},
		HookFile: map[Scope]string{Project: ".github/hooks/journal.json", User: ".copilot/hooks/journal.json"},
		hooks: copilotHooks([]string{"sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "postToolUseFailure",
			"subagentStart", "subagentStop", "agentStop", "sessionEnd"}),
		MCPFile: ".github/mcp.json", mcp: mcpServers(obj{"type", "local"}, "tools", []any{"*"}),
		Note: "Copilot CLI loads a repository's MCP servers once you trust the folder"},
	{Name: "windsurf", ProjectMarks: []string{".windsurf"}, UserMarks: []string{".codeium/windsurf"}, Bins: []string{"windsurf"},
		HookFile: map[Scope]string{Project: ".windsurf/hooks.json", User: ".codeium/windsurf/hooks.json"},
		hooks: flatHooks([]string{"pre_user_prompt", "pre_run_command", "post_run_command", "pre_write_code", "post_write_code",
			"pre_mcp_tool_use", "post_mcp_tool_use", "post_cascade_response"}, false, obj{"show_output", false}),
		MCPUserFiles: []UserFile{{".codeium/windsurf/mcp_config.json", ".codeium/windsurf"}}, mcp: mcpServers(nil)},
	{Name: "kiro", ProjectMarks: []string{".kiro"}, UserMarks: []string{".kiro"}, Bins: []string{"kiro", "kiro-cli"},
		HookFile: map[Scope]string{Project: ".kiro/hooks/journal.json", User: ".kiro/hooks/journal.json"},
		hooks:    kiroHooks([]string{"SessionStart", "UserPromptSubmit", "PreToolUse*", "PostToolUse*", "Stop"}),
		MCPFile:  ".kiro/settings/mcp.json", mcp: mcpServers(nil)},
}

// Lookup returns the agent named name (an adapter's name or alias given
// as agents.Lookup resolves it).
func Lookup(name string) *Agent {
	for _, a := range Agents {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Ours reports whether a hook's command is journal's hook for agent: a
// word naming the journal binary (its name holds "journal"), then "hook",
// then the agent.
func Ours(command, agent string) bool {
	f := strings.Fields(command)
	for i := 0; i+2 < len(f); i++ {
		if strings.Contains(filepath.Base(strings.Trim(f[i], `"'`)), "journal") && f[i+1] == "hook" && f[i+2] == agent {
			return true
		}
	}
	return false
}

// claudeHooks is Claude Code's three levels (event → matcher group →
// handlers), which Codex and Gemini CLI copied: an event ending in "*" is
// a tool event, its group matching every tool. named adds Gemini's name.
func claudeHooks(events []string, timeoutKey string, timeout int, named bool) func(*node, string) error {
	return func(root *node, cmd string) error {
		hooks, _, err := root.child("hooks", '{')
		if err != nil {
			return err
		}
		for _, ev := range events {
			tool := strings.HasSuffix(ev, "*")
			ev = strings.TrimSuffix(ev, "*")
			groups, _, err := hooks.child(ev, '[')
			if err != nil {
				return err
			}
			if hasCommand(groups, cmd, "hooks") {
				continue
			}
			h := obj{"type", "command", "command", cmd, timeoutKey, timeout}
			if named {
				h = append(obj{"name", "journal"}, h...)
			}
			g := obj{"hooks", []any{h}}
			if tool {
				g = append(obj{"matcher", "*"}, g...)
			}
			groups.push(fromValue(g))
		}
		return nil
	}
}

// flatHooks is hooks.json's flat entries (Cursor's version 1, Windsurf's):
// hooks → event → [{command, ...}].
func flatHooks(events []string, version bool, extra obj) func(*node, string) error {
	return func(root *node, cmd string) error {
		if version && root.get("version") == nil {
			root.set("version", scalar(1))
		}
		hooks, _, err := root.child("hooks", '{')
		if err != nil {
			return err
		}
		for _, ev := range events {
			list, _, err := hooks.child(ev, '[')
			if err != nil {
				return err
			}
			if hasCommand(list, cmd, "") {
				continue
			}
			list.push(fromValue(append(obj{"command", cmd}, extra...)))
		}
		return nil
	}
}

// copilotHooks is Copilot CLI's hooks file: camelCase events (their
// payloads carry no event name, so the command says it: --event).
func copilotHooks(events []string) func(*node, string) error {
	return func(root *node, cmd string) error {
		if root.get("version") == nil {
			root.set("version", scalar(1))
		}
		hooks, _, err := root.child("hooks", '{')
		if err != nil {
			return err
		}
		for _, ev := range events {
			list, _, err := hooks.child(ev, '[')
			if err != nil {
				return err
			}
			c := cmd + " --event " + ev
			if hasCommand(list, c, "") {
				continue
			}
			list.push(fromValue(obj{"type", "command", "bash", c, "timeoutSec", 10}))
		}
		return nil
	}
}

// kiroHooks is Kiro's V3 hook file: a list of {name, trigger, matcher,
// action, timeout, enabled}.
func kiroHooks(triggers []string) func(*node, string) error {
	return func(root *node, cmd string) error {
		if root.get("version") == nil {
			root.set("version", scalar("v1"))
		}
		list, _, err := root.child("hooks", '[')
		if err != nil {
			return err
		}
	next:
		for _, tr := range triggers {
			tool := strings.HasSuffix(tr, "*")
			tr = strings.TrimSuffix(tr, "*")
			for _, h := range list.vals {
				if h.get("trigger").str() == tr && Ours(h.get("action").get("command").str(), "kiro") {
					continue next
				}
			}
			e := obj{"name", "journal-" + tr, "trigger", tr}
			if tool {
				e = append(e, "matcher", ".*")
			}
			e = append(e, "action", obj{"type", "command", "command", cmd}, "timeout", 10, "enabled", true)
			list.push(fromValue(e))
		}
		return nil
	}
}

// hasCommand reports whether a list of entries (or of groups of handlers
// under key sub) already runs cmd.
func hasCommand(list *node, cmd, sub string) bool {
	for _, e := range list.vals {
		hs := []*node{e}
		if sub != "" {
			hs = e.get(sub).arr()
		}
		for _, h := range hs {
			if c := h.get("command").str(); c == cmd || (c != "" && sameHook(c, cmd)) {
				return true
			}
			if c := h.get("bash").str(); c == cmd {
				return true
			}
		}
	}
	return false
}

// sameHook: two commands that are journal's hook for the same agent.
func sameHook(a, b string) bool {
	f := strings.Fields(b)
	for i := 0; i+2 < len(f); i++ {
		if f[i+1] == "hook" {
			return Ours(a, f[i+2]) && Ours(b, f[i+2])
		}
	}
	return false
}

func (n *node) arr() []*node {
	if n == nil || n.kind != '[' {
		return nil
	}
	return n.vals
}

// mcpServers adds {"mcpServers": {"journal": {command, args}}}, the
// agent's own keys around them: first before command (Claude Code's
// "type": "stdio", Copilot CLI's "type": "local"), then after args
// (Copilot's "tools"). An entry named journal already there is left as it
// is, unless it is journal's own naming a path the new entry does not (an
// earlier init's --root /home/me/repo, or its binary's absolute path):
// that one is replaced, in its place.
func mcpServers(first obj, then ...any) func(*node, string, string) error {
	return func(root *node, bin, wsRoot string) error {
		servers, _, err := root.child("mcpServers", '{')
		if err != nil {
			return err
		}
		args := []any{"serve"}
		if wsRoot != "" {
			args = append(args, "--root", wsRoot)
		}
		if j := servers.get("journal"); j != nil && !(ourServer(j, bin) && staleServer(j, bin, args)) {
			return nil
		}
		e := append(append(append(obj{}, first...), "command", bin, "args", args), then...)
		servers.set("journal", fromValue(e))
		return nil
	}
}

// staleServer reports whether journal's entry e runs another binary path
// or names a path as --root where the entry init writes now (command bin,
// args) does not.
func staleServer(e *node, bin string, args []any) bool {
	if c := e.get("command").str(); c != bin && filepath.IsAbs(strings.Trim(c, `"'`)) {
		return true
	}
	var got []string
	for _, v := range e.get("args").arr() {
		got = append(got, v.str())
	}
	i := slices.Index(got, "--root")
	if i < 0 || i+1 >= len(got) {
		return false
	}
	return filepath.IsAbs(got[i+1]) && !slices.Contains(args, any(got[i+1]))
}

// rebin makes every hook command of agent's journal hook under n run bin:
// one an earlier init wrote with this binary's absolute path (or another
// name) is rewritten in its place, the rest of the command kept.
func rebin(n *node, agent, bin string) {
	if n == nil {
		return
	}
	for i, k := range n.keys {
		v := n.vals[i]
		if (k == "command" || k == "bash") && v.kind == 0 {
			if c := v.str(); Ours(c, agent) {
				if f := strings.Fields(c); f[0] != bin && strings.Contains(filepath.Base(strings.Trim(f[0], `"'`)), "journal") {
					n.set(k, scalar(bin+strings.TrimPrefix(c, f[0])))
				}
			}
			continue
		}
		rebin(v, agent, bin)
	}
	if n.kind == '[' {
		for _, v := range n.vals {
			rebin(v, agent, bin)
		}
	}
}
