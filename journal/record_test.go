package journal

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/snapshot"
)

// recordSamples are events of every shape a journal holds.
func recordSamples() map[string]*Event {
	id := func(s string) snapshot.ID { return snapshot.Sum([]byte(s)) }
	t0 := time.Date(2026, 11, 25, 6, 0, 0, 123456789, time.UTC)
	base := func() *Event {
		return &Event{Seq: 42, Time: t0, Kind: KindApply, Status: StatusCommitted, Tool: "edit_content",
			Actor: Actor{Kind: "mcp", Name: "claude-code", Version: "2.0.31", Session: "stdio-f6af8d928c745cf8", User: "root", Host: "vm", Origin: "stdio"},
			Args:  json.RawMessage(`{"absolute_file_path":"/w/f1.go","preview":false,"replace_text":"line 17 changed\n","search_text":"line 17\n"}`),
			Files: []FileChange{{Path: "f1.go", Before: id("a"), After: id("b"), BeforeMode: 0o644, AfterMode: 0o644, Added: 1, Removed: 1}},
			Prev:  id("prev"), Hash: id("hash")}
	}
	out := map[string]*Event{"edit": base()}
	e := base()
	e.Status, e.Hash = StatusPending, snapshot.ID{}
	out["pending"] = e
	e = base()
	e.Seq, e.Prev = 1, snapshot.ID{}
	out["first"] = e
	e = base()
	e.Time = time.Date(2026, 3, 1, 23, 59, 59, 0, time.FixedZone("CET", 3600))
	out["zone +01:00"] = e
	e = base()
	e.Time = time.Date(1999, 12, 31, 1, 2, 3, 4000, time.FixedZone("", -(9*3600+30*60)))
	out["zone -09:30, micros"] = e
	e = base()
	e.Time = time.Date(2026, 11, 25, 6, 0, 0, 0, time.Local)
	out["local"] = e
	e = base()
	e.Files = []FileChange{
		{Path: "new/dir/ü ñ.go", After: id("n"), AfterMode: 0o755, Added: 300, NewDirs: []string{"new", "new/dir"}},
		{Path: "gone.txt", Before: id("g"), BeforeMode: 0o600, Removed: 12},
		{Path: "moved.txt", MovedFrom: "old name.txt", Before: id("m"), After: id("m")},
	}
	out["files of every kind"] = e
	e = base()
	e.Kind, e.Tool, e.Reverts, e.Args = KindUndo, "undo", 41, nil
	out["undo"] = e
	e = base()
	e.Status, e.Error = StatusRolledBack, "replay: write f1.go: no space left on device"
	out["rolled back"] = e
	e = base()
	e.Kind, e.Tool, e.Actor, e.Files = KindObserve, "", Actor{Kind: "external"}, []FileChange{{Path: "x", Before: id("1"), After: id("2")}}
	out["observe"] = e
	e = base()
	e.Tool, e.Actor.Name = "a tool of tomorrow", strings.Repeat("long name ", 50)
	e.Args = json.RawMessage(`{ "spaced" : [1, 2,3] , "unicode":"\u00e9\u2028" }`)
	out["strings outside the table, args not compact"] = e
	e = base()
	e.Files = nil
	out["no files"] = e
	return out
}

// TestRecordV2_RoundTrip: every sample is written compact, smaller than its
// JSON, and decodes to an event whose canonical JSON (what the chain hash
// and export cover) is byte for byte the original's.
func TestRecordV2_RoundTrip(t *testing.T) {
	for name, e := range recordSamples() {
		t.Run(name, func(t *testing.T) {
			canon, _ := json.Marshal(e)
			rec, err := Encode(e)
			if err != nil {
				t.Fatal(err)
			}
			if rec[0] != recordV2 {
				t.Fatalf("record version %d", rec[0])
			}
			if len(rec) >= len(canon) {
				t.Errorf("compact record of %d bytes, JSON %d", len(rec), len(canon))
			}
			d, err := Decode(rec)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := json.Marshal(d)
			if !bytes.Equal(again, canon) {
				t.Fatalf("canonical JSON changed:\n%s\n%s", canon, again)
			}
			if ComputeHash(d) != ComputeHash(e) {
				t.Fatal("hash changed")
			}
			t.Logf("%d bytes (JSON %d)", len(rec), len(canon))
		})
	}
}

// TestRecordV2_Fallback: a damaged event (Lost) is written as JSON (v1), and
// a v1 record written by an earlier binary still decodes.
func TestRecordV2_Fallback(t *testing.T) {
	e := recordSamples()["edit"]
	e.Kind, e.Lost = KindDamaged, &Lost{First: 3, Last: 9, Why: "a damaged page"}
	rec, err := Encode(e)
	if err != nil || rec[0] != recordV1 {
		t.Fatalf("record %v, %v", rec[:1], err)
	}
	if d, err := Decode(rec); err != nil || ComputeHash(d) != ComputeHash(e) {
		t.Fatalf("v1 round trip: %v", err)
	}
}

// TestRecordV2_NoneWhereJSONHasNone: the compact record is taken without
// encoding the event as JSON when it decodes to the very same value; an
// event JSON cannot encode (arguments that are not JSON, a year past 9999)
// is still refused, not written compact, and one with a field the compact
// record leaves out (Undone) is written as JSON, whole.
func TestRecordV2_NoneWhereJSONHasNone(t *testing.T) {
	e := recordSamples()["edit"]
	e.Args = json.RawMessage(`{"cut":`)
	if rec, err := Encode(e); err == nil {
		t.Errorf("arguments that are not JSON: record version %d, no error", rec[0])
	}
	e = recordSamples()["edit"]
	e.Time = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	if rec, err := Encode(e); err == nil {
		t.Errorf("year 10000: record version %d, no error", rec[0])
	}
	e = recordSamples()["undo"]
	e.Undone = []uint64{7, 9}
	rec, err := Encode(e)
	if err != nil || rec[0] != recordV1 {
		t.Fatalf("an undo of a session: record %v, %v; want JSON (v1)", rec[:1], err)
	}
	if d, err := Decode(rec); err != nil || !slices.Equal(d.Undone, e.Undone) {
		t.Fatalf("undone %v, %v", d, err)
	}
}

// TestSameFiles_EveryField: a change to any one field of a FileChange
// (each of them, found by reflection: a field added later is covered)
// makes the files differ, so that a compact record never stands for files
// other than the event's.
func TestSameFiles_EveryField(t *testing.T) {
	base := recordSamples()["files of every kind"].Files
	if !sameFiles(base, slices.Clone(base)) {
		t.Fatal("the same files differ")
	}
	typ := reflect.TypeOf(FileChange{})
	for i := range typ.NumField() {
		changed := slices.Clone(base)
		v := reflect.ValueOf(&changed[1]).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString(v.String() + "x")
		case reflect.Uint32, reflect.Uint64:
			v.SetUint(v.Uint() + 1)
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int() + 1)
		case reflect.Array:
			v.Index(0).SetUint(v.Index(0).Uint() + 1)
		case reflect.Slice:
			v.Set(reflect.Append(v, reflect.ValueOf("x")))
		default:
			t.Fatalf("field %s of kind %s: teach this test (and sameFiles) to change it", typ.Field(i).Name, v.Kind())
		}
		if sameFiles(base, changed) {
			t.Errorf("a change to %s is not seen", typ.Field(i).Name)
		}
	}
	empty := slices.Clone(base)
	empty[0].NewDirs = []string{}
	if sameFiles(base[1:], empty[1:]) != true || sameFiles([]FileChange{{NewDirs: nil}}, []FileChange{{NewDirs: []string{}}}) {
		t.Error("new_dirs nil and empty are told apart only where they are")
	}
	if sameFiles(nil, []FileChange{}) {
		t.Error("files nil and empty are the same")
	}
}

// TestRecordV2_Damaged: a compact record cut short, extended or with a byte
// flipped anywhere is refused (ErrCorrupt), never read as another event.
func TestRecordV2_Damaged(t *testing.T) {
	for name, e := range recordSamples() {
		rec, _ := Encode(e)
		for i := range rec {
			for _, bad := range [][]byte{rec[:i], append(bytes.Clone(rec), 0), func() []byte { b := bytes.Clone(rec); b[i] ^= 0x10; return b }()} {
				if d, err := Decode(bad); err == nil && ComputeHash(d) != ComputeHash(e) {
					t.Fatalf("%s: damaged at %d read as another event", name, i)
				}
			}
		}
	}
}

// FuzzParseV2 feeds the compact parser (v2 and v3, whose actor number
// resolves to one actor) arbitrary bodies (no checksum, so
// the parser itself is reached): it never panics, and what it accepts
// encodes again to an event with the same hash.
func FuzzParseV2(f *testing.F) {
	for _, e := range recordSamples() {
		rec, _ := Encode(e)
		f.Add(rec)
	}
	f.Add([]byte{2, 0, 0, 0, 0})
	e := recordSamples()["edit"]
	if rec, ok := encodeCompact(e, 7); ok { // v3: actor 7
		f.Add(rec)
	}
	actor := recordSamples()["edit"].Actor
	f.Fuzz(func(t *testing.T, rec []byte) {
		e, n, err := parseCompact(rec, func(id uint64) (Actor, error) { return actor, nil })
		if err != nil {
			return
		}
		if n > len(rec) {
			t.Fatalf("length %d past the record's %d", n, len(rec))
		}
		again, err := Encode(e)
		if err != nil {
			return
		}
		d, err := Decode(again)
		if err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		if ComputeHash(d) != ComputeHash(e) {
			t.Fatal("round trip changed the event")
		}
	})
}

// TestRawArgs: a compact record whose arguments are compressed is rewritten
// with them as they are (a block's records, pack.go), decoding to the same
// event with a valid checksum; one whose arguments are not compressed, a JSON
// record, and one that fails its checksum are left as they are. 256 calls'
// arguments compress better together as they are than each on its own.
func TestRawArgs(t *testing.T) {
	e := recordSamples()["edit"]
	e.Args = []byte(`{"absolute_file_path":"/home/dev/src/app/server.go","preview":false,"replace_text":"return fmt.Errorf(\"serve: %w\", err)","search_text":"return err"}`)
	rec, err := Encode(e)
	if err != nil {
		t.Fatal(err)
	}
	raw := rawArgs(rec)
	if bytes.Equal(raw, rec) || !bytes.Contains(raw, e.Args) || bytes.Contains(rec, e.Args) {
		t.Fatalf("arguments not written as they are:\n%q\n%q", rec, raw)
	}
	d, err := Decode(raw)
	if err != nil || ComputeHash(d) != ComputeHash(e) || !bytes.Equal(d.Args, e.Args) {
		t.Fatalf("decoded: %v", err)
	}
	if again := rawArgs(raw); !bytes.Equal(again, raw) {
		t.Error("raw arguments rewritten again")
	}
	short := recordSamples()["edit"]
	short.Args = []byte(`{"a":1}`)
	srec, _ := Encode(short)
	if !bytes.Equal(rawArgs(srec), srec) {
		t.Error("a record with short arguments rewritten")
	}
	lost := recordSamples()["edit"]
	lost.Kind, lost.Lost = KindDamaged, &Lost{First: 3, Last: 9, Why: "a damaged page"}
	jrec, _ := Encode(lost)
	if !bytes.Equal(rawArgs(jrec), jrec) {
		t.Error("a JSON record rewritten")
	}
	bad := bytes.Clone(rec)
	bad[len(bad)-1] ^= 1
	if !bytes.Equal(rawArgs(bad), bad) {
		t.Error("a record failing its checksum rewritten")
	}

	// a block of 256 one-line edits' records, each replacing a line of one
	// of 10 files with a new one (a random tag in it) that a later edit
	// searches for: smaller with the arguments as they are
	r := rand.New(rand.NewPCG(1, 2))
	lines := map[int]string{}
	recs := make([][]byte, 256)
	for i := range recs {
		e := recordSamples()["edit"]
		e.Seq = uint64(i + 1)
		k := r.IntN(30)
		old, ok := lines[k]
		if !ok {
			old = fmt.Sprintf("// file %02d line %04d: func handler() error { return nil }", k%10, k)
		}
		lines[k] = fmt.Sprintf("edit %d replaced line %d (%08x)", i, k, r.Uint32())
		e.Args = fmt.Appendf(nil, `{"absolute_file_path":"/home/dev/src/app/f%02d.go","preview":false,"replace_text":%q,"search_text":%q}`, k%10, lines[k], old)
		if recs[i], err = Encode(e); err != nil {
			t.Fatal(err)
		}
	}
	var loose []byte
	for _, r := range recs {
		loose = binary.AppendUvarint(loose, uint64(len(r)))
		loose = append(loose, r...)
	}
	blk, compressed := encodeEventBlock(1, recs), len(blockEncoder.EncodeAll(loose, nil))
	t.Logf("256 records: block %d bytes, with each call's arguments compressed %d", len(blk), compressed)
	if len(blk) >= compressed {
		t.Errorf("block %d bytes, %d with the arguments compressed", len(blk), compressed)
	}
}
