package setup

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/journalfs/journal/replay/gitai"
	"github.com/journalfs/journal/replay/watch"
)

// Every hook call that reaches a journal says so in a file per agent,
// <journal dir>/watch/fired/<agent>: its content the last event's name,
// its modification time when. One small write per call; doctor reads them.

// Fired notes that agent's hook fired with event, in watch directory wdir.
// Errors are ignored: a hook goes on without.
func Fired(wdir, agent, event string) {
	p := filepath.Join(wdir, "fired", agent)
	if os.WriteFile(p, []byte(event+"\n"), 0o600) != nil {
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(event+"\n"), 0o600)
	}
}

// Firing is an agent's last hook call.
type Firing struct {
	Agent string    `json:"agent"`
	Event string    `json:"event"`
	At    time.Time `json:"at"`
}

// LastFired lists the agents whose hooks fired, newest first.
func LastFired(wdir string) []Firing {
	es, _ := os.ReadDir(filepath.Join(wdir, "fired"))
	var out []Firing
	for _, e := range es {
		b, err := os.ReadFile(filepath.Join(wdir, "fired", e.Name()))
		fi, err2 := e.Info()
		if err != nil || err2 != nil {
			continue
		}
		out = append(out, Firing{Agent: e.Name(), Event: strings.TrimSpace(string(b)), At: fi.ModTime()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].At.After(out[j].At) })
	return out
}

// Check is one thing doctor looked at: fine, or a problem and what to do.
type Check struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	Say  string `json:"say"`
	Fix  string `json:"fix,omitempty"`
}

// DoctorEnv is what doctor looks at.
type DoctorEnv struct {
	Env
	JournalPath string // the journal file; "" when there is none
	Now         time.Time
	// MaxWatchesFile is /proc/sys/fs/inotify/max_user_watches (tests point
	// it elsewhere).
	MaxWatchesFile string
}

// Doctor checks the workspace's recording: the journal, the watcher, each
// agent's hooks (installed where, fired when), inotify's limit against the
// tree, and git notes.
func Doctor(ctx context.Context, d DoctorEnv) []Check {
	var out []Check
	if d.JournalPath == "" {
		return append(out, Check{Name: "journal", Say: "no journal in " + d.Root + " or above",
			Fix: "run `journal init` here: it makes the journal and sets up your agents"})
	}
	out = append(out, Check{Name: "journal", OK: true, Say: d.show(d.JournalPath)})
	wdir := filepath.Join(filepath.Dir(d.JournalPath), "watch")
	if watch.Running(d.JournalPath) {
		out = append(out, Check{Name: "watcher", OK: true, Say: "a watcher runs (journal serve or journal watch): hooks hand their calls to it"})
		out = append(out, callsCheck(ctx, d))
	} else {
		out = append(out, Check{Name: "watcher", Say: "no watcher runs: changes made outside journal's tools are recorded only when a hook or command walks the workspace",
			Fix: "start one: `journal watch &` in " + d.Root + ", or let your agent start `journal serve` (its MCP server)"})
	}
	out = append(out, hookChecks(d, wdir)...)
	out = append(out, committedPathChecks(ctx, d)...)
	out = append(out, inotifyCheck(d))
	if c, ok := gitCheck(ctx, d); ok {
		out = append(out, c)
	}
	return out
}

// hookChecks: for each agent whose hooks are installed (by the record,
// or found in its files), whether and when they fired.
func hookChecks(d DoctorEnv, wdir string) []Check {
	fired := map[string]Firing{}
	for _, f := range LastFired(wdir) {
		fired[f.Agent] = f
	}
	installed := map[string]string{}
	for _, sc := range []Scope{Project, User} {
		e := d.Env
		e.Scope = sc
		for _, a := range Agents {
			if _, ok := installed[a.Name]; !ok && a.installedIn(e) != "" {
				installed[a.Name] = a.installedIn(e)
			}
		}
	}
	var out []Check
	for _, a := range Agents {
		where, inst := installed[a.Name]
		f, ok := fired[a.Name]
		switch {
		case inst && ok:
			out = append(out, Check{Name: "hooks " + a.Name, OK: true,
				Say: fmt.Sprintf("installed (%s); last fired %s ago (%s)", where, ago(d.Now.Sub(f.At)), f.Event)})
		case inst:
			fix := "start a session of " + a.Name + " in this workspace; its first tool call fires them"
			if a.Note != "" {
				fix += ". " + a.Note
			}
			out = append(out, Check{Name: "hooks " + a.Name, Say: "installed (" + where + ") but never fired here", Fix: fix})
		case ok:
			out = append(out, Check{Name: "hooks " + a.Name, OK: true,
				Say: fmt.Sprintf("fired %s ago (%s); set up outside journal init's files", ago(d.Now.Sub(f.At)), f.Event)})
		}
	}
	if len(out) == 0 {
		out = append(out, Check{Name: "hooks", Say: "no agent's hooks are installed: changes outside journal's tools are not named for the call that made them",
			Fix: "run `journal init` (it finds the agents you use), or `journal init AGENT`"})
	}
	return out
}

// installedIn says where an agent's hooks are in scope e.Scope, "" if not.
func (a *Agent) installedIn(e Env) string {
	p := filepath.Join(e.base(), a.HookFile[e.Scope])
	if a.hooks == nil {
		b, err := os.ReadFile(filepath.Join(p, "PreToolUse"))
		if err == nil && Ours(string(b), a.Name) {
			return e.show(p)
		}
		return ""
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	for _, f := range strings.FieldsFunc(string(b), func(r rune) bool { return r == '"' }) {
		if Ours(f, a.Name) {
			return e.show(p)
		}
	}
	return ""
}

func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// inotifyCheck compares the directories a watcher would watch with
// fs.inotify.max_user_watches (shared by every process of the user).
func inotifyCheck(d DoctorEnv) Check {
	dirs := CountDirs(d.Root)
	file := d.MaxWatchesFile
	if file == "" {
		file = "/proc/sys/fs/inotify/max_user_watches"
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return Check{Name: "inotify", OK: true, Say: fmt.Sprintf("%d directories to watch; no inotify limit to read here (%v)", dirs, err)}
	}
	max, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	c := Check{Name: "inotify", OK: true, Say: fmt.Sprintf("%d directories to watch, max_user_watches %d", dirs, max)}
	if dirs*10 > max*9 {
		want := 1 << 19
		for want < dirs*2 {
			want *= 2
		}
		c.OK = false
		c.Say += ": past 90% of the limit (which every watching process of yours shares); directories past it are rescanned every 5 s instead"
		c.Fix = fmt.Sprintf("raise it: `sudo sysctl fs.inotify.max_user_watches=%d` (and in /etc/sysctl.d/ to keep it), or leave big directories out in a .journalignore", want)
	}
	return c
}

// CountDirs counts the directories a watcher of root watches (its rules:
// .gitignore, .journalignore, the defaults).
func CountDirs(root string) int {
	rules := watch.NewRules()
	n := 0
	filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel != "." && rules.Ignored(rel, true) {
			return filepath.SkipDir
		}
		rules.Enter(p, rel)
		n++
		return nil
	})
	return n
}

// gitCheck: in a git repository, whether journal's git notes are
// installed (commits then carry which agent wrote which lines).
func gitCheck(ctx context.Context, d DoctorEnv) (Check, bool) {
	if _, err := os.Stat(filepath.Join(d.Root, ".git")); err != nil {
		return Check{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	r, err := gitai.OpenRepo(ctx, d.Root)
	if err != nil {
		return Check{Name: "git notes", Say: "a git repository that git cannot read: " + err.Error()}, true
	}
	if gitai.Installed(ctx, r) {
		return Check{Name: "git notes", OK: true, Say: "installed: each commit gets a note naming the agents and prompts of its lines"}, true
	}
	return Check{Name: "git notes", Say: "not installed: commits do not say which agent wrote which lines",
		Fix: "run `journal git install`"}, true
}

// agentConfigFiles are the project's files the agents read their hooks
// and MCP servers from (relative to the root), VS Code's .vscode/mcp.json
// with them.
func agentConfigFiles() []string {
	out := []string{".vscode/mcp.json"}
	for _, a := range Agents {
		if a.hooks == nil {
			for _, ev := range ClineHooks {
				out = append(out, filepath.Join(a.HookFile[Project], ev))
			}
		} else {
			out = append(out, a.HookFile[Project])
		}
		if a.MCPFile != "" && !slices.Contains(out, a.MCPFile) {
			out = append(out, a.MCPFile)
		}
	}
	return out
}

// absPath finds absolute paths in a settings file's text: a "/" that
// starts a word (after a space, "=", "[", ",", ":" or "(", or a quote
// after one), up to the next quote, space or bracket. A path after a
// variable ("$CLAUDE_PROJECT_DIR"/.claude/...) starts no word; paths with
// a variable in them ($VAR, ${workspaceFolder}) are the agent's to
// expand, and patterns (a permission rule's /usr/bin/make:*) match paths
// rather than name one: neither is reported.
var absPath = regexp.MustCompile(`(?:^|[\s=\[,(:]|[\s=\[,(:]["'])(/[^/\s"',\])][^\s"',\])]*)`)

// committedPathChecks: in a git repository, each agent's settings file the
// repository tracks (git ls-files) that names a path of this machine (one
// in the workspace or the home directory) or a path not on this machine
// (a teammate's, from their init): a clone elsewhere runs what is at that
// path on its own disk, or nothing. No check when nothing is tracked.
func committedPathChecks(ctx context.Context, d DoctorEnv) []Check {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", d.Root, "ls-files", "-z", "--"}, agentConfigFiles()...)...)
	b, err := cmd.Output()
	if err != nil || len(b) == 0 {
		return nil // not a repository, no git, or none of them tracked
	}
	var out []Check
	tracked := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	for _, rel := range tracked {
		text, err := os.ReadFile(filepath.Join(d.Root, rel))
		if err != nil {
			continue
		}
		var mine, elsewhere []string
		ours, others := false, false
		for _, m := range absPath.FindAllSubmatch(text, -1) {
			p := string(m[1])
			if bytes.ContainsAny(m[1], "$*?") || slices.Contains(mine, p) || slices.Contains(elsewhere, p) {
				continue
			}
			_, err := os.Stat(p)
			switch {
			case err != nil:
				elsewhere = append(elsewhere, p)
			case within(d.Root, p) || d.Home != "" && within(d.Home, p):
				mine = append(mine, p)
			default:
				continue // a system path (/bin/sh, /usr/bin/env): the same on every machine
			}
			if strings.Contains(filepath.Base(p), "journal") || p == d.Root {
				ours = true
			} else {
				others = true
			}
		}
		if len(mine)+len(elsewhere) == 0 {
			continue
		}
		var say []string
		if len(mine) > 0 {
			say = append(say, "this machine's "+strings.Join(mine, ", "))
		}
		if len(elsewhere) > 0 {
			say = append(say, strings.Join(elsewhere, ", ")+", not on this machine (another's)")
		}
		fix := "write them relative to the project or with a variable the agent expands (Cursor's and VS Code's ${workspaceFolder}, Claude Code's ${VAR:-default}), and keep paths of your machine in your own settings"
		switch {
		case ours && others:
			fix = "run `journal init` again here and commit what it changes: it rewrites journal's entries in the form every clone runs (journal on PATH, the workspace from the agent); for the others, " + fix
		case ours:
			fix = "run `journal init` again here and commit what it changes: it rewrites journal's entries in the form every clone runs (journal on PATH, the workspace from the agent)"
		}
		out = append(out, Check{Name: "committed paths", Say: rel + " is committed (git tracks it) and names " + strings.Join(say, "; ") + ": a clone elsewhere runs what is at that path on its own disk, or nothing", Fix: fix})
	}
	if len(out) == 0 {
		out = append(out, Check{Name: "committed paths", OK: true, Say: fmt.Sprintf("the agents' settings git tracks (%d files) name no path of one machine", len(tracked))})
	}
	return out
}

// within reports whether p is dir or under it.
func within(dir, p string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// callLong is how long a call may be open before doctor calls it a
// problem: the changes made meanwhile wait for it.
const callLong = time.Minute

// callsCheck names the agents' calls open in the running watcher and
// their age: one open longer than callLong is a problem (its agent may be
// stuck or gone without a trace the watcher sees).
func callsCheck(ctx context.Context, d DoctorEnv) Check {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	calls, err := watch.OpenCalls(ctx, d.JournalPath)
	if err != nil {
		return Check{Name: "calls", Say: "the watcher does not answer: " + err.Error(), Fix: "restart journal watch (or journal serve)"}
	}
	if len(calls) == 0 {
		return Check{Name: "calls", OK: true, Say: "no agent's call open"}
	}
	var says []string
	ok := true
	for _, c := range calls {
		says = append(says, c.Describe(d.Now))
		ok = ok && d.Now.Sub(c.Start) < callLong
	}
	ch := Check{Name: "calls", OK: ok, Say: strings.Join(says, "; ") + ": the changes made meanwhile wait for it to end"}
	if !ok {
		ch.Fix = "if the agent is no longer running the call, it closes when the agent's process is gone, at its session's next prompt, or " + calls[0].Closes(d.Now) + "; what changed meanwhile is then recorded as no one's"
	}
	return ch
}
