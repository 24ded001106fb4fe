package replay_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// TestLoggedChild is the child process of TestLogged_KilledAfterAck: it
// applies a batch that edits two existing files (logged: its commit is a
// write-ahead log record) and kills itself (SIGKILL) as soon as Apply has
// returned, before any checkpoint. With JOURNAL_LOGGED_MIXED set, a batch
// that makes a new file comes first (a bbolt intent, its seal deferred), so
// the logged batch changes a file of a batch still unsealed.
func TestLoggedChild(t *testing.T) {
	dir := os.Getenv("JOURNAL_LOGGED_ROOT")
	if dir == "" {
		t.Skip("child process of TestLogged_KilledAfterAck")
	}
	e, err := replay.Open(replay.Options{Roots: []string{dir}})
	if err != nil {
		os.Exit(3)
	}
	if os.Getenv("JOURNAL_LOGGED_MIXED") != "" {
		if _, err := e.Apply(ctx, &replay.Batch{Tool: "mixed", Changes: []replay.Change{
			{Path: "one.txt", Data: []byte("one, mixed\n")}, {Path: "new/three.txt", Data: []byte("three\n")}}}); err != nil {
			os.Exit(5)
		}
	}
	if os.Getenv("JOURNAL_LOGGED_SOFT") != "" { // a logged batch a reader moved into the bbolt file, files unsynced
		// no timed seal or checkpoint between the two batches: on a loaded
		// machine one came, synced one.txt and ended the run, so that the
		// "renames lost" damage (one.txt as before the run) was no longer
		// a state a crash can leave, and recovery rightly left it alone
		defer replay.SetLogDelays(time.Hour, time.Hour)()
		if _, err := e.Apply(ctx, &replay.Batch{Tool: "soft", Changes: []replay.Change{{Path: "one.txt", Data: []byte("one, soft\n")}}}); err != nil {
			os.Exit(5)
		}
		if _, err := e.FindEdit("one.txt", ""); err != nil {
			os.Exit(6)
		}
	}
	if os.Getenv("JOURNAL_LOGGED_ADOPT") != "" { // a second engine takes the run over and appends to it; then e takes it back
		defer replay.SetLogDelays(time.Hour, time.Hour)()
		b, err := replay.Open(replay.Options{Roots: []string{dir}})
		if err != nil {
			os.Exit(3)
		}
		if _, err := e.Apply(ctx, &replay.Batch{Tool: "a1", Changes: []replay.Change{{Path: "one.txt", Data: []byte("one, a1\n")}}}); err != nil {
			os.Exit(5)
		}
		if _, err := b.Apply(ctx, &replay.Batch{Tool: "b1", Changes: []replay.Change{{Path: "sub/two.txt", Data: []byte("two, b1\n")}}}); err != nil {
			os.Exit(5)
		}
	}
	if _, err := e.Apply(ctx, &replay.Batch{Tool: "crash", Changes: []replay.Change{
		{Path: "one.txt", Data: []byte("one, edited\n")}, {Path: "sub/two.txt", Data: []byte("two, edited\n")}}}); err != nil {
		os.Exit(5)
	}
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
}

// TestLogged_KilledAfterAck: a logged batch acknowledged and then lost with
// its process (before its checkpoint) is completed by recovery, committed:
// as left; after its rename was lost (the file holds its before-content
// again, as after a power failure); when someone changed a file since (left
// as it is); when the file was torn by a power failure (the machine booted
// since: the after-content is written back); and a batch before it whose
// seal was deferred stays committed although the logged batch changed its
// files.
func TestLogged_KilledAfterAck(t *testing.T) {
	if os.Getenv("JOURNAL_LOGGED_ROOT") != "" {
		t.Skip("in child")
	}
	edited := map[string]string{"one.txt": "one, edited\n", "sub/two.txt": "two, edited\n"}
	for _, c := range []struct {
		name   string
		mixed  bool
		soft   bool   // a batch before it was moved into the bbolt file for a reader, its files unsynced
		adopt  bool   // two batches before it, by two engines, each taking over the other's run
		damage string // what one.txt holds before recovery ("" = as the child left it)
		two    string // what sub/two.txt holds before recovery ("" = as the child left it)
		reboot bool   // the machine "booted" after the damage
		want   string // one.txt after recovery
	}{
		{name: "soft", soft: true, want: "one, edited\n"},
		{name: "soft-renames-lost", soft: true, damage: "one\n", two: "two\n", want: "one, edited\n"},
		{name: "soft-torn", soft: true, damage: "\x00\x00\x00", two: "\x00", reboot: true, want: "one, edited\n"},
		{name: "as-left", want: "one, edited\n"},
		{name: "rename-lost", damage: "one\n", want: "one, edited\n"},
		{name: "changed-since", damage: "someone else\n", want: "someone else\n"},
		{name: "torn", damage: "\x00\x00\x00\x00", reboot: true, want: "one, edited\n"},
		{name: "mixed", mixed: true, want: "one, edited\n"},
		{name: "adopted", adopt: true, want: "one, edited\n"},
		{name: "adopted-renames-lost", adopt: true, damage: "one, a1\n", two: "two\n", want: "one, edited\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "one.txt", "one\n")
			write(t, dir, "sub/two.txt", "two\n")
			env := []string{"JOURNAL_LOGGED_ROOT=" + dir}
			if c.mixed {
				env = append(env, "JOURNAL_LOGGED_MIXED=1")
			}
			if c.soft {
				env = append(env, "JOURNAL_LOGGED_SOFT=1")
			}
			if c.adopt {
				env = append(env, "JOURNAL_LOGGED_ADOPT=1")
			}
			runKilled(t, "TestLoggedChild", env...)
			if k, ok := equalMaps(edited, onlyFiles(snapshotDir(t, dir), "one.txt", "sub/two.txt")); !ok {
				t.Fatalf("the child did not finish its batch: %s", k)
			}
			if c.damage != "" {
				write(t, dir, "one.txt", c.damage)
			}
			if c.two != "" {
				write(t, dir, "sub/two.txt", c.two)
			}
			if c.reboot {
				defer replay.SetBootTime(time.Now().Add(time.Second))()
			}
			e := open(t, dir) // recovers
			want := map[string]string{"one.txt": c.want, "sub/two.txt": "two, edited\n"}
			if c.mixed {
				want["new/three.txt"] = "three\n"
			}
			if k, ok := equalMaps(want, snapshotDir(t, dir)); !ok {
				t.Fatalf("disk differs at %s: %q", k, snapshotDir(t, dir))
			}
			if tmp := temps(dir); len(tmp) != 0 {
				t.Fatalf("temps left: %v", tmp)
			}
			ev := lastEvent(t, e)
			if ev.Status != journal.StatusCommitted || ev.Tool != "crash" || ev.Files[0].After != snapshot.Sum([]byte("one, edited\n")) {
				t.Fatalf("last event %+v", ev)
			}
			if c.adopt {
				if tools := eventTools(t, e); !slices.Equal(tools, []string{"a1", "b1", "crash"}) {
					t.Fatalf("events %v", tools)
				}
			}
			if c.mixed || c.soft {
				prev, err := e.Event(ev.Seq - 1)
				if err != nil || (prev.Tool != "mixed" && prev.Tool != "soft") || prev.Status != journal.StatusCommitted || ev.Seq != 2 {
					t.Fatalf("the batch before: %+v %v (last is %d)", prev, err, ev.Seq)
				}
			}
			e.Journal().View(func(tx *journal.Tx) error {
				if u := tx.LogUnsynced(); u != 0 {
					t.Errorf("log_unsynced %d after recovery", u)
				}
				return nil
			})
			verifyChain(t, e)
			st, err := e.Status()
			if err != nil {
				t.Fatal(err)
			}
			if outside := c.want != "one, edited\n"; (len(st.Changed) == 1) != outside || len(st.Pending) != 0 {
				t.Fatalf("status: changed %+v pending %v", st.Changed, st.Pending)
			}
			again, err := e.Recover()
			if err != nil || len(again) != 0 {
				t.Fatalf("second recovery: %v %v", again, err)
			}
			if k, ok := equalMaps(want, snapshotDir(t, dir)); !ok {
				t.Fatalf("second recovery changed %s", k)
			}
		})
	}
}

// eventTools returns the tool of every event of the journal, oldest first.
func eventTools(t *testing.T, e *replay.Engine) []string {
	t.Helper()
	var tools []string
	err := e.Journal().View(func(tx *journal.Tx) error {
		return tx.Each(0, false, func(ev *journal.Event) error { tools = append(tools, ev.Tool); return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// onlyFiles keeps the named entries of a snapshotDir map.
func onlyFiles(m map[string]string, names ...string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		if v, ok := m[n]; ok {
			out[n] = v
		}
	}
	return out
}

// TestLogged_TornNoReboot: without a boot since the batch, a file holding
// neither content is someone else's change and is left, even if it looks
// torn.
func TestLogged_TornNoReboot(t *testing.T) {
	if os.Getenv("JOURNAL_LOGGED_ROOT") != "" {
		t.Skip("in child")
	}
	dir := t.TempDir()
	write(t, dir, "one.txt", "one\n")
	write(t, dir, "sub/two.txt", "two\n")
	runKilled(t, "TestLoggedChild", "JOURNAL_LOGGED_ROOT="+dir)
	write(t, dir, "one.txt", "\x00\x00")
	defer replay.SetBootTime(time.Now().Add(-time.Hour))()
	e := open(t, dir)
	if got := mustRead(t, dir, "one.txt"); got != "\x00\x00" {
		t.Fatalf("one.txt: %q", got)
	}
	if ev := lastEvent(t, e); ev.Status != journal.StatusCommitted || ev.Tool != "crash" {
		t.Fatalf("last event %+v", ev)
	}
}

// TestRecover_LoggedKilledAtRename: a logged batch killed between its two
// renames (never acknowledged) is completed by recovery: its record is its
// commit.
func TestRecover_LoggedKilledAtRename(t *testing.T) {
	if os.Getenv("JOURNAL_CRASH_LINK_ROOT") != "" {
		t.Skip("in child")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "root")
	write(t, root, "top.txt", "top\n")
	write(t, root, "sw/secret.txt", "secret\n")
	crashWithTempIn(t, root, "JOURNAL_CRASH_LINK_LOGGED=1")
	e := open(t, root)
	want := map[string]string{"top.txt": "top, edited\n", "sw/secret.txt": "secret, edited\n"}
	if k, ok := equalMaps(want, snapshotDir(t, root)); !ok {
		t.Fatalf("disk differs at %s", k)
	}
	if tmp := temps(root); len(tmp) != 0 {
		t.Fatalf("temps left: %v", tmp)
	}
	if ev := lastEvent(t, e); ev.Status != journal.StatusCommitted || ev.Tool != "crash" {
		t.Fatalf("last event %+v", ev)
	}
	verifyChain(t, e)
	recoverTwice(t, e, root, t.TempDir())
}

// TestRecover_LoggedUnreachableTemp: a logged batch killed at its second
// rename, whose remaining temp's directory is then swapped for a symbolic
// link out of the root (or a loop): recovery completes what it can reach,
// leaves the file behind the link, stages the temp, and removes it once the
// directory is back. Nothing outside the root is touched.
func TestRecover_LoggedUnreachableTemp(t *testing.T) {
	if os.Getenv("JOURNAL_CRASH_LINK_ROOT") != "" {
		t.Skip("in child")
	}
	for _, link := range []string{"outside", "loop"} {
		t.Run(link, func(t *testing.T) {
			base, _ := filepath.EvalSymlinks(t.TempDir())
			root, outside, held := filepath.Join(base, "root"), filepath.Join(base, "outside"), filepath.Join(base, "held")
			write(t, root, "top.txt", "top\n")
			write(t, root, "other.txt", "other\n")
			write(t, root, "sw/secret.txt", "secret\n")
			tmp := crashWithTempIn(t, root, "JOURNAL_CRASH_LINK_LOGGED=1")
			outsideBefore, heldBefore := swapForLink(t, root, outside, held, tmp, link)
			e := open(t, root) // recovers
			if got := mustRead(t, root, "top.txt"); got != "top, edited\n" {
				t.Fatalf("top.txt: %q", got)
			}
			if ev := lastEvent(t, e); ev.Status != journal.StatusCommitted || ev.Tool != "crash" {
				t.Fatalf("last event %+v", ev)
			}
			_, staged := journalState(t, e)
			if key := e.Roots()[0].Dir + "\x00" + tmp; !slices.Equal(staged, []string{key}) {
				t.Fatalf("staged %q, want %q", staged, key)
			}
			if k, ok := equalMaps(outsideBefore, snapshotDir(t, outside)); !ok {
				t.Fatalf("outside the root changed at %s", k)
			}
			if k, ok := equalMaps(heldBefore, snapshotDir(t, held)); !ok {
				t.Fatalf("the moved directory changed at %s", k)
			}
			if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "other.txt", Data: []byte("other, edited\n")}}}); err != nil {
				t.Fatal(err)
			}
			verifyChain(t, e)
			recoverTwice(t, e, root, outside)
			// The directory comes back: the next recovery removes the temp.
			os.Remove(filepath.Join(root, "sw"))
			if err := os.Rename(held, filepath.Join(root, "sw")); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "other.txt", Data: []byte("other, again\n")}}}); err != nil {
				t.Fatal(err)
			}
			if left := temps(base); len(left) != 1 || left[0] != filepath.Join(outside, filepath.Base(tmp)) {
				t.Fatalf("temps: %v (only the outside decoy should be left)", left)
			}
			if _, staged := journalState(t, e); len(staged) != 0 {
				t.Fatalf("still staged: %q", staged)
			}
			verifyChain(t, e)
		})
	}
}

// TestLogged_OtherEngineCompletes: batches one engine logged are moved into
// the bbolt file by another engine (another process: the CLI reading the
// journal) that takes the journal first; the first engine's next batch and
// checkpoint go on from there, and the chain has every batch once, in order.
func TestLogged_OtherEngineCompletes(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "f.txt", "0\n")
	a := open(t, dir)
	for i := 1; i <= 3; i++ {
		if _, err := a.Apply(ctx, &replay.Batch{Tool: "a", Changes: []replay.Change{{Path: "f.txt", Data: fmt.Appendf(nil, "%d\n", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	b := open(t, dir) // recovers: appends a's three batches
	var n uint64
	err := b.Journal().View(func(tx *journal.Tx) error {
		n = tx.Last()
		return tx.Each(0, false, func(ev *journal.Event) error {
			if ev.Status != journal.StatusCommitted || ev.Tool != "a" {
				return fmt.Errorf("event %d: %s %s", ev.Seq, ev.Tool, ev.Status)
			}
			return nil
		})
	})
	if err != nil || n != 3 {
		t.Fatalf("b sees %d events: %v", n, err)
	}
	if _, err := b.Apply(ctx, &replay.Batch{Tool: "b", Changes: []replay.Change{{Path: "f.txt", Data: []byte("b\n")}}}); err != nil {
		t.Fatal(err)
	}
	for i := 4; i <= 5; i++ {
		res, err := a.Apply(ctx, &replay.Batch{Tool: "a", Changes: []replay.Change{{Path: "f.txt", Data: fmt.Appendf(nil, "%d\n", i)}}})
		if err != nil {
			t.Fatal(err)
		}
		if i == 4 && len(res.Observed) != 0 {
			t.Fatalf("b's batch seen as an outside change: %v", res.Observed)
		}
	}
	if err := a.FlushSeal(); err != nil {
		t.Fatal(err)
	}
	if tools := eventTools(t, b); !slices.Equal(tools, []string{"a", "a", "a", "b", "a", "a"}) {
		t.Fatalf("events %v", tools)
	}
	if got := mustRead(t, dir, "f.txt"); got != "5\n" {
		t.Fatalf("f.txt %q", got)
	}
	verifyChain(t, b)
}

// TestLogged_ManyBatches: more batches than a run of the log holds, some
// larger than others, back to back: the engine checkpoints on its own when
// the run is full, and every batch ends up in the chain, in order.
func TestLogged_ManyBatches(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "f.txt", "start\n")
	write(t, dir, "g.txt", "start\n")
	e := open(t, dir)
	const n = 150
	for i := 0; i < n; i++ {
		big := make([]byte, (i%7)*100_000)
		for j := range big {
			big[j] = 'a' + byte((i+j)%26)
		}
		if _, err := e.Apply(ctx, &replay.Batch{Tool: fmt.Sprint(i), Changes: []replay.Change{
			{Path: "f.txt", Data: fmt.Appendf(nil, "%d\n", i)}, {Path: "g.txt", Data: big}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.FlushSeal(); err != nil {
		t.Fatal(err)
	}
	var i int
	err := e.Journal().View(func(tx *journal.Tx) error {
		return tx.Each(0, false, func(ev *journal.Event) error {
			if ev.Tool != fmt.Sprint(i) || ev.Status != journal.StatusCommitted {
				return fmt.Errorf("event %d: tool %s, %s", ev.Seq, ev.Tool, ev.Status)
			}
			i++
			return nil
		})
	})
	if err != nil || i != n {
		t.Fatalf("%d events: %v", i, err)
	}
	verifyChain(t, e)
	if st, err := e.Status(); err != nil || len(st.Changed) != 0 {
		t.Fatalf("status %+v %v", st, err)
	}
}

// TestFault_Checkpoint: a checkpoint that fails (a file's or a directory's
// fsync, or the bbolt commit) leaves the logged batch as it was acknowledged
// — its files in place, the next checkpoint appends it — and a batch after it
// still works.
func TestFault_Checkpoint(t *testing.T) {
	for _, step := range []string{"fsync", "dirsync", "commit"} {
		t.Run(step, func(t *testing.T) {
			dir, e, _ := faultWorkspace(t)
			if _, err := e.Apply(ctx, inPlaceBatch()); err != nil {
				t.Fatal(err)
			}
			after := snapshotDir(t, dir)
			injected := errors.New("injected")
			if step == "commit" {
				e.SetCommitFault(func() error { return injected })
			} else {
				e.SetFault(func(s, _ string) error {
					if s == step {
						return injected
					}
					return nil
				})
			}
			if err := e.Checkpoint(); !errors.Is(err, injected) {
				t.Fatalf("checkpoint: %v", err)
			}
			e.SetFault(nil)
			e.SetCommitFault(nil)
			if k, ok := equalMaps(after, snapshotDir(t, dir)); !ok {
				t.Fatalf("disk changed at %s", k)
			}
			if _, err := e.Apply(ctx, &replay.Batch{Tool: "next", Changes: []replay.Change{{Path: "a.txt", Data: []byte("A3\n")}}}); err != nil {
				t.Fatal(err)
			}
			ev := lastEvent(t, e)
			prev, err := e.Event(ev.Seq - 1)
			if err != nil || ev.Tool != "next" || prev.Tool != "fault" || prev.Status != journal.StatusCommitted {
				t.Fatalf("events %+v, %+v, %v", prev, ev, err)
			}
			verifyChain(t, e)
		})
	}
}

// TestLogged_AgeBoundsCheckpoint: batches that keep coming, closer together
// than the checkpoint timer's delay, are still moved into the bbolt file
// once the oldest is older than maxLogAge (100 ms), long before the run is
// full (64 batches): the time a logged batch's files stay unsynced is
// bounded.
func TestLogged_AgeBoundsCheckpoint(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "f.txt", "0\n")
	e := open(t, dir)
	j, err := journal.Open(replay.DefaultJournalPath(dir), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	maxLag := 0
	start := time.Now()
	for i := 1; time.Since(start) < 600*time.Millisecond; i++ {
		res, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "f.txt", Data: fmt.Appendf(nil, "%d\n", i)}}})
		if err != nil {
			t.Fatal(err)
		}
		var last uint64
		j.View(func(tx *journal.Tx) error { last = tx.Last(); return nil })
		maxLag = max(maxLag, int(res.Seq-last))
		time.Sleep(2 * time.Millisecond)
	}
	t.Logf("at most %d batches logged and not in the bbolt file", maxLag)
	if maxLag >= 64 {
		t.Fatalf("%d batches waited for a checkpoint", maxLag)
	}
	verifyChain(t, e)
}

// TestLogged_Displaced: a writer that appends to the journal without reading
// the write-ahead log (none of ours does any more: journal.GC refuses while
// the log is ahead) takes the numbers of batches an engine logged; the
// engine appends them after it, numbered anew, instead of losing them, and
// gc through the engine completes the log first.
func TestLogged_Displaced(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "f.txt", "0\n")
	e := open(t, dir)
	for i := 1; i <= 2; i++ {
		if _, err := e.Apply(ctx, &replay.Batch{Tool: "logged", Changes: []replay.Change{{Path: "f.txt", Data: fmt.Appendf(nil, "%d\n", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	j, err := journal.Open(replay.DefaultJournalPath(dir), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.GC(journal.GCOptions{Keep: time.Hour}); !errors.Is(err, journal.ErrBusy) {
		t.Fatalf("journal gc with the log ahead: %v", err)
	}
	err = j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			return tx.Append(&journal.Event{Time: time.Now().UTC(), Kind: journal.KindApply, Tool: "foreign", Status: journal.StatusCommitted,
				Actor: journal.Actor{Kind: "cli"}, Files: []journal.FileChange{}})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Apply(ctx, &replay.Batch{Tool: "after", Changes: []replay.Change{{Path: "f.txt", Data: []byte("3\n")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.GC(journal.GCOptions{Keep: time.Hour, DryRun: true}); err != nil {
		t.Fatalf("gc through the engine: %v", err)
	}
	if tools, want := eventTools(t, e), []string{"foreign", "logged", "logged", "after"}; !slices.Equal(tools, want) {
		t.Fatalf("events %v, want %v", tools, want)
	}
	verifyChain(t, e)
	if st, err := e.Status(); err != nil || len(st.Changed) != 0 {
		t.Fatalf("status %+v %v", st, err)
	}
}

// TestLogged_RollbackLargeBefore: a logged batch that replaces a large file
// (one streamed, whose before-content is not held in memory) with a small
// content and fails at its next rename puts the large file back whole, from
// the store.
func TestLogged_RollbackLargeBefore(t *testing.T) {
	dir := t.TempDir()
	big := string(bigSource(200 << 10))
	write(t, dir, "big.txt", big)
	write(t, dir, "small.txt", "small\n")
	e := openStreaming(t, dir)
	renames := 0
	e.SetFault(func(step, _ string) error {
		if step == "rename" {
			if renames++; renames == 2 {
				return errors.New("injected")
			}
		}
		return nil
	})
	_, err := e.Apply(ctx, &replay.Batch{Tool: "shrink", Changes: []replay.Change{
		{Path: "big.txt", Data: []byte("now small\n")}, {Path: "small.txt", Data: []byte("edited\n")}}})
	if err == nil || renames != 2 {
		t.Fatalf("fault not injected at the second rename: %v (%d renames)", err, renames)
	}
	e.SetFault(nil)
	if got := mustRead(t, dir, "big.txt"); got != big {
		t.Fatalf("big.txt not put back: %d bytes", len(got))
	}
	if got := mustRead(t, dir, "small.txt"); got != "small\n" {
		t.Fatalf("small.txt: %q", got)
	}
	if tmp := temps(dir); len(tmp) != 0 {
		t.Fatalf("temps left: %v", tmp)
	}
	if ev := lastEvent(t, e); ev.Status != journal.StatusRolledBack || ev.Tool != "shrink" {
		t.Fatalf("last event %+v", ev)
	}
	verifyChain(t, e)
}

// TestLogged_MarksFormat: the journal is marked format 2 (or a later one)
// once logged events reach the bbolt file (a binary that does not know the
// log would miss them).
func TestLogged_MarksFormat(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "f.txt", "0\n")
	e := open(t, dir)
	format := func() byte {
		var v byte
		e.Journal().View(func(tx *journal.Tx) error { v = tx.Bolt().Bucket([]byte("meta")).Get([]byte("format"))[0]; return nil })
		return v
	}
	if v := format(); v != 1 {
		t.Fatalf("before: format %d", v)
	}
	if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "f.txt", Data: []byte("1\n")}}}); err != nil {
		t.Fatal(err)
	}
	if v := format(); v < journal.FormatLogged {
		t.Fatalf("after a logged batch: format %d", v)
	}
}

// TestLogged_ReadersDoNotSync: a reader (FindEdit, Event, a revert's plan)
// moves the logged batches into the bbolt file with one commit and no fsync
// of files or directories; the bbolt file notes the run's first unsynced
// event until the checkpoint syncs the files. Another engine that takes the
// journal meanwhile completes the run, and the first goes on.
func TestLogged_ReadersDoNotSync(t *testing.T) {
	// no timed seal or checkpoint meanwhile (on a loaded machine one came
	// between the steps and synced: the syncs counted were not the readers')
	defer replay.SetLogDelays(time.Hour, time.Hour)()
	dir := t.TempDir()
	write(t, dir, "f.txt", "0\n")
	e := open(t, dir)
	syncs := 0
	e.SetFault(func(step, _ string) error {
		if step == "fsync" || step == "dirsync" {
			syncs++
		}
		return nil
	})
	res, err := e.Apply(ctx, &replay.Batch{Tool: "one", Changes: []replay.Change{{Path: "f.txt", Data: []byte("1\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	seq, err := e.FindEdit("f.txt", "")
	if err != nil || seq != res.Seq {
		t.Fatalf("FindEdit: %d %v", seq, err)
	}
	unsynced := func() (u uint64) {
		j, _ := journal.Open(replay.DefaultJournalPath(dir), journal.Options{})
		j.View(func(tx *journal.Tx) error { u = tx.LogUnsynced(); return nil })
		return u
	}
	if u := unsynced(); syncs != 0 || u != res.Seq {
		t.Fatalf("after FindEdit: %d syncs, log_unsynced %d", syncs, u)
	}
	rv, err := e.Revert(ctx, seq, replay.RevertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Event(rv.Seq); err != nil || syncs != 0 {
		t.Fatalf("event of the revert: %v, %d syncs", err, syncs)
	}
	if got := mustRead(t, dir, "f.txt"); got != "0\n" {
		t.Fatalf("f.txt after the revert: %q", got)
	}
	// Another engine takes the journal: it completes the run (syncs, clears the note).
	other := open(t, dir)
	if u := unsynced(); u != 0 {
		t.Fatalf("log_unsynced %d after another engine's recovery", u)
	}
	other.Close()
	if _, err := e.Apply(ctx, &replay.Batch{Tool: "two", Changes: []replay.Change{{Path: "f.txt", Data: []byte("2\n")}}}); err != nil {
		t.Fatal(err)
	}
	e.SetFault(nil)
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	e.Journal().View(func(tx *journal.Tx) error {
		if u := tx.LogUnsynced(); u != 0 {
			t.Errorf("log_unsynced %d after the checkpoint", u)
		}
		return nil
	})
	if tools, want := eventTools(t, e), []string{"one", "revert", "two"}; !slices.Equal(tools, want) {
		t.Fatalf("events %v, want %v", tools, want)
	}
	verifyChain(t, e)
	if st, err := e.Status(); err != nil || len(st.Changed) != 0 {
		t.Fatalf("status %+v %v", st, err)
	}
}

// TestLogged_JournalRecreated: a journal file removed by hand while its
// write-ahead log stays (a reset of the history) is created anew without
// that log: the stale records are not taken for the new journal's.
func TestLogged_JournalRecreated(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "f.txt", "0\n")
	e, err := replay.Open(replay.Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if _, err := e.Apply(ctx, &replay.Batch{Changes: []replay.Change{{Path: "f.txt", Data: fmt.Appendf(nil, "%d\n", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	e.Close()
	jp := replay.DefaultJournalPath(dir)
	if _, err := os.Stat(jp + ".wal"); err != nil {
		t.Fatalf("no log file: %v", err)
	}
	if err := os.Remove(jp); err != nil {
		t.Fatal(err)
	}
	e = open(t, dir)
	if _, err := os.Stat(jp + ".wal"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the stale log is still there: %v", err)
	}
	if _, err := e.Apply(ctx, &replay.Batch{Tool: "fresh", Changes: []replay.Change{{Path: "f.txt", Data: []byte("fresh\n")}}}); err != nil {
		t.Fatal(err)
	}
	if ev := lastEvent(t, e); ev.Seq != 1 || ev.Tool != "fresh" {
		t.Fatalf("last event %+v", ev)
	}
	if got := mustRead(t, dir, "f.txt"); got != "fresh\n" {
		t.Fatalf("f.txt %q", got)
	}
	verifyChain(t, e)
}

// TestLogged_Adopted: two engines on one journal (two servers on one
// workspace) take turns: each takes over the log's run the other left and
// appends to it, instead of ending it (fsync of the other's files, a bbolt
// commit) at every turn. One run holds every batch until a checkpoint, a
// batch on a file the other engine changed sees that change as the file's
// head (no outside change), and the checkpoint moves them all into the
// bbolt file in order.
func TestLogged_Adopted(t *testing.T) {
	defer replay.SetLogDelays(time.Hour, time.Hour)()
	dir := t.TempDir()
	write(t, dir, "a.txt", "a0\n")
	write(t, dir, "b.txt", "b0\n")
	a, b := open(t, dir), open(t, dir)
	edit := func(e *replay.Engine, tool, path, data string) *replay.Result {
		t.Helper()
		res, err := e.Apply(ctx, &replay.Batch{Tool: tool, Changes: []replay.Change{{Path: path, Data: []byte(data)}}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for i := 1; i <= 3; i++ {
		edit(a, "a", "a.txt", fmt.Sprintf("a%d\n", i))
		edit(b, "b", "b.txt", fmt.Sprintf("b%d\n", i))
	}
	j, err := journal.Open(replay.DefaultJournalPath(dir), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	runOf := func() (last uint64, run []uint64) {
		t.Helper()
		err := j.Do(func(db *journal.DB) error {
			if err := db.View(func(tx *journal.Tx) error { last = tx.Last(); return nil }); err != nil {
				return err
			}
			recs, err := db.LogRead(0)
			for _, r := range recs {
				run = append(run, r.First())
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return last, run
	}
	if last, run := runOf(); last != 0 || !slices.Equal(run, []uint64{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("after six turns: %d events in the bbolt file, the log's run holds %v", last, run)
	}
	if res := edit(b, "b-on-a", "a.txt", "b on a\n"); len(res.Observed) != 0 {
		t.Fatalf("a's batch seen as an outside change: %+v", res.Observed)
	}
	if err := a.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if last, _ := runOf(); last != 7 {
		t.Fatalf("after a's checkpoint the bbolt file holds %d events", last)
	}
	edit(b, "b", "b.txt", "b4\n") // b finds its batches in the bbolt file: a new run
	if err := b.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if tools, want := eventTools(t, a), []string{"a", "b", "a", "b", "a", "b", "b-on-a", "b"}; !slices.Equal(tools, want) {
		t.Fatalf("events %v, want %v", tools, want)
	}
	verifyChain(t, a)
	if k, ok := equalMaps(map[string]string{"a.txt": "b on a\n", "b.txt": "b4\n"}, snapshotDir(t, dir)); !ok {
		t.Fatalf("disk differs at %s", k)
	}
	for _, e := range []*replay.Engine{a, b} {
		if st, err := e.Status(); err != nil || len(st.Changed) != 0 || len(st.Pending) != 0 {
			t.Fatalf("status %+v %v", st, err)
		}
	}
}

// TestLogged_AdoptKeepsOutsideChange: a running engine takes over another
// one's run on that batch's note (it finished: its files were renamed)
// without reading the files again, so a file someone changed since — here
// put back as it was before the batch — stays as they left it (a recovery
// that read it would have rolled the batch forward over their change), and
// the next batch on it records the change as an outside one.
func TestLogged_AdoptKeepsOutsideChange(t *testing.T) {
	defer replay.SetLogDelays(time.Hour, time.Hour)()
	dir := t.TempDir()
	write(t, dir, "one.txt", "1\n")
	write(t, dir, "two.txt", "two\n")
	a, b := open(t, dir), open(t, dir)
	if _, err := a.Apply(ctx, &replay.Batch{Tool: "a", Changes: []replay.Change{{Path: "one.txt", Data: []byte("2\n")}}}); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "one.txt", "1\n")
	if _, err := b.Apply(ctx, &replay.Batch{Tool: "b", Changes: []replay.Change{{Path: "two.txt", Data: []byte("two, b\n")}}}); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, dir, "one.txt"); got != "1\n" {
		t.Fatalf("one.txt %q: the outside change was overwritten", got)
	}
	res, err := b.Apply(ctx, &replay.Batch{Tool: "b", Changes: []replay.Change{{Path: "one.txt", Data: []byte("3\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Observed) != 1 {
		t.Fatalf("observed %+v, want the outside change to one.txt", res.Observed)
	}
	if err := b.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if tools, want := eventTools(t, a), []string{"a", "b", "", "b"}; !slices.Equal(tools, want) {
		t.Fatalf("events %v, want %v", tools, want)
	}
	verifyChain(t, a)
}

// TestLogged_RollForwardToFinalState: a run of logged batches that takes a
// file from one content to another and back (an empty file given a
// content, then emptied) is taken over by another process's recovery
// without writing anything: the file holds the run's last content. Rolled
// forward batch by batch, the first batch found the file holding its
// before-content and wrote its after back — a recovery killed there (here:
// its first rename fails) left the file with the older content under a
// journal that says it is empty (TestCrash_KillGC, seed 1795699685280918739).
func TestLogged_RollForwardToFinalState(t *testing.T) {
	defer replay.SetLogDelays(time.Hour, time.Hour)()
	dir := t.TempDir()
	write(t, dir, "x.txt", "")
	write(t, dir, "y.txt", "y0\n")
	a := open(t, dir)
	for _, c := range []replay.Change{{Path: "x.txt", Data: []byte("some content\n")}, {Path: "y.txt", Data: []byte("y1\n")}, {Path: "x.txt", Data: []byte{}}} {
		if _, err := a.Apply(ctx, &replay.Batch{Tool: "t", Changes: []replay.Change{c}}); err != nil {
			t.Fatal(err)
		}
	}
	var renamed []string
	b, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: journal.Actor{Kind: "mcp", Name: "test", Session: "s2"},
		Fault: func(step, path string) error {
			if step == "rename" {
				renamed = append(renamed, path)
				return errors.New("killed at its rename")
			}
			return nil
		}})
	if err != nil {
		t.Fatalf("recovery: %v (it renamed over %v)", err, renamed)
	}
	defer b.Close()
	if k, ok := equalMaps(map[string]string{"x.txt": "", "y.txt": "y1\n"}, snapshotDir(t, dir)); !ok {
		t.Fatalf("disk differs at %s", k)
	}
	if st, err := b.Status(); err != nil || len(st.Changed) != 0 {
		t.Fatalf("status %+v %v", st, err)
	}
}
