package replay

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// countReads counts the reads made of a file.
type countReads struct {
	f     io.Reader
	reads int
}

func (c *countReads) Read(b []byte) (int, error) {
	c.reads++
	return c.f.Read(b)
}

// readAll reads a file as its stat sized it in one read, and still reads a
// file to its end when the stat's size is wrong either way (the file grew
// or shrank since), or when reads come short of the file's end.
func TestReadAll_OneReadAtStatSize(t *testing.T) {
	dir := t.TempDir()
	data := []byte("package p // file 0\n")
	cases := []struct {
		name  string
		data  []byte
		size  int64 // the stat's size
		reads int   // at most
	}{
		{"as stat said", data, int64(len(data)), 1},
		{"empty", nil, 0, 1},
		{"grew since its stat", bytes.Repeat(data, 50), int64(len(data)), 16},
		{"shrank since its stat", data, 4 * int64(len(data)), 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, "f")
			if err := os.WriteFile(p, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r := &countReads{f: f}
			got, err := readAll(r, c.size)
			if err != nil || !bytes.Equal(got, c.data) {
				t.Fatalf("readAll = %q, %v; want %q", got, err, c.data)
			}
			if r.reads > c.reads {
				t.Errorf("%d reads, want at most %d", r.reads, c.reads)
			}
		})
	}
	// a reader giving a few bytes at a time (short reads before the end)
	big := bytes.Repeat(data, 10)
	r := &countReads{f: &trickle{b: big, n: 7}}
	if got, err := readAll(r, int64(len(big))); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("trickled readAll = %q, %v", got, err)
	}
}

// trickle reads at most n bytes at a time.
type trickle struct {
	b []byte
	n int
}

func (t *trickle) Read(p []byte) (int, error) {
	if len(t.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), t.n)], t.b)
	t.b = t.b[k:]
	return k, nil
}
