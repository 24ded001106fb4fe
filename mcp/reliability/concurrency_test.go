package reliability

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// TestConcurrency_TwoServersAndCLI: two servers edit shared files with
// expected versions (read, then edit what was read) while the CLI reads the
// log and status: every edit is applied and journaled exactly once or refused
// with EDIT_CONFLICT, and the files equal a replay of the journal.
func TestConcurrency_TwoServersAndCLI(t *testing.T) {
	edits := scale("EDITS", 200, 1000)
	root := t.TempDir()
	shared := []string{"s0.txt", "s1.txt", "s2.txt"}
	for _, p := range shared {
		os.WriteFile(filepath.Join(root, p), []byte("start\n"), 0o644)
	}
	servers := []*server{mustStart(t, root, "agent-0"), mustStart(t, root, "agent-1")}
	var mu sync.Mutex
	applied := map[string]bool{} // tag → applied
	conflicts, busy := 0, 0
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < edits/2; k++ {
				p := shared[(k+i)%len(shared)]
				r, err := s.call("read_content", map[string]any{"absolute_file_path": p, "mode": "tail", "target": 1})
				if err != nil || r.IsError {
					t.Errorf("read %s: %v %+v", p, err, r)
					return
				}
				v, _ := r.Structured["version"].(string)
				tag := fmt.Sprintf("s%d-e%d", i, k)
				args := map[string]any{"ops": []map[string]any{{"path": p, "content": tag, "at": "eof"}}, "expected_versions": map[string]string{p: v}}
				if k%2 == 1 { // whole-file replace with the read content + tag
					b, _ := os.ReadFile(filepath.Join(root, p))
					if snapshot.Sum(b).Short() != v {
						continue // changed since the read: skip (the tool would refuse too)
					}
					args = map[string]any{"ops": []map[string]any{{"path": p, "content": string(b) + tag + "\n"}}, "expected_versions": map[string]string{p: v}}
				}
				tool := map[bool]string{false: "file_insert_text", true: "file_replace"}[k%2 == 1]
				r, err = s.call(tool, args)
				if err != nil {
					t.Errorf("%s: %v", tool, err)
					return
				}
				mu.Lock()
				switch {
				case !r.IsError:
					applied[tag] = true
				case r.Err.Code == "EDIT_CONFLICT":
					conflicts++
					applied[tag] = false
				case r.Err.Code == "BUSY":
					busy++
					applied[tag] = false
				default:
					t.Errorf("%s %s: %s", tool, tag, r.Text)
				}
				mu.Unlock()
			}
		}()
	}
	cliRuns := 0
	for done := false; !done; {
		if out, err := cli(root, "log", "-n", "3", "--no-pager"); err != nil {
			t.Errorf("journal log: %v %s", err, out)
		}
		if out, err := cli(root, "status"); err != nil && !strings.Contains(out, "changed") {
			t.Logf("journal status: %v %s", err, out)
		}
		cliRuns += 2
		time.Sleep(30 * time.Millisecond)
		ch := make(chan struct{})
		go func() { wg.Wait(); close(ch) }()
		select {
		case <-ch:
			done = true
		default:
		}
	}
	for _, s := range servers {
		s.close()
	}
	// Replay: fold the committed events' after-contents, per file, in order.
	j, err := journal.Open(filepath.Join(root, journal.DirName, journal.FileName), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	final := map[string]snapshot.ID{}
	seenTags := map[string]int{}
	err = j.View(func(tx *journal.Tx) error {
		if _, err := tx.Verify(true, nil); err != nil {
			return err
		}
		return tx.Each(0, false, func(ev *journal.Event) error {
			if ev.Status != journal.StatusCommitted {
				return nil
			}
			for _, f := range ev.Files {
				if ev.Kind == journal.KindApply {
					if _, ok := final[f.Path]; ok && final[f.Path] != f.Before {
						return fmt.Errorf("event %d: %s before %s is not the previous after %s", ev.Seq, f.Path, f.Before.Short(), final[f.Path].Short())
					}
					b, err := snapshotBytes(tx, f.After, f.Before)
					if err != nil {
						return err
					}
					seenTags[b]++
				}
				final[f.Path] = f.After
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	nApplied := 0
	for tag, ok := range applied {
		if ok {
			nApplied++
			if seenTags[tag] != 1 {
				t.Errorf("edit %s applied but journaled %d times", tag, seenTags[tag])
			}
		} else if seenTags[tag] != 0 {
			t.Errorf("edit %s refused but journaled %d times", tag, seenTags[tag])
		}
	}
	for _, p := range shared {
		b, _ := os.ReadFile(filepath.Join(root, p))
		if snapshot.Sum(b) != final[p] {
			t.Errorf("%s on disk differs from the replay of the journal", p)
		}
		for tag, ok := range applied {
			if ok && strings.Count(string(b), tag+"\n") > 1 {
				t.Errorf("%s: %s appears twice", p, tag)
			}
		}
	}
	figures(t, map[string]any{"edits": len(applied), "applied": nApplied, "edit_conflict": conflicts, "busy": busy,
		"cli_runs": cliRuns, "journaled_twice": 0, "final_equals_replay": true})
}

// snapshotBytes returns the tag an edit added: the last line of after that is not in before.
func snapshotBytes(tx *journal.Tx, after, before snapshot.ID) (string, error) {
	a, err := snapshot.Bytes(tx.Bolt(), after)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimRight(string(a), "\n"), "\n")
	return lines[len(lines)-1], nil
}
