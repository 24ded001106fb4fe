package gitai

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// SchemaVersion is the Git AI Standard version the notes follow.
const SchemaVersion = "authorship/3.0.0"

// NotesRef is where the notes live (the standard's §1.1).
const NotesRef = "refs/notes/ai"

// Note is one commit's authorship log: per file, the lines the commit adds
// that the journal can attribute, by attestation key, and the records the
// keys name. Lines no entry names are untracked.
type Note struct {
	Files []FileNote
	Meta  Meta
}

// FileNote is one file's attestations, in the order they are written.
type FileNote struct {
	Path    string
	Entries []Entry
}

// Entry is one attestation line: a key ("s_…::t_…" or "h_…") and the
// commit's line numbers it names (1-based, ascending).
type Entry struct {
	Key   string
	Lines []int
}

// Meta is the note's metadata section (the standard's §1.2.4). Fields the
// standard does not define are carried under custom_attributes only.
type Meta struct {
	SchemaVersion string                  `json:"schema_version"`
	GitAIVersion  string                  `json:"git_ai_version,omitempty"`
	BaseCommitSHA string                  `json:"base_commit_sha"`
	Prompts       map[string]PromptRecord `json:"prompts"`
	Sessions      map[string]Session      `json:"sessions,omitempty"`
	Humans        map[string]Human        `json:"humans,omitempty"`
}

// PromptRecord is a legacy (pre-sessions) record; we write none, but a note
// merged with another tool's keeps them.
type PromptRecord = json.RawMessage

// Session is an AI session's record.
type Session struct {
	AgentID          AgentID           `json:"agent_id"`
	HumanAuthor      string            `json:"human_author,omitempty"`
	CustomAttributes map[string]string `json:"custom_attributes,omitempty"`
}

// AgentID names the agent: its tool, its session (conversation) id and model.
type AgentID struct {
	Tool  string `json:"tool"`
	ID    string `json:"id"`
	Model string `json:"model,omitempty"`
}

// Human is a known human author ("Name <email>").
type Human struct {
	Author string `json:"author"`
}

// SessionKey is the standard's session id: "s_" + the first 14 hex digits
// of SHA-256 of "<tool>:<conversation id>".
func SessionKey(tool, id string) string {
	sum := sha256.Sum256([]byte(tool + ":" + id))
	return "s_" + hex.EncodeToString(sum[:])[:14]
}

// TraceKey is a trace id: "t_" + 14 hex digits. The standard draws them at
// random per checkpoint; ours are derived from what names the tool call
// (the journal's workspace and event), so a note computed twice is the same
// note, and still unique per call.
func TraceKey(call string) string {
	sum := sha256.Sum256([]byte("journal-trace:" + call))
	return "t_" + hex.EncodeToString(sum[:])[:14]
}

// HumanKey is the standard's human key: "h_" + 14 hex digits of SHA-256 of
// the author identity ("Name <email>").
func HumanKey(author string) string {
	sum := sha256.Sum256([]byte(author))
	return "h_" + hex.EncodeToString(sum[:])[:14]
}

// Format writes n in the standard's layout: the attestation section (files
// without entries left out, paths with spaces, tabs or newlines quoted,
// entries indented by two spaces, line ranges compressed), the divider, and
// the metadata as indented JSON. Files and entries are sorted, so equal notes
// format to equal bytes.
func Format(n *Note) ([]byte, error) {
	var b bytes.Buffer
	files := slices.Clone(n.Files)
	slices.SortFunc(files, func(x, y FileNote) int { return strings.Compare(x.Path, y.Path) })
	for _, f := range files {
		var entries []Entry
		for _, e := range f.Entries {
			if len(e.Lines) > 0 {
				entries = append(entries, e)
			}
		}
		if len(entries) == 0 {
			continue
		}
		if strings.ContainsRune(f.Path, '"') {
			return nil, fmt.Errorf("gitai: path %q holds a double quote, which the note format cannot write", f.Path)
		}
		p := f.Path
		if strings.ContainsAny(p, " \t\n") {
			p = `"` + p + `"`
		}
		b.WriteString(p + "\n")
		slices.SortFunc(entries, func(x, y Entry) int {
			if c := x.Lines[0] - y.Lines[0]; c != 0 {
				return c
			}
			return strings.Compare(x.Key, y.Key)
		})
		for _, e := range entries {
			b.WriteString("  " + e.Key + " " + FormatRanges(e.Lines) + "\n")
		}
	}
	b.WriteString("---\n")
	m := n.Meta
	m.SchemaVersion = SchemaVersion
	if m.Prompts == nil {
		m.Prompts = map[string]PromptRecord{}
	}
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("gitai: metadata: %w", err)
	}
	b.Write(js)
	b.WriteString("\n")
	return b.Bytes(), nil
}

// FormatRanges writes ascending line numbers as "1-4,9,12-13".
func FormatRanges(lines []int) string {
	ls := slices.Clone(lines)
	slices.Sort(ls)
	ls = slices.Compact(ls)
	var parts []string
	for i := 0; i < len(ls); {
		j := i
		for j+1 < len(ls) && ls[j+1] == ls[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, strconv.Itoa(ls[i]))
		} else {
			parts = append(parts, strconv.Itoa(ls[i])+"-"+strconv.Itoa(ls[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// ErrFormat means a note does not follow the standard's layout.
var ErrFormat = errors.New("not a Git AI authorship log")

// Parse reads a note written by any implementation of the standard.
func Parse(data []byte) (*Note, error) {
	head, meta, ok := bytes.Cut(data, []byte("\n---\n"))
	if !ok {
		if bytes.HasPrefix(data, []byte("---\n")) {
			head, meta, ok = nil, data[4:], true
		} else {
			return nil, fmt.Errorf("gitai: no --- divider: %w", ErrFormat)
		}
	}
	n := &Note{}
	sc := bufio.NewScanner(bytes.NewReader(head))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for ln := 1; sc.Scan(); ln++ {
		t := sc.Text()
		switch {
		case t == "":
		case strings.HasPrefix(t, "  "):
			if len(n.Files) == 0 {
				return nil, fmt.Errorf("gitai: line %d: an entry before any file: %w", ln, ErrFormat)
			}
			key, rs, ok := strings.Cut(t[2:], " ")
			if !ok || key == "" {
				return nil, fmt.Errorf("gitai: line %d: %q is not \"key ranges\": %w", ln, t, ErrFormat)
			}
			lines, err := ParseRanges(rs)
			if err != nil {
				return nil, fmt.Errorf("gitai: line %d: %w", ln, err)
			}
			f := &n.Files[len(n.Files)-1]
			f.Entries = append(f.Entries, Entry{Key: key, Lines: lines})
		default:
			p := t
			if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
				p = p[1 : len(p)-1]
			}
			n.Files = append(n.Files, FileNote{Path: p})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("gitai: %w", err)
	}
	if err := json.Unmarshal(meta, &n.Meta); err != nil {
		return nil, fmt.Errorf("gitai: metadata: %v: %w", err, ErrFormat)
	}
	return n, nil
}

// ParseRanges reads "1-4,9,12-13" into ascending line numbers.
func ParseRanges(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(part, "-")
		lo, err := strconv.Atoi(a)
		if err != nil || lo < 1 {
			return nil, fmt.Errorf("line range %q: %w", s, ErrFormat)
		}
		hi := lo
		if isRange {
			if hi, err = strconv.Atoi(b); err != nil || hi < lo {
				return nil, fmt.Errorf("line range %q: %w", s, ErrFormat)
			}
		}
		for l := lo; l <= hi; l++ {
			out = append(out, l)
		}
	}
	return out, nil
}
