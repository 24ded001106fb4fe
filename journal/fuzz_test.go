package journal_test

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

func sampleRecord() []byte {
	ev := &journal.Event{Seq: 7, Time: time.Unix(1700000000, 0).UTC(), Kind: journal.KindApply, Status: journal.StatusCommitted,
		Actor: journal.Actor{Kind: "mcp", Name: "c", Session: "s"}, Tool: "file_replace", Args: []byte(`{"ops":[]}`),
		Files: []journal.FileChange{{Path: "a.txt", Before: snapshot.Sum([]byte("a")), After: snapshot.Sum([]byte("b")), AfterMode: 0o644}}}
	rec, _ := journal.Encode(ev)
	return rec
}

// FuzzDecode feeds the event decoder arbitrary records, and arbitrary bodies
// behind a valid header and checksum (so the JSON decoder is reached): it
// never panics, fails only with ErrCorrupt, and what it accepts re-encodes and
// decodes to the same event hash.
func FuzzDecode(f *testing.F) {
	rec := sampleRecord()
	f.Add(rec, false)
	f.Add(rec[5:], true)
	f.Add(rec[:len(rec)/2], false)
	f.Add([]byte{1, 0, 0, 0, 0}, false)
	f.Add([]byte(`{"seq":1,"files":[{"path":"x","before":"zz"}]}`), true)
	f.Add([]byte(`{"seq":-1,"time":"not a time"}`), true)
	f.Add([]byte(`null`), true)
	f.Fuzz(func(t *testing.T, b []byte, fixHeader bool) {
		if fixHeader {
			h := make([]byte, 5, 5+len(b))
			h[0] = 1
			binary.BigEndian.PutUint32(h[1:], crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
			b = append(h, b...)
		}
		ev, err := journal.Decode(b)
		if err != nil {
			if !errors.Is(err, journal.ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		again, err := journal.Encode(ev)
		if err != nil {
			return // e.g. a value JSON cannot encode back; Decode did its job
		}
		ev2, err := journal.Decode(again)
		if err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		if journal.ComputeHash(ev) != journal.ComputeHash(ev2) {
			t.Fatalf("round trip changed the event")
		}
	})
}
