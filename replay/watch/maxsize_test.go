package watch

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/journalfs/journal/replay"
)

// A file larger than --max-size is not journaled, at the first walk or
// when it is written later, and is named once in the watcher's log with
// the flag that raises the limit; a file within it beside it is recorded.
func TestWatch_MaxSizeLeavesLargeFilesOut(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"small.txt": "small\n", "big.bin": strings.Repeat("x", 2<<20)})
	eng, err := replay.Open(replay.Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	var mu sync.Mutex
	var logged []string
	w, err := Start(context.Background(), eng, Options{MaxSize: 1 << 20, Settle: 60 * time.Millisecond, Logf: func(f string, a ...any) {
		mu.Lock()
		logged = append(logged, fmt.Sprintf(f, a...))
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	sh(t, dir, `head -c 3000000 /dev/zero > later.bin && echo more >> small.txt`)
	if _, err := w.Flush(context.Background(), nil); err != nil { // every change seen so far recorded
		t.Fatal(err)
	}
	known, err := eng.Known()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := known["small.txt"]; !ok || len(known) != 1 {
		t.Errorf("journaled %v; want small.txt alone", known)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, name := range []string{"big.bin", "later.bin"} {
		n := 0
		for _, l := range logged {
			if strings.Contains(l, name+" is larger than the watcher's limit (1 MiB)") && strings.Contains(l, "--max-size") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s named %d times in the log %q; want once, with --max-size", name, n, logged)
		}
	}
}
