package journal

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"reflect"
	"slices"
	"time"

	"github.com/journalfs/journal/snapshot"
	"github.com/klauspost/compress/zstd"
)

// Compact event records. An event stored as JSON costs ~560 bytes, most of
// them names and hex: "before":"<64 hex digits>". Records are written in a
// binary form (recordV2) that holds the same fields — IDs as 32 raw bytes,
// common strings (kinds, statuses, tool names) as one byte, numbers as
// varints — about a third the size:
//
//	byte 0     record version (2)
//	bytes 1..4 CRC-32C of the body (big-endian)
//	body       seq, time (Unix nanoseconds and zone offset in seconds,
//	           varints), kind, status, the actor's seven strings, tool,
//	           args (uvarint n<<1|z, then n bytes: the JSON, or with z = 1 a
//	           zstd frame of it compressed with argsDict), files (0 for none, else 1 +
//	           the count, then per file:
//	           path, before, after, modes, lines added and removed, moved
//	           from, new directories), reverts, error, prev, hash
//
// A string is a uvarint: 0 followed by its length and bytes, or k > 0 for
// entry k-1 of recordStrings (append-only). An ID is one byte, 0 (the zero
// ID) or 32 followed by its bytes. The body ends where its fields end, so
// repair can find a record in a damaged file's raw bytes.
//
// The chain hash stays defined over the event's canonical JSON (ComputeHash,
// export): a v2 record is written only if the event it decodes to marshals
// to exactly the JSON of the event given, else the record is JSON (v1), as
// it is for damaged events (Lost). A journal holding v2 records is marked
// format 5 (FormatCompact); v1 records written before read as they always
// did.

const recordV2 = 2

// recordV3 is recordV2 with the actor as its number in the actors bucket
// (actors.go: one uvarint, ≥ 1, instead of seven strings), written since
// format 9 (FormatActors) by a transaction (Tx.put); Encode, which has no
// journal, writes v2.
const recordV3 = 3

// recordV5 and recordV6 are recordV2 and recordV3 of a salted event
// (Event.ArgsDigest, format 12): right after the arguments, the salt (a
// uvarint length and its bytes), the digest being blake3 of the salt and
// the arguments; once they are redacted, a zero length and the digest (an
// ID). Version 4 is an event block's (pack.go).
const (
	recordV5 = 5
	recordV6 = 6
)

// compactVersion reports whether v is a compact record's version, and
// whether such a record names its actor by number and holds a salt.
func compactVersion(v byte) (ok, actorNum, salted bool) {
	switch v {
	case recordV2:
		return true, false, false
	case recordV3:
		return true, true, false
	case recordV5:
		return true, false, true
	case recordV6:
		return true, true, true
	}
	return false, false, false
}

// argsCompressMin is the size from which a call's arguments are compressed.
const argsCompressMin = 48

// argsDict is the zstd raw dictionary (ID 1) a record's arguments are
// compressed with: the keys and shapes of the tools' arguments and common
// code. It is part of the record format: never change it (a new one would
// take a new ID).
const argsDict = `{"absolute_file_path":"/home/user/src/project/main.go","changes":[{"replace_text":"","search_text":""}],` +
	`"expected_version":"","fuzzy":false,"preview":false,"replace_text":"\treturn nil\n}\n",` +
	`"search_text":"\tif err != nil {\n\t\treturn err\n\t}\n","allow_repeat":true,` +
	`"ops":[{"content":"","end_line":1,"path":"","start_line":1}],"path":"src/",` +
	`"content":"package main\n\nimport (\n\t\"fmt\"\n)\n\nfunc main() {\n\tfmt.Println(\"\")\n}\n",` +
	`"line_number":1,"text":"// ","symbol":"","new_name":"","file_path":"","form":"(defn ","comment":"// TODO: "}`

var (
	argsEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false), zstd.WithEncoderDictRaw(1, []byte(argsDict)))
	argsDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1<<30),
		zstd.WithDecoderDictRaw(1, []byte(argsDict)))
)

// recordStrings are the strings a v2 record writes as one byte. Append
// only: a record names them by index.
var recordStrings = []string{
	"",
	// kinds
	"apply", "revert", "undo", "redo", "restore", "observe", "gc", "damaged",
	// statuses
	"pending", "committed", "rolled_back",
	// actor kinds and origins
	"mcp", "cli", "external", "stdio", "http",
	// tools (MCP, then the CLI's)
	"edit_content", "edit_move_text", "file_copy_paste_text", "file_create_new", "file_edit",
	"file_insert_text", "file_replace", "insert_comment_at_line", "insert_top_level_form", "rename_symbol",
	"replace_top_level_form", "revert_edit", "restore", "repair",
}

var recordIndex = func() map[string]uint64 {
	m := make(map[string]uint64, len(recordStrings))
	for i, s := range recordStrings {
		if _, dup := m[s]; !dup {
			m[s] = uint64(i + 1)
		}
	}
	return m
}()

// encodeCompact returns e's compact record — v3 naming its actor by
// number actor when that is not 0, else v2 — or false when e has what it
// does not hold (Lost) or would not decode to the same JSON.
func encodeCompact(e *Event, actor uint64) ([]byte, bool) {
	if e.Lost != nil {
		return nil, false
	}
	w := recWriter{b: make([]byte, 5, 5+256+len(e.Args))}
	w.b[0] = recordV2
	switch {
	case actor != 0 && e.ArgsDigest != nil:
		w.b[0] = recordV6
	case actor != 0:
		w.b[0] = recordV3
	case e.ArgsDigest != nil:
		w.b[0] = recordV5
	}
	w.uvarint(e.Seq)
	_, offset := e.Time.Zone()
	w.varint(e.Time.UnixNano())
	w.varint(int64(offset))
	w.str(string(e.Kind))
	w.str(string(e.Status))
	if actor != 0 {
		w.uvarint(actor)
	} else {
		a := &e.Actor
		for _, s := range []string{a.Kind, a.Name, a.Version, a.Session, a.User, a.Host, a.Origin} {
			w.str(s)
		}
	}
	w.str(e.Tool)
	w.args(e.Args)
	if e.ArgsDigest != nil {
		w.uvarint(uint64(len(e.ArgsSalt)))
		w.b = append(w.b, e.ArgsSalt...)
		if len(e.ArgsSalt) == 0 {
			w.id(*e.ArgsDigest)
		}
	}
	if e.Files == nil { // "files": null, not []
		w.uvarint(0)
	} else {
		w.uvarint(uint64(len(e.Files)) + 1)
	}
	for i := range e.Files {
		f := &e.Files[i]
		if f.Added < 0 || f.Removed < 0 {
			return nil, false
		}
		w.str(f.Path)
		w.id(f.Before)
		w.id(f.After)
		w.uvarint(uint64(f.BeforeMode))
		w.uvarint(uint64(f.AfterMode))
		w.uvarint(uint64(f.Added))
		w.uvarint(uint64(f.Removed))
		w.str(f.MovedFrom)
		w.uvarint(uint64(len(f.NewDirs)))
		for _, d := range f.NewDirs {
			w.str(d)
		}
	}
	w.uvarint(e.Reverts)
	w.str(e.Error)
	w.id(e.Prev)
	w.id(e.Hash)
	binary.BigEndian.PutUint32(w.b[1:], crc32.Checksum(w.b[5:], castagnoli))
	// the record must stand for exactly the same event
	d, _, err := parseCompact(w.b, func(uint64) (Actor, error) { return e.Actor, nil }) // its checksum was computed just now
	if err != nil {
		return nil, false
	}
	if sameEvent(d, e) {
		return w.b, true
	}
	// not the same value (a field the record leaves out, or arguments
	// spelt otherwise): the same JSON will do
	canon, err := json.Marshal(e)
	if err != nil {
		return nil, false
	}
	again, err := json.Marshal(d)
	if err != nil || !bytes.Equal(again, canon) {
		return nil, false
	}
	return w.b, true
}

// sameEvent reports whether d, decoded from e's record, is e: every field
// equal (its time the same instant at the same offset, which is all its
// JSON shows of it; Withheld, never encoded, aside), so that its JSON is
// e's without the two being encoded (an event of 10,000 files, twice).
// False proves nothing: the JSON may still be the same, or there may be
// none (a time JSON cannot spell, arguments that are not JSON: the JSON
// encoding then refuses the event).
func sameEvent(d, e *Event) bool {
	_, od := d.Time.Zone()
	_, oe := e.Time.Zone()
	if y := e.Time.Year(); !d.Time.Equal(e.Time) || od != oe || y < 0 || y > 9999 {
		return false
	}
	if len(e.Args) > 0 && !json.Valid(e.Args) {
		return false
	}
	if !sameFiles(d.Files, e.Files) {
		return false
	}
	c := *d
	c.Time, c.Withheld, c.Files = e.Time, e.Withheld, e.Files // the files compared above (reflect takes microseconds for each)
	return reflect.DeepEqual(&c, e)
}

// sameFiles reports whether a and b are the same files, field by field
// (both nil or neither, as reflect.DeepEqual has it).
func sameFiles(a, b []FileChange) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Path != y.Path || x.Before != y.Before || x.After != y.After || x.BeforeMode != y.BeforeMode ||
			x.AfterMode != y.AfterMode || x.Added != y.Added || x.Removed != y.Removed || x.MovedFrom != y.MovedFrom ||
			(x.NewDirs == nil) != (y.NewDirs == nil) || !slices.Equal(x.NewDirs, y.NewDirs) {
			return false
		}
	}
	return true
}

type recWriter struct{ b []byte }

func (w *recWriter) uvarint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *recWriter) varint(v int64)   { w.b = binary.AppendVarint(w.b, v) }

func (w *recWriter) str(s string) {
	if k, ok := recordIndex[s]; ok {
		w.uvarint(k)
		return
	}
	w.uvarint(0)
	w.uvarint(uint64(len(s)))
	w.b = append(w.b, s...)
}

// args writes a tool call's arguments: uvarint n<<1 | z, then n bytes, the
// JSON as it is (z = 0) or a zstd frame of it compressed with argsDict (z =
// 1), whichever is smaller.
func (w *recWriter) args(p []byte) {
	if len(p) >= argsCompressMin {
		z := argsEncoder.EncodeAll(p, nil)
		if len(z) < len(p) {
			w.uvarint(uint64(len(z))<<1 | 1)
			w.b = append(w.b, z...)
			return
		}
	}
	w.uvarint(uint64(len(p)) << 1)
	w.b = append(w.b, p...)
}

func (w *recWriter) id(id snapshot.ID) {
	if id.IsZero() {
		w.b = append(w.b, 0)
		return
	}
	w.b = append(append(w.b, 32), id[:]...)
}

var errShort = errors.New("record ends early")

// actorResolver returns the actor of a number (a v3 record's); nil: none
// can be resolved.
type actorResolver func(id uint64) (Actor, error)

// decodeCompact parses the v2 or v3 record at the start of rec and returns
// the event and the record's length (rec may go on past it, in a damaged
// file's raw bytes); actors resolves a v3 record's actor.
func decodeCompact(rec []byte, actors actorResolver) (*Event, int, error) {
	e, n, err := parseCompact(rec, actors)
	if err != nil {
		return nil, 0, err
	}
	if crc32.Checksum(rec[5:n], castagnoli) != binary.BigEndian.Uint32(rec[1:]) {
		return nil, 0, errors.New("checksum mismatch")
	}
	return e, n, nil
}

// parseCompact is decodeCompact without the checksum.
func parseCompact(rec []byte, actors actorResolver) (*Event, int, error) {
	var r recReader
	e, err := r.compact(rec, actors)
	if err != nil {
		return nil, 0, err
	}
	return e, r.i, nil
}

// compact reads the v2 or v3 record at the start of rec (parseCompact),
// leaving r after it.
func (r *recReader) compact(rec []byte, actors actorResolver) (*Event, error) {
	if len(rec) < 5 {
		return nil, errShort
	}
	ok, actorNum, salted := compactVersion(rec[0])
	if !ok {
		return nil, errShort
	}
	*r = recReader{b: rec, i: 5}
	e := &Event{}
	e.Seq = r.uvarint()
	nanos, offset := r.varint(), r.varint()
	loc := time.UTC
	if offset != 0 {
		if offset < -24*3600 || offset > 24*3600 {
			return nil, fmt.Errorf("zone offset %d", offset)
		}
		loc = time.FixedZone("", int(offset))
	}
	e.Time = time.Unix(0, nanos).In(loc)
	e.Kind = Kind(r.str())
	e.Status = Status(r.str())
	if actorNum {
		id := r.uvarint()
		switch {
		case r.err != nil:
		case actors == nil || id == 0:
			return nil, fmt.Errorf("actor %d: not known here", id)
		default:
			a, err := actors(id)
			if err != nil {
				return nil, err
			}
			e.Actor = a
		}
	} else {
		a := &e.Actor
		for _, s := range []*string{&a.Kind, &a.Name, &a.Version, &a.Session, &a.User, &a.Host, &a.Origin} {
			*s = r.str()
		}
	}
	e.Tool = r.str()
	if args := r.args(); len(args) > 0 {
		e.Args = json.RawMessage(args)
	}
	if salted {
		var d snapshot.ID
		if s := r.take(r.uvarint()); len(s) > 0 {
			e.ArgsSalt = bytes.Clone(s)
			d = ArgsDigestOf(e.ArgsSalt, e.Args)
		} else {
			d = r.id()
		}
		e.ArgsDigest = &d
	}
	n := r.uvarint()
	if n > uint64(len(rec)) {
		return nil, errShort
	}
	if n > 0 {
		e.Files = make([]FileChange, n-1)
	}
	for i := range e.Files {
		f := &e.Files[i]
		f.Path = r.str()
		f.Before, f.After = r.id(), r.id()
		f.BeforeMode, f.AfterMode = uint32(r.uvarint()), uint32(r.uvarint())
		f.Added, f.Removed = int(r.uvarint()), int(r.uvarint())
		f.MovedFrom = r.str()
		nd := r.uvarint()
		if nd > uint64(len(rec)) {
			return nil, errShort
		}
		for range nd {
			f.NewDirs = append(f.NewDirs, r.str())
		}
	}
	e.Reverts = r.uvarint()
	e.Error = r.str()
	e.Prev, e.Hash = r.id(), r.id()
	if r.err != nil {
		return nil, r.err
	}
	return e, nil
}

type recReader struct {
	b   []byte
	i   int
	err error
	// where args read the arguments (rawArgs): from argsAt (their
	// length) to argsEnd, compressed if argsZ
	argsAt, argsEnd int
	argsZ           bool
}

func (r *recReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.i:])
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.i += n
	return v
}

func (r *recReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b[r.i:])
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.i += n
	return v
}

func (r *recReader) take(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)-r.i) {
		r.err = errShort
		return nil
	}
	p := r.b[r.i : r.i+int(n)]
	r.i += int(n)
	return p
}

func (r *recReader) str() string {
	k := r.uvarint()
	if k > 0 {
		if k > uint64(len(recordStrings)) {
			if r.err == nil {
				r.err = fmt.Errorf("string %d unknown", k)
			}
			return ""
		}
		return recordStrings[k-1]
	}
	return string(r.take(r.uvarint()))
}

// args reads what recWriter.args wrote.
func (r *recReader) args() []byte {
	r.argsAt = r.i
	v := r.uvarint()
	p := r.take(v >> 1)
	r.argsEnd, r.argsZ = r.i, v&1 == 1
	if v&1 == 0 || r.err != nil {
		return bytes.Clone(p)
	}
	out, err := argsDecoder.DecodeAll(p, nil)
	if err != nil {
		r.err = fmt.Errorf("arguments: %v", err)
		return nil
	}
	return out
}

func (r *recReader) id() snapshot.ID {
	var id snapshot.ID
	switch p := r.take(1); {
	case p == nil:
	case p[0] == 0:
	case p[0] == 32:
		copy(id[:], r.take(32))
	default:
		if r.err == nil {
			r.err = fmt.Errorf("ID of %d bytes", p[0])
		}
	}
	return id
}

// rawArgs returns the compact record rec (v2 or v3, loose: exactly one
// record) with its arguments as they are (z = 0) where it holds them
// compressed, its checksum recomputed; any other record, or one that does
// not parse whole (recReader.compact, as every read does) or check, is
// returned as it is. A block of events (pack.go)
// stores its records so: the block's frame compresses the arguments of 256
// events together — their keys, paths and the lines they search for repeat
// from one call to the next — which a frame per call cannot
// (BENCHMARKS.md "Storage").
func rawArgs(rec []byte) []byte {
	var r recReader
	// the actor is not needed: a v3 record's number is kept as it is
	e, err := r.compact(rec, func(uint64) (Actor, error) { return Actor{}, nil })
	if err != nil || r.i != len(rec) || !r.argsZ || crc32.Checksum(rec[5:], castagnoli) != binary.BigEndian.Uint32(rec[1:]) {
		return rec
	}
	out := make([]byte, 0, len(rec)+len(e.Args))
	out = append(out, rec[:r.argsAt]...)
	out = binary.AppendUvarint(out, uint64(len(e.Args))<<1)
	out = append(out, e.Args...)
	out = append(out, rec[r.argsEnd:]...)
	binary.BigEndian.PutUint32(out[1:], crc32.Checksum(out[5:], castagnoli))
	return out
}
