package journal

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/journalfs/journal/snapshot"
)

// Kind says why an event exists.
type Kind string

// Event kinds.
const (
	KindApply   Kind = "apply"   // a mutating tool call or CLI edit
	KindRevert  Kind = "revert"  // takes an earlier event's changes back
	KindUndo    Kind = "undo"    // a revert chosen by undo
	KindRedo    Kind = "redo"    // a revert of an undo
	KindRestore Kind = "restore" // a file, or every file (a rewind), put back to its state after an earlier event
	KindObserve Kind = "observe" // a change made outside the journal, recorded before it is overwritten
	KindGC      Kind = "gc"      // retention ran
	KindDamaged Kind = "damaged" // written by repair: what the damaged journal lost (Event.Lost)
	KindRedact  Kind = "redact"  // values taken out of the record (Event.Redaction); changes no file
	// KindPrompt records a prompt an agent was given (its text, id and model
	// in the salted arguments, so a redaction takes the text out); changes
	// no file. The events of its session after it, until the next, are its
	// doing (replay/prompt.go).
	KindPrompt Kind = "prompt"
)

// Tools of observe events recorded by the workspace watcher (replay/watch.go),
// the agent hooks and journal exec. Any other observe event (Tool empty) was
// recorded lazily, just before a tool overwrote a file changed outside.
const (
	// ToolBaseline marks an observe event that records files the journal had
	// not seen yet when a watcher first scanned a root: each file existed
	// before the event (its Before is zero only because the journal did not
	// know it), so nothing may treat the event as having created them — an
	// undo or revert of it is refused and a rewind to an earlier point leaves
	// those files alone.
	ToolBaseline = "watch.baseline"
	// ToolCatchUp marks the observe event a starting watcher records for what
	// changed while no watcher ran.
	ToolCatchUp = "watch.catch-up"
	// ToolWatch marks an observe event of changes the running watcher saw,
	// made by a process it could not name.
	ToolWatch = "watch"
)

// IsBaseline reports whether e records files first seen by a watcher's scan
// (ToolBaseline), as opposed to files created at that point.
func (e *Event) IsBaseline() bool { return e.Kind == KindObserve && e.Tool == ToolBaseline }

// Status is where an event is in the apply protocol.
type Status string

// Event statuses.
const (
	StatusPending    Status = "pending"     // intent recorded, files may be partly written
	StatusCommitted  Status = "committed"   // every file is in its after state
	StatusRolledBack Status = "rolled_back" // every file was put back in its before state
)

// Actor is who caused an event.
type Actor struct {
	Kind    string `json:"kind"`              // "mcp", "cli" or "external"
	Name    string `json:"name,omitempty"`    // MCP client name
	Version string `json:"version,omitempty"` // MCP client version
	Session string `json:"session,omitempty"` // MCP session id (one stdio process or one HTTP session)
	User    string `json:"user,omitempty"`    // OS user
	Host    string `json:"host,omitempty"`    // host name
	Origin  string `json:"origin,omitempty"`  // "stdio", "http" or "cli"
}

// FileChange is what an event did to one file. A zero Before means the file
// did not exist; a zero After means the event deleted it.
type FileChange struct {
	Path       string      `json:"path"`
	Before     snapshot.ID `json:"before"`
	After      snapshot.ID `json:"after"`
	BeforeMode uint32      `json:"before_mode,omitempty"`
	AfterMode  uint32      `json:"after_mode,omitempty"`
	Added      int         `json:"added,omitempty"`   // lines added (text files)
	Removed    int         `json:"removed,omitempty"` // lines removed (text files)
	MovedFrom  string      `json:"moved_from,omitempty"`
	// NewDirs are the parent directories the change creates for a new file,
	// relative to its root, outermost first: recovery removes them again
	// (when empty) after a crash rolls the change back.
	NewDirs []string `json:"new_dirs,omitempty"`
}

// Event is one entry of the journal. Everything but Status, Error and Hash is
// fixed when the event is appended; Status and Error are fixed when it is
// sealed, and Hash then covers all of it (see doc.go).
type Event struct {
	Seq   uint64          `json:"seq"`
	Time  time.Time       `json:"time"`
	Kind  Kind            `json:"kind"`
	Actor Actor           `json:"actor"`
	Tool  string          `json:"tool,omitempty"`
	Args  json.RawMessage `json:"args,omitempty"`
	// ArgsSalt and ArgsDigest are, for an event with arguments written
	// since format 12, 16 random bytes and blake3(ArgsSalt || Args): the
	// chain hash covers the digest, not the arguments nor the salt
	// (ComputeHash), so both can be taken out (a redaction) and the
	// record still verifies, while the salt keeps the digest from
	// confirming a guess of the arguments. Nil on events written before.
	ArgsSalt   []byte       `json:"args_salt,omitempty"`
	ArgsDigest *snapshot.ID `json:"args_digest,omitempty"`
	Files      []FileChange `json:"files"`
	Reverts    uint64       `json:"reverts,omitempty"` // for revert/undo/redo: the event taken back
	// Undone is, for the undo of a whole session (KindUndo, Reverts 0), every
	// event it took back, newest first; each is linked to it as Reverts is.
	Undone []uint64 `json:"undone,omitempty"`
	Status Status   `json:"status"`
	Error  string   `json:"error,omitempty"` // why it was rolled back
	Lost   *Lost    `json:"lost,omitempty"`  // for damaged: what it stands for
	// Redaction is, on a redact event, what it took out of the record.
	Redaction *Redaction  `json:"redaction,omitempty"`
	Prev      snapshot.ID `json:"prev"`
	Hash      snapshot.ID `json:"hash"`

	// Withheld says why an export leaves out the arguments of this copy
	// of a salted event (audit.Withhold), when the journal still holds
	// them. It is neither stored nor hashed: only the export line has it.
	Withheld string `json:"-"`
}

// Lost is what a damaged event (KindDamaged, written by repair) stands for.
// When First is set, the events First..Last could not be read from the
// damaged journal: the damaged event takes number Last (the numbers before it
// stay unused), its Prev is the hash of event First-1, and the event after it
// links to NextPrev — the lost event Last's hash, known from that event's
// prev — or, when the lost events were the newest (NextPrev zero), to the
// damaged event's own hash. Contents are contents that events name and no
// readable copy of which was left.
type Lost struct {
	First    uint64        `json:"first,omitempty"`
	Last     uint64        `json:"last,omitempty"`
	NextPrev snapshot.ID   `json:"next_prev"`
	Contents []snapshot.ID `json:"contents,omitempty"`
	Why      string        `json:"why,omitempty"`
}

// Spans reports whether e is a damaged event standing for events, the first
// of which would have been number want.
func (e *Event) Spans(want uint64) bool {
	return e.Lost != nil && e.Lost.First == want && e.Seq == e.Lost.Last && e.Seq >= want
}

// NextLink is the hash the event after e must name as its prev.
func (e *Event) NextLink() snapshot.ID {
	if e.Lost != nil && e.Lost.First != 0 && !e.Lost.NextPrev.IsZero() {
		return e.Lost.NextPrev
	}
	return e.Hash
}

// What says what the change did to its file: "moved" (here from
// MovedFrom), "created", "deleted" or "modified".
func (f FileChange) What() string {
	switch {
	case f.MovedFrom != "":
		return "moved"
	case f.Before.IsZero():
		return "created"
	case f.After.IsZero():
		return "deleted"
	}
	return "modified"
}

// File returns the change to path, if the event touched it.
func (e *Event) File(path string) (FileChange, bool) {
	for _, f := range e.Files {
		if f.Path == path {
			return f, true
		}
	}
	return FileChange{}, false
}

// Listed is the event's files as a reader sees them: the delete of a moved
// file's old path is part of the move (the change whose MovedFrom names it)
// and is left out. Files keeps both: a revert puts the old path back, blame
// follows the lines across. Files is returned as it is when nothing moved.
func (e *Event) Listed() []FileChange {
	from := map[string]bool{}
	for _, f := range e.Files {
		if f.MovedFrom != "" {
			from[f.MovedFrom] = true
		}
	}
	if len(from) == 0 {
		return e.Files
	}
	out := make([]FileChange, 0, len(e.Files))
	for _, f := range e.Files {
		if !(from[f.Path] && f.After.IsZero() && f.MovedFrom == "") {
			out = append(out, f)
		}
	}
	return out
}

// MoveSource is, for a file moved here (MovedFrom, created at its new path),
// the change of its old path in the same event: its Before is the content
// the move carried.
func (e *Event) MoveSource(f FileChange) (FileChange, bool) {
	if f.MovedFrom == "" || !f.Before.IsZero() {
		return FileChange{}, false
	}
	return e.File(f.MovedFrom)
}

const recordV1 = 1

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ComputeHash returns the chain hash of e: blake3 of its canonical JSON
// (Canonical: Hash zeroed, and for a salted event its arguments and salt
// left out).
func ComputeHash(e *Event) snapshot.ID {
	return snapshot.Sum(canonical(e))
}

// Encode returns the stored record of e: compact (record.go) when it stands
// for exactly the same canonical JSON, else version byte, CRC-32C of the
// body, JSON body.
func Encode(e *Event) ([]byte, error) { return encode(e, 0) }

// encode is Encode, naming the event's actor by number actor (v3) unless
// it is 0.
func encode(e *Event, actor uint64) ([]byte, error) {
	if rec, ok := encodeCompact(e, actor); ok {
		return rec, nil
	}
	body, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("journal: encode event %d: %w", e.Seq, err)
	}
	rec := make([]byte, 5, 5+len(body))
	rec[0] = recordV1
	binary.BigEndian.PutUint32(rec[1:], crc32.Checksum(body, castagnoli))
	return append(rec, body...), nil
}

// Decode parses a stored record. A short, unknown or checksum-failing record
// wraps ErrCorrupt, and so does a record that names its actor by number
// (v3, which only a transaction resolves: Tx.Event).
func Decode(rec []byte) (*Event, error) { return decode(rec, nil) }

// decode is Decode, with actors resolving a v3 record's actor.
func decode(rec []byte, actors actorResolver) (*Event, error) {
	if len(rec) < 5 {
		return nil, fmt.Errorf("journal: record of %d bytes is torn: %w", len(rec), ErrCorrupt)
	}
	switch rec[0] {
	case recordV1:
	case recordV2, recordV3, recordV5, recordV6:
		e, n, err := decodeCompact(rec, actors)
		if err == nil && n != len(rec) {
			err = fmt.Errorf("%d bytes past its end", len(rec)-n)
		}
		if err != nil {
			return nil, fmt.Errorf("journal: record: %w: %w", err, ErrCorrupt)
		}
		return e, nil
	default:
		return nil, fmt.Errorf("journal: record version %d unknown: %w", rec[0], ErrCorrupt)
	}
	body := rec[5:]
	if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(rec[1:]) {
		return nil, fmt.Errorf("journal: record checksum mismatch: %w", ErrCorrupt)
	}
	e := new(Event)
	if err := json.Unmarshal(body, e); err != nil {
		return nil, fmt.Errorf("journal: record body: %v: %w", err, ErrCorrupt)
	}
	return e, nil
}

// Targets returns the events e takes back: Reverts for a revert, undo or
// redo, Undone for the undo of a session, none for other events.
func (e *Event) Targets() []uint64 {
	if e.Reverts != 0 {
		return append([]uint64{e.Reverts}, e.Undone...)
	}
	return e.Undone
}

// Canonical returns the bytes the chain hash of e is computed over (the
// "event" of its export line): blake3 of them is e.Hash.
func Canonical(e *Event) []byte { return canonical(e) }

// canonical returns the bytes the chain hash of e is computed over: its
// JSON with Hash empty and, for a salted event, without its arguments and
// their salt, which it commits to by ArgsDigest alone.
func canonical(e *Event) []byte {
	c := *e
	c.Hash = snapshot.ID{}
	if c.ArgsDigest != nil {
		c.Args, c.ArgsSalt = nil, nil
	}
	b, _ := json.Marshal(&c)
	return b
}
