package audit

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/secrets"
	"github.com/journalfs/journal/snapshot"
	"golang.org/x/mod/sumdb/tlog"
)

// # Export format (jsonl)
//
// One line per sealed event, oldest first, then one head line:
//
//	{"type":"event","seq":…,"time":…,"who":{…},"what":{…},"outcome":…,"origin":…,"prev":…,"hash":…,"event":{…}}
//	{"type":"head","events":…,"first":…,"last":…,"head":…,"base_seq":…,"base":…,"filtered":…}
//
// "event" is, byte for byte, the JSON the chain hash is computed over (the
// Event with Hash empty, see ComputeHash), so blake3(event) = hash and
// event.prev = the previous line's hash can be checked without the database.
// Every other field of an event line is derived from "event", and a line must
// equal exactly what ExportLine produces from it: a flipped byte anywhere is
// caught. The head line names the newest sealed event's hash, which can be
// anchored elsewhere (a ticket, a signed commit) to catch a truncated tail.
// base/base_seq are the event before the first exported one (after gc, the
// predecessor of the first retained event). A filtered export (--since,
// --until, --path) checks each line and the links between consecutive events,
// but cannot prove that nothing is missing.

// ExportVersion is the format version written in head lines: 2 when the
// head carries checkpoints (workspace, tree_base, checkpoints), which a
// reader of version 1 would not re-encode and would call altered; 1 else,
// as every export before them.
const ExportVersion = 2

// ExportVersionChain is the head version of an export without checkpoints,
// which every reader since the first understands.
const ExportVersionChain = 1

// ExportWho is who caused an event.
type ExportWho struct {
	Actor         string `json:"actor"` // mcp, cli or external
	User          string `json:"user,omitempty"`
	Host          string `json:"host,omitempty"`
	Client        string `json:"client,omitempty"`
	ClientVersion string `json:"client_version,omitempty"`
	Session       string `json:"session,omitempty"`
}

// ExportFile is what an event did to one file.
type ExportFile struct {
	Path      string      `json:"path"`
	Before    snapshot.ID `json:"before"` // empty: the file did not exist
	After     snapshot.ID `json:"after"`  // empty: the event deleted it
	Added     int         `json:"added"`
	Removed   int         `json:"removed"`
	MovedFrom string      `json:"moved_from,omitempty"`
}

// ExportWhat is what an event did.
type ExportWhat struct {
	Tool string          `json:"tool,omitempty"`
	Kind journal.Kind    `json:"kind"`
	Args json.RawMessage `json:"args,omitempty"` // large text is stored as content hashes by the recorder
	// ArgsSalt is, for a salted event, the salt of its arguments:
	// blake3(args_salt || args) is the hashed event's args_digest.
	ArgsSalt []byte `json:"args_salt,omitempty"`
	// ArgsWithheld says why a salted event's arguments are not in the
	// line: WithheldRedacted or WithheldSecret.
	ArgsWithheld string       `json:"args_withheld,omitempty"`
	Files        []ExportFile `json:"files"`
	Reverts      uint64       `json:"reverts,omitempty"`
	Undone       []uint64     `json:"undone,omitempty"` // a session undo's events (Event.Undone)
}

// ExportRecord is one event line of a jsonl export.
type ExportRecord struct {
	Type    string          `json:"type"` // "event"
	Seq     uint64          `json:"seq"`
	Time    string          `json:"time"` // RFC 3339, UTC
	Who     ExportWho       `json:"who"`
	What    ExportWhat      `json:"what"`
	Outcome string          `json:"outcome"` // committed or rolled_back
	Error   string          `json:"error,omitempty"`
	Origin  string          `json:"origin"` // stdio, http, cli or external
	Prev    snapshot.ID     `json:"prev"`
	Hash    snapshot.ID     `json:"hash"`
	Event   json.RawMessage `json:"event"` // the hashed JSON, verbatim

	next snapshot.ID // the hash the next event links on (VerifyExport)
}

// ExportHead is the last line of an export.
type ExportHead struct {
	Type     string      `json:"type"` // "head"
	Version  int         `json:"version"`
	Events   int         `json:"events"` // event lines in this export
	First    uint64      `json:"first,omitempty"`
	Last     uint64      `json:"last,omitempty"`
	Head     snapshot.ID `json:"head"`     // hash of the journal's newest sealed event
	BaseSeq  uint64      `json:"base_seq"` // the event before the first exported one
	Base     snapshot.ID `json:"base"`     // its hash (empty: none)
	Filtered bool        `json:"filtered"`
	// Producer names the binary that wrote the export ("journal VERSION",
	// BuildVersion); absent from exports written before it was added.
	Producer string `json:"producer,omitempty"`
	// Workspace is the journal's workspace ID, which its checkpoints name.
	Workspace string `json:"workspace,omitempty"`
	// TreeBase is the event before the Merkle tree's first leaf (docs/DESIGN.md "Merkle tree").
	TreeBase uint64 `json:"tree_base,omitempty"`
	// TreeSeed is, after gc dropped leaves of the tree, their compact
	// range (Tx.TreeSeed): the tree of the exported events starts from it.
	TreeSeed []tlog.Hash `json:"tree_seed,omitempty"`
	// Checkpoints are the journal's signed checkpoints (signed notes),
	// smallest tree first: the history up to each must hash to its root.
	Checkpoints []string `json:"checkpoints,omitempty"`
	// Exposed are the events written before salting whose arguments hold
	// a detected secret the export could not withhold (not written).
	Exposed []uint64 `json:"-"`
}

func origin(a journal.Actor) string {
	if a.Origin != "" {
		return a.Origin
	}
	return a.Kind
}

// NewExportRecord derives the export record of a sealed event from the
// event's hashed JSON (raw) and its hash.
func NewExportRecord(e *journal.Event, raw []byte) *ExportRecord {
	r := &ExportRecord{Type: "event", Seq: e.Seq, Time: e.Time.UTC().Format(time.RFC3339Nano),
		Who: ExportWho{Actor: e.Actor.Kind, User: e.Actor.User, Host: e.Actor.Host, Client: e.Actor.Name,
			ClientVersion: e.Actor.Version, Session: e.Actor.Session},
		What:    ExportWhat{Tool: e.Tool, Kind: e.Kind, Args: e.Args, ArgsSalt: e.ArgsSalt, Files: []ExportFile{}, Reverts: e.Reverts, Undone: e.Undone},
		Outcome: string(e.Status), Error: e.Error, Origin: origin(e.Actor), Prev: e.Prev, Hash: e.Hash, Event: raw}
	if e.ArgsRedacted() || e.Withheld == WithheldUnsalted {
		r.What.ArgsWithheld = e.Withheld
		if r.What.ArgsWithheld == "" {
			r.What.ArgsWithheld = WithheldRedacted
		}
	}
	for _, f := range e.Files {
		r.What.Files = append(r.What.Files, ExportFile{Path: f.Path, Before: f.Before, After: f.After,
			Added: f.Added, Removed: f.Removed, MovedFrom: f.MovedFrom})
	}
	return r
}

// ExportLine returns the jsonl line (with its newline) of a sealed event.
func ExportLine(e *journal.Event) ([]byte, error) {
	return exportLine(e, journal.Canonical(e))
}

func exportLine(e *journal.Event, raw []byte) ([]byte, error) {
	r := NewExportRecord(e, nil)
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("journal: export event %d: %w", e.Seq, err)
	}
	// Splice the hashed JSON in verbatim (json.Marshal would re-compact it).
	const tail = `,"event":null}`
	if !strings.HasSuffix(string(b), tail) {
		return nil, fmt.Errorf("journal: export event %d: unexpected encoding", e.Seq)
	}
	b = append(b[:len(b)-len(tail)], `,"event":`...)
	b = append(b, raw...)
	return append(b, '}', '\n'), nil
}

// ExportFilter selects the events of an export; the zero filter selects all.
type ExportFilter struct {
	Since, Until time.Time // inclusive bounds on the event time (zero: unbounded)
	Paths        []string  // journal paths or directories; an event matches if it touched one
	// Reveal keeps arguments that hold a detected secret (package
	// secrets). Without it a salted event's are withheld
	// (WithheldSecret: the line still verifies by its digest) and a csv
	// row's masked; an event written before salting keeps them, its hash
	// covering them (ExportHead.Exposed names it).
	Reveal bool
}

// filtered reports whether f leaves events out (Reveal leaves out values,
// not events).
func (f ExportFilter) filtered() bool {
	return !f.Since.IsZero() || !f.Until.IsZero() || len(f.Paths) > 0
}

// Match reports whether e passes the filter.
func (f ExportFilter) Match(e *journal.Event) bool {
	if !f.Since.IsZero() && e.Time.Before(f.Since) || !f.Until.IsZero() && e.Time.After(f.Until) {
		return false
	}
	if len(f.Paths) == 0 {
		return true
	}
	for _, c := range e.Files {
		if MatchPath(f.Paths, c.Path) || c.MovedFrom != "" && MatchPath(f.Paths, c.MovedFrom) {
			return true
		}
	}
	return false
}

// MatchPath reports whether path is one of pats or lies under one of them.
func MatchPath(pats []string, path string) bool {
	for _, p := range pats {
		p = strings.TrimSuffix(p, "/")
		if p == "." || path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// Export writes the sealed events that pass f as "jsonl" or "csv", oldest
// first, ending with the head record, and returns the head. progress, if not
// nil, is called after each event read.
func Export(t *journal.Tx, w io.Writer, format string, f ExportFilter, progress func(seq uint64)) (*ExportHead, error) {
	if format != "jsonl" && format != "csv" {
		return nil, fmt.Errorf("journal: export format %q: want jsonl or csv", format)
	}
	baseSeq, base := t.Base()
	h := &ExportHead{Type: "head", Version: ExportVersionChain, Filtered: f.filtered(), BaseSeq: baseSeq, Base: base, Producer: "journal " + journal.BuildVersion()}
	var cw *csv.Writer
	if format == "csv" {
		cw = csv.NewWriter(w)
		cw.Write(csvHeader)
	}
	first := true
	scanned := SecretsScanned(t)
	err := t.Each(0, false, func(e *journal.Event) error {
		if progress != nil {
			defer progress(e.Seq)
		}
		if e.Status == journal.StatusPending {
			return nil // not sealed yet: not part of the chain
		}
		h.Head = e.Hash
		if !f.Match(e) {
			return nil
		}
		if first && h.Filtered {
			h.BaseSeq, h.Base = e.Seq-1, e.Prev
		}
		first = false
		if h.First == 0 {
			h.First = e.Seq
			if e.Lost != nil && e.Lost.First != 0 && e.Spans(e.Lost.First) {
				h.First = e.Lost.First // a damaged event first: its span is the chain's start
			}
		}
		h.Last = e.Seq
		h.Events++
		if !f.Reveal && len(e.Args) > 0 {
			if fs := argsSecrets(t, e, scanned); len(fs) > 0 {
				switch {
				case cw != nil:
					c := *e
					c.Args = secrets.MaskArgs(e.Args, fs)
					e = &c
				case e.Salted():
					e = Withhold(e, WithheldSecret)
				default:
					h.Exposed = append(h.Exposed, e.Seq)
				}
			}
		}
		if cw != nil {
			return cw.Write(csvRow(e))
		}
		if t.UnsaltedRedacted(e) {
			e.Withheld = WithheldUnsalted
		}
		line, err := ExportLine(e)
		if err != nil {
			return err
		}
		_, err = w.Write(line)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("journal: export: %w", err)
	}
	cps, err := Checkpoints(t)
	if err != nil {
		return nil, fmt.Errorf("journal: export: %w", err)
	}
	if len(cps) > 0 {
		h.Version, h.Workspace, h.TreeBase = ExportVersion, t.Workspace(), TreeBase(t)
		if _, h.TreeSeed, err = TreeSeed(t); err != nil {
			return nil, fmt.Errorf("journal: export: %w", err)
		}
		for _, c := range cps {
			h.Checkpoints = append(h.Checkpoints, string(c.Note))
		}
	}
	if cw != nil {
		cw.Write([]string{"head", strconv.Itoa(h.Events), "", "", "journal", journal.BuildVersion(), "", "", "", "", "", "", "", "", "", "", "", hexID(h.Base), hexID(h.Head)})
		cw.Flush()
		return h, cw.Error()
	}
	b, _ := json.Marshal(h)
	if _, err := w.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("journal: export: %w", err)
	}
	return h, nil
}

// hexID is the hex form of id, or "" for the zero ID (as in JSON).
func hexID(id snapshot.ID) string {
	b, _ := id.MarshalText()
	return string(b)
}

var csvHeader = []string{"type", "seq", "time", "actor", "client", "client_version", "session", "user", "host",
	"origin", "tool", "kind", "args", "files", "reverts", "outcome", "error", "prev", "hash"}

func csvRow(e *journal.Event) []string {
	files, _ := json.Marshal(NewExportRecord(e, nil).What.Files)
	var revs []string
	for _, seq := range e.Targets() {
		revs = append(revs, strconv.FormatUint(seq, 10))
	}
	rev := strings.Join(revs, " ")
	return []string{"event", strconv.FormatUint(e.Seq, 10), e.Time.UTC().Format(time.RFC3339Nano), e.Actor.Kind,
		e.Actor.Name, e.Actor.Version, e.Actor.Session, e.Actor.User, e.Actor.Host, origin(e.Actor), e.Tool,
		string(e.Kind), string(e.Args), string(files), rev, string(e.Status), e.Error, hexID(e.Prev), hexID(e.Hash)}
}

// Why an export line leaves a salted event's arguments out
// (ExportWhat.ArgsWithheld).
const (
	WithheldRedacted = "redacted" // a redact event took them out of the journal
	WithheldSecret   = "secret"   // they hold a detected secret; export --reveal includes them
	// WithheldUnsalted: a redact event took out the arguments of an event
	// written before salting, whose line's hash then no longer is blake3
	// of its event (a verifier checks its links and that a redact event
	// names it).
	WithheldUnsalted = "redacted-unsalted"
)

// Withhold returns a copy of e whose export line leaves its arguments out,
// saying why (WithheldSecret); e must be salted, else its hash would no
// longer verify, and e comes back as it is.
func Withhold(e *journal.Event, why string) *journal.Event {
	if e.ArgsDigest == nil || len(e.Args) == 0 {
		return e
	}
	c := *e
	c.Args, c.ArgsSalt, c.Withheld = nil, nil, why
	return &c
}

// disclose sets in e, decoded from a line's hashed event, the arguments,
// salt or reason they were withheld that the line b carries, and checks
// the arguments against e's digest. It finds them without decoding the
// line: `,"args":` and `,"args_withheld":"` appear in a line only as
// what's keys (inside a JSON string a quote is escaped), and the caller
// compares the whole line with the one derived from e, so anything
// misplaced fails there.
func disclose(e *journal.Event, b []byte) error {
	var w ExportWhat
	if i := bytes.Index(b, []byte(`,"args":`)); i >= 0 {
		rest := b[i+len(`,"args":`):]
		dec := json.NewDecoder(bytes.NewReader(rest))
		if err := dec.Decode(&w.Args); err != nil {
			return fmt.Errorf("event %d: arguments: %v", e.Seq, err)
		}
		rest = rest[dec.InputOffset():]
		const salt = `,"args_salt":"`
		if bytes.HasPrefix(rest, []byte(salt)) {
			rest = rest[len(salt):]
			if j := bytes.IndexByte(rest, '"'); j >= 0 {
				w.ArgsSalt, _ = base64.StdEncoding.DecodeString(string(rest[:j]))
			}
		}
	} else if i := bytes.Index(b, []byte(`,"args_withheld":"`)); i >= 0 {
		rest := b[i+len(`,"args_withheld":"`):]
		if j := bytes.IndexByte(rest, '"'); j >= 0 {
			w.ArgsWithheld = string(rest[:j])
		}
	}
	return discloseWhat(e, &w)
}

// discloseWhat is disclose of an export line's what, decoded.
func discloseWhat(e *journal.Event, w *ExportWhat) error {
	switch {
	case len(w.Args) > 0 && w.ArgsWithheld != "":
		return fmt.Errorf("event %d: arguments both given and withheld", e.Seq)
	case len(w.Args) == 0 && w.ArgsWithheld != WithheldRedacted && w.ArgsWithheld != WithheldSecret:
		return fmt.Errorf("event %d: arguments missing (withheld: %q)", e.Seq, w.ArgsWithheld)
	}
	if w.ArgsWithheld != WithheldRedacted {
		e.Withheld = w.ArgsWithheld
	}
	if len(w.Args) == 0 {
		return nil
	}
	e.Args, e.ArgsSalt = w.Args, w.ArgsSalt
	if err := e.CheckArgs(); err != nil {
		return fmt.Errorf("event %d: arguments do not match the digest its hash covers", e.Seq)
	}
	return nil
}

// Decode returns the event r carries: its hashed event (r.Event), its
// hash, and for a salted event the arguments and salt the line discloses
// (r.What), checked against the digest the hash covers. An error wraps
// ErrCorrupt.
func (r *ExportRecord) Decode() (*journal.Event, error) {
	e := &journal.Event{}
	if err := json.Unmarshal(r.Event, e); err != nil {
		return nil, fmt.Errorf("journal: event %d: %v: %w", r.Seq, err, journal.ErrCorrupt)
	}
	e.Hash = r.Hash
	if e.ArgsDigest != nil {
		if err := discloseWhat(e, &r.What); err != nil {
			return nil, fmt.Errorf("journal: %v: %w", err, journal.ErrCorrupt)
		}
	}
	return e, nil
}
