package replay_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// TestEngine_OwnVersion_OutsideWrites: after a streamed edit, the engine
// trusts the identity of the file it wrote instead of hashing it again, yet
// every change made outside right after — a same-size rewrite in place, a
// rewrite with its modification time set back, a replacement — is seen by
// the next batch, with its observe event.
func TestEngine_OwnVersion_OutsideWrites(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big.txt")
	data := bytes.Repeat([]byte("0123456789abcdef\n"), 12<<10) // 204 KiB
	os.WriteFile(p, data, 0o644)
	e := openStreaming(t, dir)
	outside := []func(i int) bool{
		func(int) bool { return false }, // no change: the version may come from the cache
		func(i int) bool { // same size, in place, at once
			b, _ := os.ReadFile(p)
			copy(b[100:], fmt.Sprintf("out%05d", i))
			os.WriteFile(p, b, 0o644)
			return true
		},
		func(i int) bool { // same size, modification time set back to the engine's
			st, _ := os.Stat(p)
			b, _ := os.ReadFile(p)
			copy(b[200:], fmt.Sprintf("mt%06d", i))
			os.WriteFile(p, b, 0o644)
			os.Chtimes(p, st.ModTime(), st.ModTime())
			return true
		},
		func(i int) bool { // replaced by another file of the same size
			b, _ := os.ReadFile(p)
			copy(b[300:], fmt.Sprintf("rp%06d", i))
			os.WriteFile(p+".new", b, 0o644)
			os.Rename(p+".new", p)
			return true
		},
	}
	for i := range 40 {
		_, res := mustStreamEdit(t, e, "big.txt", 1000, fmt.Sprintf("ed%06d", i))
		if len(res.Files) != 1 {
			t.Fatalf("edit %d: %d files", i, len(res.Files))
		}
		changed := outside[i%len(outside)](i)
		disk, _ := os.ReadFile(p)
		before, res2 := mustStreamEdit(t, e, "big.txt", 2000, fmt.Sprintf("xx%06d", i))
		if want := snapshot.Sum(disk); before != want {
			t.Fatalf("round %d (outside change %d): the batch saw version %s, the disk holds %s", i, i%len(outside), before.Short(), want.Short())
		}
		if got := len(res2.Observed); got != map[bool]int{false: 0, true: 1}[changed] {
			t.Fatalf("round %d (outside change %d): %d observe events", i, i%len(outside), got)
		}
	}
	verifyChain(t, e)
}

// TestEngine_OwnVersion_Reused: a batch after a streamed edit takes the file's
// version from the engine's own write instead of hashing the file again (at
// least once in many tries: the proof needs the file system's clock to have
// moved past the write by the time of its fsync).
func TestEngine_OwnVersion_Reused(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "big.txt"), bytes.Repeat([]byte("0123456789abcdef\n"), 12<<10), 0o644)
	e := openStreaming(t, dir)
	reused := 0
	for i := range 50 {
		mustStreamEdit(t, e, "big.txt", 1000, fmt.Sprintf("ed%06d", i))
		n := replay.LargeHashes()
		mustStreamEdit(t, e, "big.txt", 2000, fmt.Sprintf("xx%06d", i))
		if replay.LargeHashes() == n {
			reused++
		}
	}
	if reused == 0 {
		t.Fatal("the version of a file the engine wrote was never reused")
	}
	t.Logf("reused %d of 50", reused)
}

// TestEngine_OwnVersion_ChangedDuringEdit: a file changed outside while a
// streamed edit reads it (the base the new content's unchanged chunks are
// taken from) fails the edit with ErrConflict, and stores nothing wrong.
func TestEngine_OwnVersion_ChangedDuringEdit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big.txt")
	os.WriteFile(p, bytes.Repeat([]byte("0123456789abcdef\n"), 24<<10), 0o644) // 408 KiB
	e := openStreaming(t, dir)
	conflicts := 0
	for i := range 20 {
		mustStreamEdit(t, e, "big.txt", 1000, fmt.Sprintf("ed%06d", i))
		var produced []byte
		_, _, err := streamEdit(e, "big.txt", 2000, "", func() { // an outside same-size rewrite, mid-stream
			b, _ := os.ReadFile(p)
			copy(b[300<<10:], fmt.Sprintf("outside%06d", i))
			os.WriteFile(p, b, 0o644)
			produced = b // the source reads on from its open file: it copies the rewrite
		})
		switch {
		case errors.Is(err, replay.ErrConflict):
			conflicts++
		case err != nil:
			t.Fatalf("round %d: %v", i, err)
		default: // the file's identity was not cached: the edit went through
			if got, _ := os.ReadFile(p); !bytes.Equal(got, produced) {
				t.Fatalf("round %d: the file is not what the source produced", i)
			}
		}
		if err := e.Journal().View(func(tx *journal.Tx) error {
			if id := snapshot.Sum(produced); snapshot.Has(tx.Bolt(), id) {
				return snapshot.Get(tx.Bolt(), id, io.Discard)
			}
			return nil
		}); err != nil {
			t.Fatalf("round %d: stored content: %v", i, err)
		}
	}
	t.Logf("%d of 20 edits refused", conflicts)
	verifyChain(t, e)
}
