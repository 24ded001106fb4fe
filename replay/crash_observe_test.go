package replay_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// The child and parent of TestCrashObserve share these.
const (
	// crashObserveMaxFiles bounds Observation.MaxFiles in the child and
	// is the parent's own: no observe event may hold more files.
	crashObserveMaxFiles = 100
	// crashObserveStream is both processes' StreamThreshold: files at
	// least this large stream into the store (storeLarge), cheaply.
	crashObserveStream = 64 << 10
)

func crashObserveOptions(dir string) replay.Options {
	return replay.Options{Roots: []string{dir}, StreamThreshold: crashObserveStream,
		Actor: journal.Actor{Kind: "mcp", Name: "crash-observe", Session: "s1"}}
}

// obsFile is a file as the child of TestCrashObserve knows it.
type obsFile struct {
	data string
	mode fs.FileMode
}

// obsChild is the child process of TestCrashObserve: what it wrote to the
// disk (disk), what the journal should hold since its last Observe or
// Apply of each file (jrnl), the files the journal has a head for (known)
// and the files it changed since it last observed them (touched).
type obsChild struct {
	e          *replay.Engine
	dir        string
	r          *rand.Rand
	seed       uint64
	log        *os.File
	disk, jrnl map[string]obsFile
	known      map[string]bool
	touched    map[string]bool
	n          int // contents written, for unique contents
	events     int // events its Observes appended
}

func (c *obsChild) fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "child seed %d: %s\n", c.seed, fmt.Sprintf(format, args...))
	os.Exit(5)
}

// content returns a new content for p, unique (it names p and a counter)
// but for the few empty ones, mostly small text, now and then binary or
// large enough to stream (large).
func (c *obsChild) content(p string, large bool) []byte {
	c.n++
	r := c.r
	var n int
	switch k := r.IntN(100); {
	case large:
		n = crashObserveStream + r.IntN(3*crashObserveStream)
	case k < 2:
		return []byte{}
	case k < 72:
		n = r.IntN(600)
	case k < 96:
		n = r.IntN(4 << 10)
	default:
		n = 4<<10 + r.IntN(36<<10)
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s #%d.%d\n", p, c.seed, c.n)
	if r.IntN(8) == 0 { // binary
		for buf.Len() < n {
			buf.WriteByte(byte(r.Uint32()))
		}
		return buf.Bytes()
	}
	eol := "\n"
	if r.IntN(4) == 0 {
		eol = "\r\n"
	}
	for buf.Len() < n {
		fmt.Fprintf(&buf, "line %d %x%s", r.IntN(1000), r.Uint64(), eol)
	}
	return buf.Bytes()
}

// note appends to the log, before the file is written, that p may hold
// data: the parent checks every content an event of the child records
// against it.
func (c *obsChild) note(p string, data []byte) {
	if _, err := fmt.Fprintf(c.log, "%s\t%s\n", p, snapshot.Sum(data)); err != nil {
		c.fail("log: %v", err)
	}
}

func (c *obsChild) stat(p string) fs.FileMode {
	fi, err := os.Lstat(filepath.Join(c.dir, filepath.FromSlash(p)))
	if err != nil {
		c.fail("lstat %s: %v", p, err)
	}
	return fi.Mode()
}

// write writes data to p as another process would.
func (c *obsChild) write(p string, data []byte) {
	c.note(p, data)
	full := filepath.Join(c.dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		c.fail("mkdir: %v", err)
	}
	if err := os.WriteFile(full, data, 0o644); err != nil {
		c.fail("write %s: %v", p, err)
	}
	c.disk[p] = obsFile{string(data), c.stat(p)}
	c.touched[p] = true
}

func (c *obsChild) remove(p string) {
	if err := os.Remove(filepath.Join(c.dir, filepath.FromSlash(p))); err != nil {
		c.fail("remove %s: %v", p, err)
	}
	delete(c.disk, p)
	c.touched[p] = true
}

// rename moves the file or directory from to the path to, which does not exist.
func (c *obsChild) rename(from, to string) {
	var moved []string
	for p := range c.disk {
		if p == from || strings.HasPrefix(p, from+"/") {
			moved = append(moved, p)
		}
	}
	for _, p := range moved {
		c.note(to+strings.TrimPrefix(p, from), []byte(c.disk[p].data))
	}
	full := filepath.Join(c.dir, filepath.FromSlash(to))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		c.fail("mkdir: %v", err)
	}
	if err := os.Rename(filepath.Join(c.dir, filepath.FromSlash(from)), full); err != nil {
		c.fail("rename %s: %v", from, err)
	}
	for _, p := range moved {
		q := to + strings.TrimPrefix(p, from)
		c.disk[q] = c.disk[p]
		delete(c.disk, p)
		c.touched[p], c.touched[q] = true, true
	}
}

func (c *obsChild) chmod(p string) {
	mode := c.disk[p].mode.Perm() ^ 0o111
	if err := os.Chmod(filepath.Join(c.dir, filepath.FromSlash(p)), mode); err != nil {
		c.fail("chmod %s: %v", p, err)
	}
	c.disk[p] = obsFile{c.disk[p].data, c.stat(p)}
	c.touched[p] = true
}

// pick returns a random file on disk (of keys, sorted), mostly of the
// working set w/.
func (c *obsChild) pick(keys []string) (string, bool) {
	set := keys
	if c.r.IntN(10) < 7 {
		i, _ := slices.BinarySearch(keys, "w/")
		j, _ := slices.BinarySearch(keys, "w0")
		if j > i {
			set = keys[i:j]
		}
	}
	for range 4 {
		if len(set) == 0 {
			return "", false
		}
		if p := set[c.r.IntN(len(set))]; c.exists(p) {
			return p, true
		}
	}
	return "", false
}

// maxFiles returns a random Observation.MaxFiles, small: an Observe makes
// many events.
func (c *obsChild) maxFiles() int { return 20 + c.r.IntN(crashObserveMaxFiles-20+1) }

func (c *obsChild) exists(p string) bool { _, ok := c.disk[p]; return ok }

// newName returns a path no file of this child had.
func (c *obsChild) newName() string {
	c.n++
	return fmt.Sprintf("w/d%d/s%d_%d.txt", c.r.IntN(8), c.seed, c.n)
}

// changes makes a random set of outside changes: creates, modifications,
// deletes, a few moves, mode changes, and now and then a directory moved.
func (c *obsChild) changes() {
	r := c.r
	if r.IntN(40) == 0 { // a directory of the working set moves
		from, to := r.IntN(8), r.IntN(7)
		if to >= from {
			to++ // not into itself
		}
		d := fmt.Sprintf("w/d%d", from)
		if fi, err := os.Stat(filepath.Join(c.dir, d)); err == nil && fi.IsDir() {
			c.n++
			c.rename(d, fmt.Sprintf("w/d%d/m%d_%d", to, c.seed, c.n))
		}
	}
	keys := slices.Sorted(maps.Keys(c.disk))
	var gone []string // known, not on disk
	for p := range c.known {
		if !c.exists(p) {
			gone = append(gone, p)
		}
	}
	slices.Sort(gone)
	for range 1 + r.IntN(40) {
		p, ok := c.pick(keys)
		switch k := r.IntN(100); {
		case k < 40 && ok && c.exists(p):
			c.write(p, c.content(p, r.IntN(60) == 0))
		case k < 60:
			q := c.newName()
			c.write(q, c.content(q, r.IntN(60) == 0))
		case k < 75 && ok && c.exists(p):
			c.remove(p)
		case k < 85 && ok && c.exists(p):
			c.rename(p, c.newName())
		case k < 92 && ok && c.exists(p):
			c.chmod(p)
		case k < 97 && len(gone) > 0: // a file deleted before comes back
			if q := gone[r.IntN(len(gone))]; !c.exists(q) {
				c.write(q, c.content(q, false))
			}
		}
	}
}

// apply applies a batch of a few files through the engine.
func (c *obsChild) apply() {
	r := c.r
	keys := slices.Sorted(maps.Keys(c.disk))
	b := &replay.Batch{Tool: "crash-observe"}
	seen := map[string]bool{}
	for range 1 + r.IntN(10) {
		p, ok := c.pick(keys)
		if !ok || r.IntN(4) == 0 {
			p = c.newName()
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		if c.exists(p) && r.IntN(8) == 0 {
			b.Changes = append(b.Changes, replay.Change{Path: p, Delete: true})
			continue
		}
		data := c.content(p, false)
		c.note(p, data)
		b.Changes = append(b.Changes, replay.Change{Path: p, Data: data})
	}
	if _, err := c.e.Apply(ctx, b); err != nil {
		c.fail("apply: %v", err)
	}
	for _, ch := range b.Changes {
		if ch.Delete {
			delete(c.disk, ch.Path)
			delete(c.jrnl, ch.Path)
		} else {
			f := obsFile{string(ch.Data), c.stat(ch.Path)}
			c.disk[ch.Path], c.jrnl[ch.Path] = f, f
		}
		c.known[ch.Path] = true
	}
}

// observe calls Observe on paths as the watcher would, and checks that it
// recorded exactly the files that differ from what the journal had, each
// once, a baseline's first seen files apart, in events of at most
// MaxFiles files, given back (in Observed.Files or to Each) as the events
// hold them.
func (c *obsChild) observe(paths []string, baseline bool, max int) {
	r := c.r
	o := replay.Observation{Paths: paths, Tool: journal.ToolWatch, Baseline: baseline, MaxFiles: max, Watched: r.IntN(2) == 0}
	if r.IntN(3) == 0 {
		o.Tool, o.Args = "Bash", json.RawMessage(`{"command":"crash-observe"}`)
		o.Actor = &journal.Actor{Kind: "hook", Name: "crash", Session: "s2"}
	}
	var each []journal.FileChange
	if r.IntN(2) == 0 {
		o.Each = func(files []journal.FileChange, stamps []replay.Stamp) {
			if len(files) == 0 || len(files) != len(stamps) {
				c.fail("Each given %d files, %d stamps", len(files), len(stamps))
			}
			each = append(each, files...)
		}
	}
	ob, err := c.e.Observe(ctx, o)
	if err != nil {
		c.fail("observe: %v", err)
	}
	if len(ob.Unsettled) != 0 || len(ob.Skipped) != 0 {
		c.fail("observe: unsettled %v, skipped %v, with no other writer", ob.Unsettled, ob.Skipped)
	}
	got := ob.Files
	if o.Each != nil {
		if len(ob.Files) != 0 || len(ob.Stamps) != 0 {
			c.fail("observe with Each returned %d files", len(ob.Files))
		}
		got = each
	} else if len(ob.Stamps) != len(ob.Files) {
		c.fail("observe: %d files, %d stamps", len(ob.Files), len(ob.Stamps))
	}
	// what it must have recorded
	want := map[string]bool{} // path → first seen (a baseline's)
	var nbase int
	for _, p := range paths {
		d, onDisk := c.disk[p]
		j, inJournal := c.jrnl[p]
		if onDisk == inJournal && d == j {
			continue
		}
		first := baseline && onDisk && !c.known[p]
		if _, dup := want[p]; !dup && first {
			nbase++
		}
		want[p] = first
	}
	if ob.Count != len(got) || len(got) != len(want) {
		c.fail("observe recorded %d files (Count %d), want %d", len(got), ob.Count, len(want))
	}
	var evFiles []journal.FileChange
	err = c.e.Journal().View(func(tx *journal.Tx) error {
		for _, seq := range ob.Events {
			ev, err := tx.Event(seq)
			if err != nil {
				return err
			}
			if ev.Kind != journal.KindObserve || ev.Status != journal.StatusCommitted || len(ev.Files) == 0 || len(ev.Files) > max {
				return fmt.Errorf("event %d: %s %s with %d files (max %d)", seq, ev.Kind, ev.Status, len(ev.Files), max)
			}
			for _, f := range ev.Files {
				if ev.IsBaseline() != want[f.Path] {
					return fmt.Errorf("event %d (%s) has %s, first seen %v", seq, ev.Tool, f.Path, want[f.Path])
				}
			}
			if !ev.IsBaseline() && ev.Tool != o.Tool {
				return fmt.Errorf("event %d: tool %q, want %q", seq, ev.Tool, o.Tool)
			}
			evFiles = append(evFiles, ev.Files...)
			c.events++
		}
		return nil
	})
	if err != nil {
		c.fail("observe: %v", err)
	}
	if nevents := (nbase+max-1)/max + (len(want)-nbase+max-1)/max; len(ob.Events) != nevents {
		c.fail("observe: %d events for %d first seen and %d other files (max %d), want %d", len(ob.Events), nbase, len(want)-nbase, max, nevents)
	}
	if len(evFiles) != len(got) {
		c.fail("observe: events hold %d files, returned %d", len(evFiles), len(got))
	}
	for i, f := range evFiles {
		if g := got[i]; g.Path != f.Path || g.After != f.After || g.Before != f.Before || g.AfterMode != f.AfterMode {
			c.fail("observe: file %d returned %+v, its event has %+v", i, g, f)
		}
		if _, ok := want[f.Path]; !ok {
			c.fail("observe recorded %s, unchanged", f.Path)
		}
		d, onDisk := c.disk[f.Path]
		if onDisk != !f.After.IsZero() || onDisk && f.After != snapshot.Sum([]byte(d.data)) {
			c.fail("observe recorded %s as %s, not what is on disk", f.Path, f.After.Short())
		}
		delete(want, f.Path)
	}
	for _, p := range paths {
		if f, ok := c.disk[p]; ok {
			c.jrnl[p] = f
			c.known[p] = true
		} else {
			delete(c.jrnl, p)
		}
		delete(c.touched, p)
	}
}

// TestCrashObserveChild is the child process of TestCrashObserve: it makes
// outside changes and observes them (and now and then applies a batch)
// until killed.
func TestCrashObserveChild(t *testing.T) {
	dir := os.Getenv("JOURNAL_CRASH_OBSERVE_DIR")
	if dir == "" {
		t.Skip("child process of TestCrashObserve")
	}
	seed, _ := strconv.ParseUint(os.Getenv("JOURNAL_CRASH_OBSERVE_SEED"), 10, 64)
	c := &obsChild{dir: dir, seed: seed, r: rand.New(rand.NewPCG(seed, 11)),
		disk: map[string]obsFile{}, jrnl: map[string]obsFile{}, known: map[string]bool{}, touched: map[string]bool{}}
	var err error
	if c.log, err = os.OpenFile(os.Getenv("JOURNAL_CRASH_OBSERVE_LOG"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
		c.fail("log: %v", err)
	}
	// Armed, the child kills itself during one of its first Observe's
	// commits (its store's or an event's), a random one of those it
	// should make, 0-2 ms after it starts: within the commit or just after.
	var commits, killAt int
	var killIn time.Duration
	o := crashObserveOptions(dir)
	o.CommitFault = func() error {
		if commits++; commits == killAt {
			go func() {
				time.Sleep(killIn)
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}()
		}
		return nil
	}
	if c.e, err = replay.Open(o); err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(3)
	}
	// The parent left every file as its head: the journal holds the disk.
	for p, data := range snapshotDir(t, dir) {
		f := obsFile{data, c.stat(p)}
		c.disk[p], c.jrnl[p] = f, f
	}
	known, err := c.e.Known()
	if err != nil {
		c.fail("known: %v", err)
	}
	for p := range known {
		c.known[p] = true
	}

	// The first round, a watcher's first start: a few thousand new files
	// (now and then more than one store transaction holds, and a few large
	// enough to stream) as a baseline; in a journal that has files, a
	// quarter of the generations before go too and an eighth change.
	r := c.r
	var old []string
	for p := range c.disk {
		if strings.HasPrefix(p, "g") {
			old = append(old, p)
		}
	}
	slices.Sort(old)
	for _, p := range old {
		switch k := r.IntN(8); {
		case k < 2:
			c.remove(p)
		case k < 3:
			c.write(p, c.content(p, false))
		}
	}
	n := 1000 + r.IntN(2000)
	for i := range n {
		p := fmt.Sprintf("g%d/d%02d/f%04d.txt", seed, i%40, i)
		c.write(p, c.content(p, false))
	}
	if r.IntN(4) == 0 { // small files of more than observeChunk: the store flushes mid-read
		for i := range 300 {
			p := fmt.Sprintf("g%d/heavy/h%03d.bin", seed, i)
			data := c.content(p, false)
			data = append(data, bytes.Repeat([]byte{byte(i)}, 48<<10+r.IntN(15<<10)-len(data))...)
			c.write(p, data)
		}
	}
	for i := range r.IntN(4) {
		p := fmt.Sprintf("g%d/large/l%d.bin", seed, i)
		c.write(p, c.content(p, true))
	}
	if len(c.known) == 0 {
		for range 150 {
			q := c.newName()
			c.write(q, c.content(q, false))
		}
	}
	first := slices.Sorted(maps.Keys(c.touched))
	var nbase int
	for _, p := range first {
		if c.exists(p) && !c.known[p] {
			nbase++
		}
	}
	max, armed := c.maxFiles(), r.IntN(5) < 2
	fmt.Fprintf(os.Stdout, "ready %d %d %v\n", nbase, len(first), armed)
	if armed {
		commits, killAt = 0, 1+r.IntN(2+(len(first)+max-1)/max)
		killIn = time.Duration(r.IntN(2000)) * time.Microsecond
	}
	t0 := time.Now()
	c.observe(first, true, max)
	killAt = 0
	fmt.Fprintf(os.Stdout, "first %d %d\n", time.Since(t0), c.events)

	for {
		c.changes()
		if r.IntN(6) == 0 {
			c.apply()
		}
		if r.IntN(8) == 0 {
			continue // left for the next round's Observe (or an Apply's)
		}
		paths := slices.Collect(maps.Keys(c.touched))
		all := slices.Sorted(maps.Keys(c.disk))
		if r.IntN(10) == 0 { // a catch-up: every file
			paths = append(paths, all...)
			paths = append(paths, slices.Collect(maps.Keys(c.known))...)
		} else {
			for range r.IntN(30) {
				paths = append(paths, all[r.IntN(len(all))])
			}
		}
		if r.IntN(10) == 0 {
			paths = append(paths, "w/never/there.txt")
		}
		r.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
		c.observe(paths, r.IntN(3) == 0, c.maxFiles())
	}
}

// obsKill is where a kill of TestCrashObserve's child landed.
type obsKill int

const (
	killReading     obsKill = iota // in its first Observe, before its first event
	killMidBaseline                // some of the first Observe's baseline events appended, not all
	killFirstRest                  // its baseline appended, the first Observe not returned (its other events)
	killLaterRounds                // the first Observe returned
	obsKills
)

var obsKillNames = [obsKills]string{"in the first Observe's reads and store", "mid-baseline",
	"after the baseline, in the first Observe's other events", "in later rounds"}

// TestCrashObserve proves that a process killed (SIGKILL) anywhere in
// Engine.Observe leaves a journal that tells the truth and loses nothing
// the next Observe cannot record. A child process (TestCrashObserveChild)
// writes files as an outside process would (os.WriteFile, Remove, Rename,
// Chmod) and observes them: first a watcher's first start, a baseline of a
// few thousand new files in observe events of 20-100 files each (now and
// then after more than one store transaction, with a few files large
// enough to stream), then rounds of creates, modifications, deletes, file
// and directory moves and mode changes, observed with and without
// Baseline, Watched and Each, mixed with Apply batches; it checks itself
// that each Observe records exactly the files that changed, in events of
// at most MaxFiles files, as Observed.Files or Each gives them. It is
// killed at a random moment once it is ready (mostly in its first Observe:
// in its reads and store, or while it appends its events), or, armed, kills
// itself in a random commit of its first Observe. After each kill the
// engine reopens (recovers) and the test checks: nothing pending, no temp
// files, the chain and every content it names verify; every event is whole
// — committed (an observe event) or rolled back (a batch), its files in the
// by-path index, each committed change's Before the After of the one before
// it, a baseline only of files no event had, no observe event empty or of
// more than MaxFiles files; every head the last committed change of its
// file; a file of a first round recorded first by a baseline, never as
// created; every content an event of the child records one the child had
// put at that path. Then an Observe of every file on disk and every file
// with a head (a watcher's next start: Baseline) records the rest, after
// which Status finds nothing changed, every file on disk is its head's
// content, a second Observe records nothing and the journal passes the
// same checks. JOURNAL_CRASH_ITERATIONS sets the number of kills (default
// 6, -short 3); the workspace is a fresh one every 4.
func TestCrashObserve(t *testing.T) {
	if os.Getenv("JOURNAL_CRASH_OBSERVE_DIR") != "" {
		t.Skip("in child")
	}
	iters := crashIterations(6, 3)
	base := t.TempDir()
	r := rand.New(rand.NewPCG(43, 43))
	// How long a first Observe takes, as last seen: to its first event,
	// then for each event.
	toEvent, perEvent := 300*time.Millisecond, 4*time.Millisecond
	var kills [obsKills]int
	var selfKills int
	var dir, logPath string
	var own map[uint64]bool // events the parent appended
	var last uint64         // the journal's last event before the child ran
	for i := 0; i < iters; i++ {
		if i%4 == 0 { // a fresh workspace: the next child's first round is a baseline of every file
			if dir != "" {
				os.RemoveAll(dir)
				os.Remove(logPath)
			}
			dir, logPath = filepath.Join(base, fmt.Sprintf("ws%d", i)), filepath.Join(base, fmt.Sprintf("log%d", i))
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			own, last = map[uint64]bool{}, 0
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashObserveChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "JOURNAL_CRASH_OBSERVE_DIR="+dir, "JOURNAL_CRASH_OBSERVE_LOG="+logPath,
			"JOURNAL_CRASH_OBSERVE_SEED="+strconv.Itoa(i))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		type line struct {
			s  string
			at time.Time
		}
		lines := make(chan line, 4)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- line{sc.Text(), time.Now()}
			}
		}()
		// "ready": its first round written, its first Observe starts.
		l, ok := <-lines
		var nbase, nfirst int
		var armed bool
		if _, err := fmt.Sscanf(l.s, "ready %d %d %t", &nbase, &nfirst, &armed); !ok || err != nil {
			for range lines {
			}
			cmd.Wait()
			t.Fatalf("iteration %d: child did not start: %q %s", i, l.s, stderr.String())
		}
		ready := l.at
		// Unless armed to kill itself in one of its first Observe's
		// commits, a third of the kills in the first Observe's reads and
		// store, a third while it appends its events (of 50 files on
		// average), the rest in the rounds after.
		a, b := toEvent, toEvent+perEvent*time.Duration(nfirst/50+1)
		var wait time.Duration
		switch k := r.IntN(3); {
		case k == 0 && !armed:
			wait = time.Duration(r.Int64N(int64(a)))
		case k == 1 && !armed:
			wait = a + time.Duration(r.Int64N(int64(b-a)))
		default:
			wait = b + time.Duration(r.Int64N(int64(600*time.Millisecond)))
		}
		timer := time.NewTimer(time.Until(ready.Add(wait)))
		firstDone := false
		var firstEnd time.Duration // how long the first Observe took, if it returned
		var firstEvents int        // the events it appended
		first := func(l line) {
			if _, err := fmt.Sscanf(l.s, "first %d %d", &firstEnd, &firstEvents); err == nil {
				firstDone = true
			}
		}
	waiting:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break waiting // exited (a failure, reported below)
				}
				first(l)
			case <-timer.C:
				break waiting
			}
		}
		cmd.Process.Signal(syscall.SIGKILL)
		for l := range lines { // to the end of its output: "first" may have come just before the kill
			first(l)
		}
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("iteration %d: child exited on its own (%v): %s", i, err, stderr.String())
		}

		e, err := replay.Open(crashObserveOptions(dir)) // recovers
		if err != nil {
			t.Fatalf("iteration %d: reopen: %v", i, err)
		}
		st, err := e.Status()
		if err != nil {
			t.Fatalf("iteration %d: status: %v", i, err)
		}
		if len(st.Pending) != 0 {
			t.Fatalf("iteration %d: pending after recovery: %v", i, st.Pending)
		}
		if tmp := temps(dir); len(tmp) != 0 {
			t.Fatalf("iteration %d: temp files left: %v", i, tmp)
		}
		verifyChain(t, e)
		logged := readObserveLog(t, logPath)
		sum := checkObservedJournal(t, e, i, logged, own, last)
		if sum.events > 0 { // the time of its first Observe's first event
			a := sum.firstTime.Sub(ready)
			toEvent = (toEvent + a) / 2
			if firstDone && firstEvents > 0 {
				perEvent = (perEvent + (firstEnd-a)/time.Duration(firstEvents)) / 2
			}
		}
		if armed && !firstDone {
			selfKills++
		}
		switch {
		case !firstDone && sum.events == 0:
			kills[killReading]++
		case !firstDone && sum.baseline < nbase:
			kills[killMidBaseline]++
		case !firstDone:
			kills[killFirstRest]++
		default:
			kills[killLaterRounds]++
		}

		// A watcher's next start: an Observe of every file on disk and
		// every file with a head records what the child left unrecorded.
		paths := slices.Collect(maps.Keys(snapshotDir(t, dir)))
		known, err := e.Known()
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, slices.Collect(maps.Keys(known))...)
		o := replay.Observation{Paths: paths, Tool: journal.ToolCatchUp, Baseline: true, MaxFiles: crashObserveMaxFiles, Watched: r.IntN(2) == 0}
		var given int
		if r.IntN(2) == 0 {
			o.Each = func(files []journal.FileChange, _ []replay.Stamp) { given += len(files) }
		}
		ob, err := e.Observe(ctx, o)
		if err != nil {
			t.Fatalf("iteration %d: observe after recovery: %v", i, err)
		}
		if len(ob.Unsettled) != 0 || len(ob.Skipped) != 0 {
			t.Fatalf("iteration %d: observe after recovery: unsettled %v, skipped %v", i, ob.Unsettled, ob.Skipped)
		}
		if o.Each == nil {
			given = len(ob.Files)
		}
		if ob.Count != given {
			t.Fatalf("iteration %d: observe after recovery recorded %d files, Count %d", i, given, ob.Count)
		}
		for _, seq := range ob.Events {
			own[seq] = true
		}
		st, err = e.Status()
		if err != nil {
			t.Fatalf("iteration %d: status: %v", i, err)
		}
		if len(st.Changed) != 0 || len(st.Pending) != 0 {
			t.Fatalf("iteration %d: after observing every file: changed %+v, pending %v", i, st.Changed, st.Pending)
		}
		err = e.Journal().View(func(tx *journal.Tx) error {
			for name, data := range snapshotDir(t, dir) {
				h, ok := tx.Head(name)
				if !ok {
					return fmt.Errorf("%s on disk but unknown to the journal", name)
				}
				b, err := snapshot.Bytes(tx.Bolt(), h.ID)
				if err != nil || string(b) != data {
					return fmt.Errorf("%s: its head %s is not its content (%v)", name, h.ID.Short(), err)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("iteration %d: %v", i, err)
		}
		again, err := e.Observe(ctx, replay.Observation{Paths: paths, Tool: journal.ToolCatchUp, Baseline: o.Baseline, MaxFiles: crashObserveMaxFiles})
		if err != nil || len(again.Events) != 0 || again.Count != 0 || len(again.Unsettled) != 0 {
			t.Fatalf("iteration %d: a second observe recorded %v (%d files, unsettled %v): %v", i, again.Events, again.Count, again.Unsettled, err)
		}
		if done, err := e.Recover(); err != nil || len(done) != 0 {
			t.Fatalf("iteration %d: second recovery %v %v", i, done, err)
		}
		verifyChain(t, e)
		sum = checkObservedJournal(t, e, i, logged, own, last)
		last = sum.last
		e.Close()
	}
	var report []string
	for k, n := range kills {
		report = append(report, fmt.Sprintf("%s %d", obsKillNames[k], n))
	}
	t.Logf("%d kills (%d by the child itself, in a commit): %s", iters, selfKills, strings.Join(report, ", "))
}

// readObserveLog reads what TestCrashObserve's children said they wrote:
// "path\tcontent ID" lines.
func readObserveLog(t *testing.T, name string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		out[l] = true
	}
	return out
}

type observedSummary struct {
	last     uint64 // the last event
	events   int    // events after the one the check was given
	baseline int    // files of baseline events after it
	// firstTime is the time of the first of them
	firstTime time.Time
}

// checkObservedJournal checks every event of e's journal: none pending, each
// content it names present and whole, each event's files in the by-path
// index, each committed file change's Before the After of the committed
// change before it (zero for none; a batch's may instead be a file the
// journal never knew, or one whose mode alone changed outside: Apply
// appends no observe event for either), a baseline event only of files no
// committed event had, a file of a first round (g…) recorded first by a
// baseline, no observe event empty or of more than crashObserveMaxFiles
// files, every content an event of the child (not in own) records one the
// child logged for that path; and every head the last committed change of
// its file, every such change's file with a head. It returns what it saw
// of the events after the event numbered after.
func checkObservedJournal(t *testing.T, e *replay.Engine, i int, logged map[string]bool, own map[uint64]bool, after uint64) observedSummary {
	t.Helper()
	var sum observedSummary
	err := e.Journal().View(func(tx *journal.Tx) error {
		heads := map[string]journal.Head{} // by the committed events
		touched := map[string][]uint64{}
		verified := map[snapshot.ID]bool{}
		err := tx.Each(0, false, func(ev *journal.Event) error {
			sum.last = ev.Seq
			if ev.Seq > after && !own[ev.Seq] {
				if sum.events == 0 {
					sum.firstTime = ev.Time
				}
				sum.events++
				if ev.IsBaseline() {
					sum.baseline += len(ev.Files)
				}
			}
			switch ev.Status {
			case journal.StatusCommitted, journal.StatusRolledBack:
			default:
				return fmt.Errorf("event %d: %s", ev.Seq, ev.Status)
			}
			if ev.Kind == journal.KindObserve && (len(ev.Files) == 0 || len(ev.Files) > crashObserveMaxFiles || ev.Status != journal.StatusCommitted) {
				return fmt.Errorf("observe event %d: %s, %d files", ev.Seq, ev.Status, len(ev.Files))
			}
			inEvent := map[string]bool{}
			for _, f := range ev.Files {
				if inEvent[f.Path] {
					return fmt.Errorf("event %d has %s twice", ev.Seq, f.Path)
				}
				inEvent[f.Path] = true
				touched[f.Path] = append(touched[f.Path], ev.Seq)
				for _, id := range []snapshot.ID{f.Before, f.After} {
					if id.IsZero() || verified[id] {
						continue
					}
					if _, err := snapshot.Verify(tx.Bolt(), id); err != nil {
						return fmt.Errorf("event %d: %s: content %s: %w", ev.Seq, f.Path, id.Short(), err)
					}
					verified[id] = true
				}
				h, had := heads[f.Path]
				switch {
				case !had && ev.Kind != journal.KindObserve && !f.Before.IsZero():
					// a batch over a file the journal never knew: no observe
					// event first (none is unlike its head), its content the
					// batch's Before
					if !own[ev.Seq] && !logged[f.Path+"\t"+f.Before.String()] {
						return fmt.Errorf("event %d (%s %s) records %s before as %s, which the child never wrote there", ev.Seq, ev.Kind, ev.Tool, f.Path, f.Before.Short())
					}
				case had && ev.Kind != journal.KindObserve && f.Before == h.ID && f.BeforeMode != h.Mode:
					// a batch over a file whose mode alone changed outside:
					// no observe event first either (apply.go compares
					// contents only), its Before has the mode it found
				case f.Before != h.ID || f.BeforeMode != h.Mode:
					return fmt.Errorf("event %d (%s %s): %s before %s/%o, but the change before (event %d) left %s/%o",
						ev.Seq, ev.Kind, ev.Status, f.Path, f.Before.Short(), f.BeforeMode, h.Seq, h.ID.Short(), h.Mode)
				}
				if ev.IsBaseline() && had {
					return fmt.Errorf("baseline event %d has %s, which event %d recorded", ev.Seq, f.Path, h.Seq)
				}
				if !own[ev.Seq] && !f.After.IsZero() && !logged[f.Path+"\t"+f.After.String()] {
					return fmt.Errorf("event %d (%s %s) records %s as %s, which the child never wrote there", ev.Seq, ev.Kind, ev.Tool, f.Path, f.After.Short())
				}
				if ev.Status == journal.StatusCommitted {
					if !had && strings.HasPrefix(f.Path, "g") && !ev.IsBaseline() {
						return fmt.Errorf("event %d (%s %s) records %s first, a file of a first round: not a baseline", ev.Seq, ev.Kind, ev.Tool, f.Path)
					}
					heads[f.Path] = journal.Head{ID: f.After, Mode: f.AfterMode, Seq: ev.Seq}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		err = tx.Heads(func(p string, h journal.Head) error {
			if want, ok := heads[p]; !ok || h != want {
				return fmt.Errorf("head of %s is %s/%o (event %d), its last committed change %s/%o (event %d)",
					p, h.ID.Short(), h.Mode, h.Seq, want.ID.Short(), want.Mode, want.Seq)
			}
			delete(heads, p)
			return nil
		})
		if err != nil {
			return err
		}
		for p, h := range heads {
			return fmt.Errorf("%s has no head, event %d changed it", p, h.Seq)
		}
		for p, seqs := range touched {
			var indexed []uint64
			if err := tx.EachIndexedSeq("path", p, func(seq uint64) error { indexed = append(indexed, seq); return nil }); err != nil {
				return err
			}
			slices.Sort(indexed)
			if !slices.Equal(indexed, seqs) {
				return fmt.Errorf("%s: indexed in events %v, is in %v", p, indexed, seqs)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("iteration %d: %v", i, err)
	}
	return sum
}
