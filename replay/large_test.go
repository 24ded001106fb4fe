package replay_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// TestLargeFileChild is the child of TestLargeFile: it writes a file of
// JOURNAL_LARGE_MB MiB, snapshots it, edits one line by streaming, reverts
// the edit, and prints its peak RSS.
func TestLargeFileChild(t *testing.T) {
	dir := os.Getenv("JOURNAL_LARGE_DIR")
	if dir == "" {
		t.Skip("child process of TestLargeFile")
	}
	mb, _ := strconv.Atoi(os.Getenv("JOURNAL_LARGE_MB"))
	name := filepath.Join(dir, "big.log")
	f, _ := os.Create(name)
	w := bufio.NewWriterSize(f, 1<<20)
	for i := 0; ; i++ {
		fmt.Fprintf(w, "%012d the quick brown fox jumps over the lazy dog\n", i)
		if i%1024 == 0 {
			if st, _ := f.Stat(); st.Size() >= int64(mb)<<20 {
				break
			}
		}
	}
	w.Flush()
	f.Close()
	e, err := replay.Open(replay.Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	edit := func(line string) *replay.Result {
		res, err := e.Edit(ctx, func(r *replay.Reader) (*replay.Batch, error) {
			f, err := r.Read("big.log")
			if err != nil {
				return nil, err
			}
			if f.Data != nil {
				return nil, fmt.Errorf("a %d-byte file was read into memory", f.Size)
			}
			src := func(w io.Writer) error {
				in, err := r.Open(f.Path)
				if err != nil {
					return err
				}
				defer in.Close()
				if _, err := io.CopyN(w, in, f.Size/2); err != nil {
					return err
				}
				io.WriteString(w, line)
				_, err = io.Copy(w, in)
				return err
			}
			return &replay.Batch{Changes: []replay.Change{{Path: "big.log", Source: src}}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := edit("first edit\n")
	second := edit("second edit\n")
	if _, err := e.Revert(ctx, second.Seq, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	h := snapshot.NewHasher()
	in, _ := os.Open(name)
	io.Copy(h, in)
	in.Close()
	if h.ID() != first.Files[0].After {
		t.Fatal("revert of the large edit did not restore the first edit's content")
	}
	status, _ := os.ReadFile("/proc/self/status")
	// Journal growth of the second edit: the stored bytes of its new chunks,
	// lists and manifest (the bbolt file itself grows in preallocated steps).
	var growth int64
	e.Journal().View(func(tx *journal.Tx) error {
		for _, id := range []snapshot.ID{second.Files[0].After} {
			snapshot.Refs(tx.Bolt(), id, func(bucket []byte, ref snapshot.ID) {
				if !refsOf(tx, first.Files[0].After)[ref] {
					growth += int64(len(tx.Bolt().Bucket(bucket).Get(ref[:])))
				}
			})
		}
		return nil
	})
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			fmt.Printf("RESULT %s growth=%d\n", strings.Join(strings.Fields(l)[1:], ""), growth)
		}
	}
}

var refsCache = map[snapshot.ID]map[snapshot.ID]bool{}

func refsOf(tx *journal.Tx, id snapshot.ID) map[snapshot.ID]bool {
	if m, ok := refsCache[id]; ok {
		return m
	}
	m := map[snapshot.ID]bool{}
	snapshot.Refs(tx.Bolt(), id, func(_ []byte, ref snapshot.ID) { m[ref] = true })
	refsCache[id] = m
	return m
}

// TestLargeFile edits a large file in a child process and checks its peak
// RSS. JOURNAL_LARGE_MB sets the size (default 64; 1024 for the 1 GB figure).
func TestLargeFile(t *testing.T) {
	if os.Getenv("JOURNAL_LARGE_DIR") != "" {
		t.Skip("in child")
	}
	mb := "64"
	if s := os.Getenv("JOURNAL_LARGE_MB"); s != "" {
		mb = s
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLargeFileChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "JOURNAL_LARGE_DIR="+dir, "JOURNAL_LARGE_MB="+mb)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	i := bytes.Index(out, []byte("RESULT "))
	if i < 0 {
		t.Fatalf("no result: %s", out)
	}
	var kb, growth int64
	fmt.Sscanf(string(out[i:]), "RESULT %dkB growth=%d", &kb, &growth)
	t.Logf("%s MiB file: peak RSS %d MiB, journal growth for a one-line edit %d KiB", mb, kb>>10, growth>>10)
	if kb > 200<<10 {
		t.Fatalf("peak RSS %d KiB over 200 MiB", kb)
	}
	if growth > 1<<20 {
		t.Fatalf("journal grew %d bytes for a one-line edit", growth)
	}
}
