package setup

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/journalfs/journal/ops"
)

// Env is where init looks and writes.
type Env struct {
	Root    string // the workspace root (absolute)
	Home    string // the user's home directory
	Journal string // the journal's directory (<root>/.journal): the record is kept there
	// Bin is the journal binary as the project's files run it: "journal",
	// found on PATH, in every clone (unless --bin says otherwise). UserBin
	// is how the user's own files (--user hooks, Cline's and Windsurf's MCP
	// settings) run it: "journal" when PATH finds this binary, else its
	// absolute path, which only this machine reads.
	Bin, UserBin string
	Scope        Scope
	NoMCP        bool
	// LookPath finds an agent's executable (exec.LookPath; tests clear it).
	LookPath func(string) (string, error)
}

// Change is one file init writes (or, undoing, puts back).
type Change struct {
	Agent   string
	Path    string // absolute
	Before  []byte // nil: the file is made
	After   []byte // nil: the file is removed
	Mode    os.FileMode
	What    string // what it adds, for the user ("hooks on 9 events")
	created []string
}

// Diff is the change as a unified diff, paths relative to the root or ~.
func (c Change) Diff(e Env) string {
	name := e.show(c.Path)
	from, to := "a/"+name, "b/"+name
	if c.Before == nil {
		from = "/dev/null"
	}
	if c.After == nil {
		to = "/dev/null"
	}
	return ops.Unified(from, to, string(c.Before), string(c.After))
}

// show names p for the user: relative to the root, or under ~.
func (e Env) show(p string) string {
	if r, err := filepath.Rel(e.Root, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	if r, err := filepath.Rel(e.Home, p); err == nil && !strings.HasPrefix(r, "..") {
		return "~/" + r
	}
	return p
}

// Show is show exported for the command's messages.
func (e Env) Show(p string) string { return e.show(p) }

// Found returns the agents in use: those whose project or user
// directories exist, or whose executable is on PATH.
func Found(e Env) []*Agent {
	var out []*Agent
	for _, a := range Agents {
		if a.inUse(e) {
			out = append(out, a)
		}
	}
	return out
}

func (a *Agent) inUse(e Env) bool {
	for _, m := range a.ProjectMarks {
		if isDir(filepath.Join(e.Root, m)) {
			return true
		}
	}
	for _, m := range a.UserMarks {
		if e.Home != "" && isDir(filepath.Join(e.Home, m)) {
			return true
		}
	}
	if e.LookPath != nil {
		for _, b := range a.Bins {
			if _, err := e.LookPath(b); err == nil {
				return true
			}
		}
	}
	return false
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func (e Env) base() string {
	if e.Scope == User {
		return e.Home
	}
	return e.Root
}

// Plan computes the changes that install agents' hooks and MCP entries:
// nothing for what is there already, so a second run plans nothing.
func Plan(e Env, agents []*Agent) ([]Change, []string, error) {
	var warn []string
	files := map[string]*Change{} // a file two edits share (Gemini's settings.json) is one change
	var order []string
	edit := func(a *Agent, p, what string, f func(*node) error) error {
		c := files[p]
		if c == nil {
			before, err := os.ReadFile(p)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			c = &Change{Agent: a.Name, Path: p, Before: before, After: before, Mode: 0o644}
			if fi, err := os.Stat(p); err == nil {
				c.Mode = fi.Mode().Perm()
			}
			files[p] = c
			order = append(order, p)
		}
		d, err := parseDoc(c.After)
		if err != nil {
			return fmt.Errorf("%s: %w: edit it by hand", e.show(p), err)
		}
		if err := f(d.root); err != nil {
			return fmt.Errorf("%s: %v", e.show(p), err)
		}
		if out := d.bytes(); !bytes.Equal(out, c.After) {
			c.After = out
			c.What = strings.TrimPrefix(c.What+", "+what, ", ")
		}
		return nil
	}
	var out []Change
	hookBin := e.binFor(e.Scope)
	for _, a := range agents {
		cmd := hookBin + " hook " + a.Name
		if a.hooks != nil {
			if err := edit(a, filepath.Join(e.base(), a.HookFile[e.Scope]), a.Name+" hooks", func(n *node) error {
				rebin(n, a.Name, hookBin)
				return a.hooks(n, cmd)
			}); err != nil {
				return nil, nil, err
			}
		} else { // Cline: an executable per event
			cs, w, err := clineChanges(e, a, cmd)
			if err != nil {
				return nil, nil, err
			}
			out, warn = append(out, cs...), append(warn, w...)
		}
		if e.NoMCP {
			continue
		}
		w, err := userMCP(e, a, edit)
		if err != nil {
			return nil, nil, err
		}
		warn = append(warn, w...)
		if a.MCPFile == "" {
			continue
		}
		p := filepath.Join(e.Root, a.MCPFile)
		if a.mcp == nil { // Codex: config.toml
			c, err := codexMCP(e, a, p)
			if err != nil {
				return nil, nil, err
			}
			if c != nil {
				out = append(out, *c)
			}
			continue
		}
		if err := edit(a, p, "MCP server journal", func(n *node) error { return a.mcp(n, e.Bin, a.ProjectRoot) }); err != nil {
			return nil, nil, err
		}
	}
	for _, p := range order {
		if c := files[p]; !bytes.Equal(c.Before, c.After) || (c.Before == nil && c.After != nil) {
			out = append(out, *c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	if w := e.binWarning(out); w != "" {
		warn = append(warn, w)
	}
	return out, warn, nil
}

// binFor is the binary the files of scope s run: the project's, which
// every clone reads, run Bin; the user's run UserBin.
func (e Env) binFor(s Scope) string {
	if s == User && e.UserBin != "" {
		return e.UserBin
	}
	return e.Bin
}

// binWarning is what to say when the project's files changes write run a
// binary this machine's PATH does not find as this one (journal is not on
// PATH), or name a path of this machine (--bin /abs/journal).
func (e Env) binWarning(changes []Change) string {
	project := false
	for _, c := range changes {
		if within(e.Root, c.Path) { // a file a team may commit
			project = true
		}
	}
	switch {
	case !project:
		return ""
	case filepath.IsAbs(strings.Trim(e.Bin, `"'`)):
		return fmt.Sprintf("the project's files now run %s, a path of this machine: a clone elsewhere runs what is at that path on its disk (`journal doctor` names such files); to share them, put journal on PATH and run `journal init` without --bin", e.Bin)
	case e.Bin == "journal" && e.UserBin != "journal" && e.UserBin != "":
		return fmt.Sprintf("the project's files run `journal`, as every clone of it will, but PATH does not find this binary (%s) as journal: put it on PATH (`go install ./cmd/journal`, or a link to it in a directory on PATH), or the hooks and the MCP server do not start here", strings.Trim(e.UserBin, "'"))
	}
	return ""
}

// userMCP adds the MCP server entry to the user's files of an agent that
// lists its MCP servers only there (Agent.MCPUserFiles): each whose
// agent's directory is there. Those files serve every project: an entry
// named journal serving another workspace is left as it is, with a
// warning; no such file, a warning with the lines to add.
func userMCP(e Env, a *Agent, edit func(*Agent, string, string, func(*node) error) error) ([]string, error) {
	if len(a.MCPUserFiles) == 0 || e.Home == "" {
		return nil, nil
	}
	var warn []string
	found := false
	bin := e.binFor(User)
	for _, uf := range a.MCPUserFiles {
		if !isDir(filepath.Join(e.Home, uf.Mark)) {
			continue
		}
		found = true
		p := filepath.Join(e.Home, uf.File)
		err := edit(a, p, "MCP server journal", func(n *node) error {
			if j := n.get("mcpServers").get("journal"); j != nil && !slices.ContainsFunc(j.get("args").arr(), func(v *node) bool { return v.str() == e.Root }) {
				warn = append(warn, fmt.Sprintf("%s lists %s's MCP servers for every project, and its entry journal serves another workspace: left as it is (to serve this one too, add an entry of another name: %s)",
					e.show(p), a.Name, mcpLines(e, a)))
				return nil
			}
			return a.mcp(n, bin, e.Root)
		})
		if err != nil {
			return nil, err
		}
	}
	if !found {
		warn = append(warn, fmt.Sprintf("%s lists its MCP servers in your user settings (~/%s), which are not there: to use journal's tools from %s, add %s",
			a.Name, a.MCPUserFiles[0].File, a.Name, mcpLines(e, a)))
	}
	return warn, nil
}

// mcpLines is the MCP server entry a would be given, as JSON on one line.
func mcpLines(e Env, a *Agent) string {
	root := newObject()
	a.mcp(root, e.binFor(User), e.Root)
	b, _ := json.Marshal(json.RawMessage((&doc{root: root, indent: ""}).bytes()))
	return string(b)
}

const clineScript = "#!/bin/sh\n# written by journal init (journal init --undo removes it)\nexec %s\n"

// clineChanges are Cline's hook executables; one of the user's own there
// is left alone (Cline runs one file per event), with a warning.
func clineChanges(e Env, a *Agent, cmd string) ([]Change, []string, error) {
	dir := filepath.Join(e.base(), a.HookFile[e.Scope])
	var out []Change
	var warn []string
	for _, ev := range ClineHooks {
		p := filepath.Join(dir, ev)
		b, err := os.ReadFile(p)
		switch {
		case err == nil && string(b) == fmt.Sprintf(clineScript, cmd):
			continue
		case err == nil && Ours(string(b), "cline") && strings.HasPrefix(string(b), clineScript[:strings.Index(clineScript, "exec")]):
			// an earlier init's, running the binary by another path: rewritten
			mode := os.FileMode(0o755)
			if fi, err := os.Stat(p); err == nil {
				mode = fi.Mode().Perm()
			}
			out = append(out, Change{Agent: a.Name, Path: p, Before: b, After: []byte(fmt.Sprintf(clineScript, cmd)), Mode: mode, What: "cline hook " + ev})
			continue
		case err == nil && Ours(string(b), "cline"):
			continue
		case err == nil:
			warn = append(warn, fmt.Sprintf("%s is a hook of your own, left as it is: to record Cline's %s too, pipe its input to `%s` from it", e.show(p), ev, cmd))
			continue
		case !errors.Is(err, os.ErrNotExist):
			return nil, nil, err
		}
		out = append(out, Change{Agent: a.Name, Path: p, After: []byte(fmt.Sprintf(clineScript, cmd)), Mode: 0o755, What: "cline hook " + ev})
	}
	return out, warn, nil
}

// Record is what init added, kept in <journal dir>/init.json so that
// init --undo takes out exactly that.
type Record struct {
	Files []FileRecord `json:"files"`
}

// FileRecord is one file init wrote: its content before (absent when init
// made it), the digest of what init left there, and the directories it made.
type FileRecord struct {
	Agent   string   `json:"agent"`
	Path    string   `json:"path"`
	Made    bool     `json:"made,omitempty"`
	Before  []byte   `json:"before,omitempty"`
	Mode    uint32   `json:"mode"`
	After   string   `json:"after"` // sha256 of what init wrote
	Dirs    []string `json:"dirs,omitempty"`
	Toml    bool     `json:"toml,omitempty"`
	Removed []string `json:"-"`
}

func recordPath(e Env) string { return filepath.Join(e.Journal, "init.json") }

// LoadRecord reads the record (empty when init never ran, or was undone).
func LoadRecord(e Env) (*Record, error) {
	b, err := os.ReadFile(recordPath(e))
	if errors.Is(err, os.ErrNotExist) {
		return &Record{}, nil
	}
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("setup: %s: %w", recordPath(e), err)
	}
	return &r, nil
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Apply writes the changes and adds them to the record. A file written
// again keeps its first content as its before while it still holds what
// init last wrote (else its content now, so the user's edits survive an
// undo).
func Apply(e Env, changes []Change) error {
	rec, err := LoadRecord(e)
	if err != nil {
		return err
	}
	for _, c := range changes {
		dirs, err := mkdirs(filepath.Dir(c.Path))
		if err != nil {
			return err
		}
		if err := writeFile(c.Path, c.After, c.Mode); err != nil {
			return err
		}
		fr := FileRecord{Agent: c.Agent, Path: c.Path, Made: c.Before == nil, Before: c.Before, Mode: uint32(c.Mode),
			After: digest(c.After), Dirs: dirs, Toml: strings.HasSuffix(c.Path, ".toml")}
		merged := false
		for i := range rec.Files {
			old := &rec.Files[i]
			if old.Path != c.Path {
				continue
			}
			if c.Before != nil && old.After == digest(c.Before) {
				old.After = fr.After
			} else {
				fr.Dirs = append(old.Dirs, fr.Dirs...)
				*old = fr
			}
			merged = true
		}
		if !merged {
			rec.Files = append(rec.Files, fr)
		}
	}
	if len(changes) == 0 {
		return nil
	}
	b, _ := json.MarshalIndent(rec, "", "  ")
	if err := os.MkdirAll(e.Journal, 0o755); err != nil {
		return err
	}
	return writeFile(recordPath(e), append(b, '\n'), 0o600)
}

// mkdirs makes dir and its missing parents, returning those it made
// (deepest first, the order to remove them in).
func mkdirs(dir string) ([]string, error) {
	var made []string
	for d := dir; !isDir(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			return nil, fmt.Errorf("setup: %s is not a directory", d)
		}
		made = append(made, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return made, nil
}

// writeFile replaces p by a file holding b (a temp renamed over it).
func writeFile(p string, b []byte, mode os.FileMode) error {
	tmp := p + ".journal-init.tmp"
	if err := os.WriteFile(tmp, b, mode); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// PlanUndo computes what init --undo does: each file init wrote that
// still holds what it wrote gets its content back byte for byte (a file
// init made is removed); a file changed since has only journal's entries
// taken out of it, the rest of the user's edits kept.
func PlanUndo(e Env) ([]Change, *Record, error) {
	rec, err := LoadRecord(e)
	if err != nil {
		return nil, nil, err
	}
	var out []Change
	for i := len(rec.Files) - 1; i >= 0; i-- {
		f := rec.Files[i]
		cur, err := os.ReadFile(f.Path)
		if errors.Is(err, os.ErrNotExist) {
			continue // gone already
		}
		if err != nil {
			return nil, nil, err
		}
		c := Change{Agent: f.Agent, Path: f.Path, Before: cur, Mode: os.FileMode(f.Mode)}
		switch {
		case digest(cur) == f.After && f.Made:
			c.After = nil
		case digest(cur) == f.After:
			c.After = f.Before
		default:
			after, err := takeOut(f, cur, e)
			if err != nil {
				return nil, nil, fmt.Errorf("%s changed since journal init and %v: take journal's entries out by hand", e.show(f.Path), err)
			}
			c.After = after
			c.What = "changed since init: only journal's entries taken out"
		}
		if !bytes.Equal(c.After, cur) || c.After == nil {
			out = append(out, c)
		}
	}
	return out, rec, nil
}

// Undo applies PlanUndo's changes, removes the directories init made that
// are empty again, and forgets the record.
func Undo(e Env, changes []Change, rec *Record) error {
	for _, c := range changes {
		if c.After == nil {
			if err := os.Remove(c.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			continue
		}
		if err := writeFile(c.Path, c.After, c.Mode); err != nil {
			return err
		}
	}
	for i := len(rec.Files) - 1; i >= 0; i-- {
		for _, d := range rec.Files[i].Dirs {
			os.Remove(d) // only if empty
		}
	}
	if err := os.Remove(recordPath(e)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// takeOut removes journal's entries from a file changed since init.
func takeOut(f FileRecord, cur []byte, e Env) ([]byte, error) {
	if f.Toml {
		return codexTakeOut(cur), nil
	}
	if Lookup(f.Agent) != nil && Lookup(f.Agent).hooks == nil { // a Cline script
		if Ours(string(cur), "cline") {
			return nil, nil
		}
		return cur, nil
	}
	d, err := parseDoc(cur)
	if err != nil {
		return nil, err
	}
	strip(d.root, f.Agent, e.Bin)
	if f.Made && len(d.root.vals) == 0 {
		return nil, nil
	}
	return d.bytes(), nil
}

// strip takes out of n every hook entry running journal's hook for agent,
// groups and event lists left empty by that, and an MCP server journal
// serving with bin.
func strip(n *node, agent, bin string) bool {
	ours := func(v *node) bool {
		for _, k := range []string{"command", "bash"} {
			if Ours(v.get(k).str(), agent) {
				return true
			}
		}
		return Ours(v.get("action").get("command").str(), agent)
	}
	switch n.kind {
	case '[':
		kept := n.vals[:0:0]
		for _, v := range n.vals {
			if v.kind == '{' && ours(v) {
				n.dirty = true
				continue
			}
			if v.kind == '{' && v.get("hooks") != nil && v.get("hooks").kind == '[' {
				strip(v.get("hooks"), agent, bin)
				if len(v.get("hooks").vals) == 0 && v.get("hooks").changed() {
					n.dirty = true
					continue
				}
			}
			kept = append(kept, v)
		}
		n.vals = kept
	case '{':
		for i := 0; i < len(n.keys); i++ {
			v := n.vals[i]
			if n.keys[i] == "mcpServers" && ourServer(v.get("journal"), bin) {
				v.del("journal")
			}
			if v.kind == 0 {
				continue
			}
			strip(v, agent, bin)
			if v.changed() && len(v.vals) == 0 {
				n.del(n.keys[i])
				i--
			}
		}
	}
	return n.dirty
}

// ourServer reports whether an MCP server entry is the one init writes:
// journal serve, run by bin or by another name of the journal binary (an
// undo need not be given init's --bin).
func ourServer(e *node, bin string) bool {
	if e == nil {
		return false
	}
	c := e.get("command").str()
	args := e.get("args").arr()
	return c == bin || strings.Contains(filepath.Base(strings.Trim(c, `"'`)), "journal") && len(args) > 0 && args[0].str() == "serve"
}

// DefaultBin is how hooks should run this binary: "journal" when that is
// what PATH finds, else its absolute path.
func DefaultBin() string {
	self, err := os.Executable()
	if err != nil {
		return "journal"
	}
	self, _ = filepath.EvalSymlinks(self)
	if p, err := exec.LookPath("journal"); err == nil {
		if q, err := filepath.EvalSymlinks(p); err == nil && q == self {
			return "journal"
		}
	}
	if strings.ContainsAny(self, " \t'\"") {
		return "'" + self + "'"
	}
	return self
}
