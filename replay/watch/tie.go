package watch

import (
	"cmp"
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/journalfs/journal/replay"
)

// What the journal can tie to an agent's call (issue 59): a change made
// while a call is open is the call's only if nothing says it is not.
//
//   - A call closed without its after-hook (Call.Closed: its agent's
//     process gone, its session's next prompt or turn's end, its time
//     up) ends at a moment the journal does not know: a change made in
//     its window may be a person's (an editor's save, a git reset) as
//     well as the call's. Nothing of such a window is tied to it.
//   - A file-edit call (Claude Code's Write, Edit, MultiEdit,
//     NotebookEdit; Gemini CLI's write_file, replace) names the one file
//     it writes in its input (scopeOf): a change to any other path in its
//     window is not the call's.
//   - A shell call (Bash) can write anywhere: a change in its window is
//     its, unless a file-edit call says otherwise. Nothing the watcher
//     sees (inotify names no process) tells a person's save from the
//     call's; docs/DESIGN.md says what would, and what is left.
//
// A change no call can claim is recorded as the watcher's own (untracked:
// blame and the git note name no one), its arguments listing the calls it
// was made beside ("unproven").

// editInputKeys are the keys of a file-edit tool's input that name the
// file it writes.
var editInputKeys = []string{"file_path", "notebook_path", "path", "absolute_path"}

// editTools are the agents' tools that write the one file their input
// names and nothing else (testdata/hooks/<agent>/ has their payloads).
var editTools = map[string]bool{
	"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true, // Claude Code
	"write_file": true, "replace": true, // Gemini CLI
	"write_code":    true,                          // Windsurf
	"write_to_file": true, "replace_in_file": true, // Cline
	"edit": true, "create": true, // Copilot CLI
	"fs_write": true, // Kiro
}

// shellTimeout is how long Claude Code lets a Bash call run when its
// input sets no timeout, and shellTimeoutMax the most it lets one ask for
// (tool_input.timeout, in milliseconds).
const (
	shellTimeout    = 2 * time.Minute
	shellTimeoutMax = 10 * time.Minute
	// callGrace is added to a tool's own limit: the before-hook may come
	// before a permission prompt, and the after-hook's delivery takes time.
	callGrace = time.Minute
	// editLimit is how long a file-edit call may stay open: the write
	// itself takes milliseconds; the rest is a permission prompt.
	editLimit = 2 * time.Minute
)

// scopeOf is the journal keys of the files call c says it writes, and
// whether it says so (a file-edit tool naming its file); roots resolve
// the input's paths (relative ones against the call's directory, else
// the first root).
func scopeOf(c Call, roots []*replay.Root) (map[string]bool, bool) {
	if !editTools[c.Tool] || len(c.Input) == 0 || len(roots) == 0 {
		return nil, false
	}
	var in map[string]json.RawMessage
	if json.Unmarshal(c.Input, &in) != nil {
		return nil, false
	}
	keys := map[string]bool{}
	for _, name := range editInputKeys {
		var p string
		if json.Unmarshal(in[name], &p) != nil || p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cmp.Or(c.Dir, roots[0].Dir), p)
		}
		if _, _, k, ok := place(roots, filepath.Clean(p)); ok {
			keys[k] = true
		}
	}
	// an edit tool whose input names no file under the roots writes none
	// of them: its scope is empty, not everything
	return keys, true
}

// limitOf is how long call c may stay open before it is closed as timed
// out: a shell call its tool's timeout (Claude Code's Bash: the input's
// "timeout" in milliseconds, 2 min by default, 10 at most) and a grace; a
// file-edit call editLimit; any other max. Never more than max.
func limitOf(c Call, max time.Duration) time.Duration {
	d := max
	switch {
	case c.Tool == "Bash":
		var in struct {
			Timeout float64 `json:"timeout"`
		}
		json.Unmarshal(c.Input, &in)
		t := shellTimeout
		if in.Timeout > 0 {
			t = min(time.Duration(in.Timeout*float64(time.Millisecond)), shellTimeoutMax)
		}
		d = t + callGrace
	case editTools[c.Tool]:
		d = editLimit
	}
	return min(d, max)
}

// tied is a set of changed files and the calls they are tied to (none:
// the watcher's own), with the calls they were made beside and cannot be
// tied to.
type tied struct {
	keys     []string
	calls    []Call
	unproven []Call
}

// tie groups the changed files keys by the calls that can claim them:
// a call whose scope (scopeOf) admits the file, none of those closed
// without its after-hook, and the file not in outside (a process outside
// every call's agent was seen writing it). calls are in the order events
// name them.
func tie(keys []string, calls []Call, roots []*replay.Root, outside map[string]bool) []tied {
	scopes := make([]map[string]bool, len(calls))
	scoped := make([]bool, len(calls))
	plain := true // every call claims every file: one group, as before
	for i, c := range calls {
		scopes[i], scoped[i] = scopeOf(c, roots)
		plain = plain && !scoped[i] && c.Closed == ""
	}
	if plain && len(outside) == 0 {
		return []tied{{keys: keys, calls: calls}}
	}
	groups := map[string]*tied{}
	for _, k := range keys {
		var claim []int
		untied := outside[k]
		for i, c := range calls {
			if scoped[i] && !scopes[i][k] {
				continue
			}
			claim = append(claim, i)
			untied = untied || c.Closed != ""
		}
		sig := make([]string, 0, len(claim)+1)
		if untied || len(claim) == 0 {
			sig = append(sig, "-")
		}
		for _, i := range claim {
			sig = append(sig, calls[i].ID)
		}
		s := strings.Join(sig, "\x00")
		g := groups[s]
		if g == nil {
			g = &tied{}
			for _, i := range claim {
				if untied {
					g.unproven = append(g.unproven, calls[i])
				} else {
					g.calls = append(g.calls, calls[i])
				}
			}
			if len(claim) == 0 {
				g.unproven = calls
			}
			groups[s] = g
		}
		g.keys = append(g.keys, k)
	}
	sigs := make([]string, 0, len(groups))
	for s := range groups {
		sigs = append(sigs, s)
	}
	sort.Strings(sigs) // the untied first ("-"), then by the calls' ids
	out := make([]tied, 0, len(sigs))
	for _, s := range sigs {
		g := groups[s]
		slices.Sort(g.keys)
		out = append(out, *g)
	}
	return out
}

// Describe says what o is and for how long it has been open, as of now:
// "claude-code Bash toolu_1 (session s1) open for 12s: go test ./...".
func (o OpenCall) Describe(now time.Time) string {
	c := o.Call
	s := strings.TrimSpace(c.Agent + " " + c.Tool + " " + c.ID)
	if c.Session != "" {
		s += " (session " + c.Session + ")"
	}
	s += " open for " + now.Sub(o.Start).Round(time.Second).String()
	if subj := inputSubject(c.Input); subj != "" {
		s += ": " + subj
	}
	return s
}

// Closes says when o closes without its after-hook at the latest.
func (o OpenCall) Closes(now time.Time) string {
	return "in " + max(0, o.Start.Add(o.Limit).Sub(now)).Round(time.Second).String()
}

// inputSubject is what a call's input is about, shortened: its command
// or the file it writes.
func inputSubject(in json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(in, &m) != nil {
		return ""
	}
	for _, k := range append([]string{"command"}, editInputKeys...) {
		var s string
		if json.Unmarshal(m[k], &s) == nil && s != "" {
			if r := []rune(s); len(r) > 60 {
				s = string(r[:59]) + "…"
			}
			return s
		}
	}
	return ""
}
