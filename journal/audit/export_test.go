package audit_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/snapshot"
)

func export(t *testing.T, j *journal.Journal, format string, f audit.ExportFilter) ([]byte, *audit.ExportHead) {
	t.Helper()
	var buf bytes.Buffer
	var h *audit.ExportHead
	err := j.View(func(tx *journal.Tx) (err error) { h, err = audit.Export(tx, &buf, format, f, nil); return })
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), h
}

func TestExport_JSONLRoundTripVerifies(t *testing.T) {
	j := create(t)
	appendN(t, j, 50, "s1")
	b, h := export(t, j, "jsonl", audit.ExportFilter{})
	if h.Events != 50 || h.First != 1 || h.Last != 50 || h.Filtered {
		t.Fatalf("head %+v", h)
	}
	rep, err := audit.VerifyExport(bytes.NewReader(b), h.Head, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Events != 50 || rep.Head != h.Head || rep.Anchored != 50 {
		t.Fatalf("report %+v", rep)
	}
	// The export's head is the journal's head, and each line's event is the hashed JSON.
	j.View(func(tx *journal.Tx) error {
		vr, err := tx.Verify(true, nil)
		if err != nil || vr.Head != h.Head {
			t.Fatalf("verify %v head %s vs %s", err, vr.Head.Short(), h.Head.Short())
		}
		e, _ := tx.Event(7)
		line, _ := audit.ExportLine(e)
		if !bytes.Contains(b, line) {
			t.Fatalf("line 7 is not ExportLine(event 7)")
		}
		return nil
	})
}

func TestExport_FilteredIsMarkedAndVerifies(t *testing.T) {
	j := create(t)
	appendN(t, j, 30, "s1")
	b, h := export(t, j, "jsonl", audit.ExportFilter{Paths: []string{"f1.txt"}})
	if h.Events != 10 || !h.Filtered {
		t.Fatalf("head %+v", h)
	}
	rep, err := audit.VerifyExport(bytes.NewReader(b), snapshot.ID{}, nil)
	if err != nil || !rep.Filtered {
		t.Fatalf("%+v %v", rep, err)
	}
	// A filtered head cannot stand in for a complete one.
	full := bytes.Replace(b, []byte(`"filtered":true`), []byte(`"filtered":false`), 1)
	if _, err := audit.VerifyExport(bytes.NewReader(full), snapshot.ID{}, nil); !errors.Is(err, journal.ErrCorrupt) {
		t.Fatalf("gaps in an unfiltered export passed: %v", err)
	}
	since, _ := export(t, j, "jsonl", audit.ExportFilter{Since: time.Now().Add(time.Hour)})
	if !strings.HasPrefix(string(since), `{"type":"head"`) {
		t.Fatalf("future --since exported events: %s", since)
	}
}

func TestExport_CSV(t *testing.T) {
	j := create(t)
	appendN(t, j, 5, "s1")
	b, h := export(t, j, "csv", audit.ExportFilter{})
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 || rows[0][0] != "type" || rows[6][0] != "head" || rows[6][18] != h.Head.String() || rows[1][15] != "committed" {
		t.Fatalf("rows %q", rows)
	}
}

func TestVerifyExport_NamesFirstBadLine(t *testing.T) {
	j := create(t)
	appendN(t, j, 20, "s1")
	b, _ := export(t, j, "jsonl", audit.ExportFilter{})
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines[11] = bytes.Replace(lines[11], []byte(`"session":"s1"`), []byte(`"session":"s2"`), 1)
	_, err := audit.VerifyExport(bytes.NewReader(bytes.Join(lines, nil)), snapshot.ID{}, nil)
	if !errors.Is(err, journal.ErrCorrupt) || !strings.Contains(err.Error(), "export line 12") {
		t.Fatalf("err %v", err)
	}
	var other snapshot.ID
	other[0] = 1
	if _, err := audit.VerifyExport(bytes.NewReader(b), other, nil); !errors.Is(err, audit.ErrAnchor) {
		t.Fatalf("unknown anchor: %v", err)
	}
}

func TestTx_LiveAndFindHash(t *testing.T) {
	j := create(t)
	appendN(t, j, 3, "")
	j.View(func(tx *journal.Tx) error {
		e, _ := tx.Event(2)
		if s, ok := tx.FindHash(e.Hash); !ok || s != 2 || !tx.Live(2) {
			t.Fatalf("find %d %v live %v", s, ok, tx.Live(2))
		}
		return nil
	})
}

func ExampleVerifyExport() {
	var log bytes.Buffer
	rep, err := audit.VerifyExport(strings.NewReader(`{"type":"head","version":1,"events":0,"head":"","base_seq":0,"base":"","filtered":false}`+"\n"), snapshot.ID{}, nil)
	fmt.Fprint(&log, rep.Events, err)
	fmt.Println(log.String())
	// Output: 0 <nil>
}

// failingReader returns r's bytes, then err once n bytes were read.
type failingReader struct {
	r   io.Reader
	n   int
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	p = p[:min(len(p), f.n)]
	k, err := f.r.Read(p)
	f.n -= k
	return k, err
}

// TestCheckExport_ManyBatches: the lines of an export are checked on every
// core in batches and judged in order: across 3,000 events, the first bad
// line is the one named (a later bad line checked earlier by another
// worker does not win), a read error, a torn tail and data after the head
// are named at their line, progress only grows, and a check that stops
// early leaves no goroutine behind.
func TestCheckExport_ManyBatches(t *testing.T) {
	j := create(t)
	appendN(t, j, 3000, "s1")
	b, _ := export(t, j, "jsonl", audit.ExportFilter{})
	before := runtime.NumGoroutine()
	var last int64
	rep, err := audit.CheckExport(bytes.NewReader(b), audit.ExportCheck{Progress: func(n int64) {
		if n <= last {
			t.Fatalf("progress %d after %d", n, last)
		}
		last = n
	}})
	if err != nil || rep.Events != 3000 || rep.Bytes != int64(len(b)) || last != rep.Bytes-int64(len(b)-bytes.LastIndexByte(b[:len(b)-1], '\n')-1) {
		t.Fatalf("whole export: %v, %d events, %d of %d bytes, progress %d", err, rep.Events, rep.Bytes, len(b), last)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines = lines[:len(lines)-1] // the empty piece after the last newline
	alter := func(i int) []byte {
		c := make([][]byte, len(lines))
		copy(c, lines)
		c[i] = bytes.Replace(c[i], []byte(`"session":"s1"`), []byte(`"session":"s9"`), 1)
		return bytes.Join(c, nil)
	}
	bad := alter(2900)
	bad = bytes.Replace(bad, lines[1700], bytes.Replace(lines[1700], []byte(`"session":"s1"`), []byte(`"session":"s9"`), 1), 1)
	for _, c := range []struct {
		name string
		r    io.Reader
		want string
	}{
		{"two bad lines", bytes.NewReader(bad), "export line 1701: event 1701: fields do not match"},
		{"read error", &failingReader{r: bytes.NewReader(b), n: len(bytes.Join(lines[:1234], nil)) + 10, err: io.ErrUnexpectedEOF}, "export line 1235: unexpected EOF"},
		{"torn tail", bytes.NewReader(b[:len(b)-1]), "export line 3001: torn line"},
		{"data after the head", bytes.NewReader(append(bytes.Clone(b), lines[0]...)), "export line 3002: data after the head line"},
		{"first line", bytes.NewReader(alter(0)), "export line 1: event 1: fields do not match"},
	} {
		_, err := audit.CheckExport(c.r, audit.ExportCheck{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after the checks, %d before", runtime.NumGoroutine(), before)
		}
	}
}
