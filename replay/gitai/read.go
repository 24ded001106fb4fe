package gitai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Reader reads the notes of a repository back: blame, stats, show and
// Agent Trace records. It runs git's plumbing in Dir (paths given to it are
// relative to Dir, as git takes them) and reads the notes under Ref
// (NotesRef when empty). A Reader holds no process between calls.
type Reader struct {
	Dir string
	Ref string
}

// ErrNoNote means a commit has no note under the notes ref.
var ErrNoNote = errors.New("no Git AI note")

func (r Reader) ref() string {
	if r.Ref != "" {
		return r.Ref
	}
	return NotesRef
}

// rdGit is a git command in r.Dir with a stable, unlocalized output.
func (r Reader) rdGit(ctx context.Context, args ...string) *exec.Cmd {
	full := append([]string{"-c", "core.quotePath=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "GIT_PAGER=cat", "GIT_OPTIONAL_LOCKS=0")
	return cmd
}

// rdOutput runs git and returns its standard output.
func (r Reader) rdOutput(ctx context.Context, args ...string) ([]byte, error) {
	cmd := r.rdGit(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, &GitError{Args: args, Stderr: stderr.String(), Err: err}
	}
	return out, nil
}

// Resolve names one commit: REV (anything git rev-parse takes) to its full
// hash.
func (r Reader) Resolve(ctx context.Context, rev string) (string, error) {
	out, err := r.rdOutput(ctx, "rev-parse", "--verify", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// rdNoteIndex lists the notes: commit hash → note blob hash, from one
// `git notes list` (whatever the notes tree's fan-out). A missing ref is an
// empty index.
func (r Reader) rdNoteIndex(ctx context.Context) (map[string]string, error) {
	out, err := r.rdOutput(ctx, "notes", "--ref="+r.ref(), "list")
	if err != nil {
		return nil, err
	}
	idx := make(map[string]string)
	for len(out) > 0 {
		var line []byte
		line, out, _ = bytes.Cut(out, []byte("\n"))
		blob, commit, ok := strings.Cut(string(line), " ")
		if ok {
			idx[commit] = blob
		}
	}
	return idx, nil
}

// rdCat is one `git cat-file --batch` process: every object the readers
// need goes through it, so a blame of a file touched by a thousand commits
// is one process, not a thousand.
type rdCat struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	err bytes.Buffer
	// broken is the error that lost the exchange: every later request
	// fails with it rather than read another request's answer.
	broken error
}

func (r Reader) rdCatFile(ctx context.Context) (*rdCat, error) {
	c := &rdCat{cmd: r.rdGit(ctx, "cat-file", "--batch")}
	var err error
	if c.in, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.cmd.Stderr = &c.err
	if err := c.cmd.Start(); err != nil {
		return nil, &GitError{Args: []string{"cat-file", "--batch"}, Err: err}
	}
	c.out = bufio.NewReaderSize(stdout, 64<<10)
	return c, nil
}

// get returns the contents of one object (a hash or "rev:path").
func (c *rdCat) get(name string) ([]byte, error) {
	if c.broken != nil {
		return nil, c.broken
	}
	if strings.ContainsAny(name, "\n") {
		return nil, fmt.Errorf("gitai: object name %q holds a newline", name)
	}
	if _, err := io.WriteString(c.in, name+"\n"); err != nil {
		return nil, c.fail(err)
	}
	return c.read(name)
}

// read reads the answer to a request already written.
func (c *rdCat) read(name string) ([]byte, error) {
	if c.broken != nil {
		return nil, c.broken
	}
	head, err := c.out.ReadString('\n')
	if err != nil {
		return nil, c.fail(err)
	}
	f := strings.Fields(head)
	if len(f) == 2 && f[1] == "missing" || len(f) >= 2 && f[len(f)-1] == "ambiguous" {
		return nil, fmt.Errorf("%s: %w", name, errMissing)
	}
	n := -1
	if len(f) == 3 {
		n, _ = strconv.Atoi(f[2])
	}
	if n < 0 {
		return nil, c.fail(fmt.Errorf("gitai: cat-file answered %q", head))
	}
	buf := make([]byte, n+1)
	if _, err := io.ReadFull(c.out, buf); err != nil {
		return nil, c.fail(err)
	}
	return buf[:n], nil
}

func (c *rdCat) fail(err error) error {
	c.broken = &GitError{Args: []string{"cat-file", "--batch"}, Stderr: c.err.String(), Err: err}
	return c.broken
}

func (c *rdCat) close() {
	c.in.Close()
	c.cmd.Wait()
}

// rdNotes reads and parses notes through one cat-file process, each once.
type rdNotes struct {
	index map[string]string
	cat   *rdCat
	cache map[string]*Note
	raw   map[string][]byte
	bad   map[string]error
}

func (r Reader) rdOpenNotes(ctx context.Context, index map[string]string) (*rdNotes, error) {
	cat, err := r.rdCatFile(ctx)
	if err != nil {
		return nil, err
	}
	return &rdNotes{index: index, cat: cat, cache: map[string]*Note{}, raw: map[string][]byte{}, bad: map[string]error{}}, nil
}

// note returns commit's note, nil when it has none, or the error that keeps
// it from being read (a note that is not a Git AI log is an ErrFormat).
func (n *rdNotes) note(commit string) (*Note, error) {
	if x, ok := n.cache[commit]; ok {
		return x, nil
	}
	if err, ok := n.bad[commit]; ok {
		return nil, err
	}
	blob, ok := n.index[commit]
	if !ok {
		n.cache[commit] = nil
		return nil, nil
	}
	data, err := n.cat.get(blob)
	if err != nil {
		return nil, err
	}
	x, err := Parse(data)
	if err != nil {
		err = fmt.Errorf("the note of %s: %w", commit, err)
		n.bad[commit] = err
		return nil, err
	}
	n.cache[commit] = x
	n.raw[commit] = data
	return x, nil
}

// prefetch reads the notes of commits in one pipelined exchange with
// cat-file (the names written while the answers are read), so many notes
// cost one round trip, not one each.
func (n *rdNotes) prefetch(commits []string) {
	var want []string
	for _, c := range commits {
		if _, done := n.cache[c]; done {
			continue
		}
		if _, ok := n.index[c]; ok {
			want = append(want, c)
		} else {
			n.cache[c] = nil
		}
	}
	if len(want) == 0 {
		return
	}
	werr := make(chan error, 1)
	go func() {
		var b strings.Builder
		for _, c := range want {
			b.WriteString(n.index[c] + "\n")
		}
		_, err := io.WriteString(n.cat.in, b.String())
		werr <- err
	}()
	for _, c := range want {
		data, err := n.cat.read(n.index[c])
		if err != nil {
			n.bad[c] = err
			continue // a lost stream fails every later read the same way
		}
		x, err := Parse(data)
		if err != nil {
			n.bad[c] = fmt.Errorf("the note of %s: %w", c, err)
			continue
		}
		n.cache[c], n.raw[c] = x, data
	}
	<-werr
}

func (n *rdNotes) close() { n.cat.close() }

// Author kinds.
const (
	// KindAgent is a line an AI session wrote (an s_ key, or a legacy prompt key).
	KindAgent = "agent"
	// KindHuman is a line a known person wrote (an h_ key).
	KindHuman = "human"
	// KindUntracked is a line no entry of the note names: nothing is known of it.
	KindUntracked = "untracked"
)

// Author is who wrote a line, as the note of the commit that added it says.
type Author struct {
	Kind string `json:"kind"`
	// Key is the attestation key ("s_…::t_…", "h_…" or a legacy key).
	Key string `json:"key,omitempty"`
	// Session and Trace are the key's parts: the agent session and the
	// tool call (the standard's checkpoint) that wrote the line.
	Session string `json:"session,omitempty"`
	Trace   string `json:"trace,omitempty"`
	// Tool, ID and Model are the session's agent_id.
	Tool  string `json:"tool,omitempty"`
	ID    string `json:"session_id,omitempty"`
	Model string `json:"model,omitempty"`
	// Directed is the session's human_author, the person who ran it.
	Directed string `json:"human_author,omitempty"`
	// Prompt is the prompt the line's call served: the session's custom
	// attribute "prompt:<trace>", else its "prompt", when the note has it.
	Prompt string `json:"prompt,omitempty"`
	// Attributes are the session's custom attributes.
	Attributes map[string]string `json:"custom_attributes,omitempty"`
	// Person is a known human's "Name <email>".
	Person string `json:"person,omitempty"`
	// Call is the journal's event for Trace, when a local journal holds it
	// (BlameResult.AttachCalls).
	Call *Call `json:"call,omitempty"`
}

// String is the author in a few words: "claude claude-sonnet-4 session
// 6ef2…", "person Ann <ann@example.com>", "untracked".
func (a Author) String() string {
	switch a.Kind {
	case KindAgent:
		s := a.Tool
		if s == "" {
			s = "agent"
		}
		if a.Model != "" {
			s += " " + a.Model
		}
		if a.ID != "" {
			s += " session " + a.ID
		}
		return s
	case KindHuman:
		if a.Person != "" {
			return "person " + a.Person
		}
		return "person " + a.Key
	}
	return KindUntracked
}

// legacyPrompt is the part of a legacy prompt record the readers use.
type legacyPrompt struct {
	AgentID          AgentID           `json:"agent_id"`
	HumanAuthor      string            `json:"human_author"`
	CustomAttributes map[string]string `json:"custom_attributes"`
}

// AuthorOf resolves an attestation key through the note's metadata (the
// standard's §1.2.3.1: s_ to sessions, h_ to humans, anything else to the
// legacy prompts). An empty key is untracked.
func AuthorOf(n *Note, key string) Author {
	switch {
	case key == "":
		return Author{Kind: KindUntracked}
	case strings.HasPrefix(key, "h_"):
		a := Author{Kind: KindHuman, Key: key}
		if n != nil {
			a.Person = n.Meta.Humans[key].Author
		}
		return a
	case strings.HasPrefix(key, "s_"):
		sess, trace, _ := strings.Cut(key, "::")
		a := Author{Kind: KindAgent, Key: key, Session: sess, Trace: trace}
		if n != nil {
			if s, ok := n.Meta.Sessions[sess]; ok {
				a.Tool, a.ID, a.Model, a.Directed = s.AgentID.Tool, s.AgentID.ID, s.AgentID.Model, s.HumanAuthor
				a.Attributes, a.Prompt = s.CustomAttributes, s.CustomAttributes["prompt:"+trace]
				if a.Prompt == "" {
					a.Prompt = s.CustomAttributes["prompt"]
				}
			}
		}
		return a
	}
	a := Author{Kind: KindAgent, Key: key, Session: key}
	if n != nil {
		var p legacyPrompt
		if raw, ok := n.Meta.Prompts[key]; ok && json.Unmarshal(raw, &p) == nil {
			a.Tool, a.ID, a.Model, a.Directed = p.AgentID.Tool, p.AgentID.ID, p.AgentID.Model, p.HumanAuthor
			a.Attributes, a.Prompt = p.CustomAttributes, p.CustomAttributes["prompt"]
		}
	}
	return a
}

// LineKeys maps each line of path the note attests to its key (the first
// entry naming a line wins, should two name it).
func LineKeys(n *Note, path string) map[int]string {
	if n == nil {
		return nil
	}
	var m map[int]string
	for _, f := range n.Files {
		if f.Path != path {
			continue
		}
		if m == nil {
			m = make(map[int]string)
		}
		for _, e := range f.Entries {
			for _, l := range e.Lines {
				if _, ok := m[l]; !ok {
					m[l] = e.Key
				}
			}
		}
	}
	return m
}

// unquoteGitPath undoes git's C-style quoting of a path ("a\tb" → a<tab>b).
func unquoteGitPath(p string) string {
	if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
		if u, err := strconv.Unquote(p); err == nil {
			return u
		}
	}
	return p
}
