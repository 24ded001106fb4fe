package reliability

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/ops"
)

// pool is random text that file contents are cut from (lowercase lines, no
// spaces, so a header "id ..." is unique in a file).
var pool = func() []byte {
	rng := rand.New(rand.NewSource(1))
	b := make([]byte, 2<<20)
	for i := range b {
		if i%64 == 63 {
			b[i] = '\n'
		} else {
			b[i] = byte('a' + rng.Intn(26))
		}
	}
	return b
}()

// content is a file of exactly size bytes starting with the header "id tag".
func content(rng *rand.Rand, tag string, size int) []byte {
	if size == 0 {
		return []byte{}
	}
	b := make([]byte, 0, size+64)
	b = append(b, "id "+tag+"\n"...)
	for len(b) < size {
		off := rng.Intn(len(pool) - 4096)
		b = append(b, pool[off:off+min(4096, size-len(b))]...)
	}
	return b[:size]
}

// fileSize draws a size from 0 B to 1 MiB, mostly small.
func fileSize(rng *rand.Rand) int {
	switch r := rng.Intn(100); {
	case r < 8:
		return 0
	case r < 60:
		return rng.Intn(1 << 10)
	case r < 92:
		return rng.Intn(64 << 10)
	default:
		return 64<<10 + rng.Intn(1<<20-64<<10+1)
	}
}

// crashBatch is one tool call of the crash matrix and the files it must leave.
type crashBatch struct {
	tool  string
	args  map[string]any
	after map[string][]byte // path → content after (the batch's files only)
	bytes int
}

// crashModel is what the workspace must hold: the files of every acknowledged batch.
type crashModel struct {
	files map[string][]byte
	seq   int
}

func (m *crashModel) existing(rng *rand.Rand, n int) []string {
	keys := make([]string, 0, len(m.files))
	for k := range m.files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	if len(keys) > n {
		keys = keys[:n]
	}
	return keys
}

// next draws a batch: a tool and 1, 3, 10 or 50 files of 0 B – 1 MiB.
func (m *crashModel) next(t *testing.T, rng *rand.Rand, maxBytes int) *crashBatch {
	m.seq++
	n := []int{1, 3, 10, 50}[rng.Intn(4)]
	kind := rng.Intn(4)
	if len(m.files) < n || (kind != 0 && len(m.files) == 0) {
		kind = 0
	}
	if kind == 0 && len(m.files) > 400 {
		kind = 1
	}
	load := func(p string) ([]byte, bool, error) {
		d, ok := m.files[p]
		return d, ok, nil
	}
	b := &crashBatch{after: map[string][]byte{}}
	var list []ops.Op
	var opArgs []map[string]any
	total := 0
	budget := func() int {
		s := fileSize(rng)
		if total+s > maxBytes {
			s = rng.Intn(1 << 10)
		}
		total += s
		return s
	}
	switch kind {
	case 0: // file_create_new
		b.tool = "file_create_new"
		for i := 0; i < n; i++ {
			p := fmt.Sprintf("d%d/f%d-%d.txt", rng.Intn(5), m.seq, i)
			c := content(rng, fmt.Sprintf("%d-%d", m.seq, i), budget())
			list = append(list, ops.CreateOp{Path: p, Content: string(c)})
			opArgs = append(opArgs, map[string]any{"path": p, "content": string(c)})
		}
	case 1: // file_replace, whole files
		b.tool = "file_replace"
		for i, p := range m.existing(rng, n) {
			c := content(rng, fmt.Sprintf("%d-%d", m.seq, i), budget())
			list = append(list, ops.ReplaceOp{Path: p, Content: string(c)})
			opArgs = append(opArgs, map[string]any{"path": p, "content": string(c)})
		}
	case 2: // file_insert_text at eof
		b.tool = "file_insert_text"
		for i, p := range m.existing(rng, n) {
			c := fmt.Sprintf("ins %d-%d", m.seq, i)
			list = append(list, ops.InsertOp{Path: p, Content: c, At: "eof"})
			opArgs = append(opArgs, map[string]any{"path": p, "content": c, "at": "eof"})
		}
	case 3: // edit_content on one file with a header (single-file search/replace)
		for _, p := range m.existing(rng, len(m.files)) {
			old := m.files[p]
			if !bytes.HasPrefix(old, []byte("id ")) || bytes.IndexByte(old, '\n') < 0 {
				continue
			}
			head := string(old[:bytes.IndexByte(old, '\n')])
			repl := fmt.Sprintf("id e%d", m.seq)
			b.tool = "edit_content"
			b.args = map[string]any{"absolute_file_path": p, "search_text": head, "replace_text": repl, "preview": false, "fuzzy": false}
			b.after[p] = bytes.Replace(old, []byte(head), []byte(repl), 1)
			b.bytes = len(old)
			return b
		}
		m.seq--
		return m.next(t, rng, maxBytes)
	}
	out, err := ops.ApplyBatch(list, load)
	if err != nil {
		t.Fatalf("reference applier: %v", err)
	}
	for _, p := range out.Paths() {
		b.after[p] = out.Files[p].New
		b.bytes += len(out.Files[p].New)
	}
	b.args = map[string]any{"ops": opArgs}
	return b
}

// crashStats are the figures of a crash run.
type crashStats struct {
	kills, earlyKills, acked, noops, inflight, inflightApplied, inflightRolledBack, filesChecked, verifies, reads int
	bytesSent                                                                                                     int64
	byTool                                                                                                        map[string]int
	byFiles                                                                                                       map[int]int
}

// seeded returns a random source seeded from the clock, or from
// JOURNAL_SEED to repeat a run, and its seed (logged).
func seeded(t *testing.T) (*rand.Rand, int64) {
	seed := time.Now().UnixNano()
	if v := os.Getenv("JOURNAL_SEED"); v != "" {
		fmt.Sscan(v, &seed)
	}
	t.Logf("seed %d (JOURNAL_SEED to repeat)", seed)
	return rand.New(rand.NewSource(seed)), seed
}

// TestCrash_KillServeDuringBatches SIGKILLs `journal serve` at random moments
// while it serves batch tools, restarts it, and checks after every restart:
// no torn file, no partly applied batch, every acknowledged batch on disk, no
// temporary file, `journal verify` clean.
func TestCrash_KillServeDuringBatches(t *testing.T) {
	killServe(t, scale("KILLS", 100, 1000), false)
}

// TestCrash_KillServeBesideAnother is TestCrash_KillServeDuringBatches with
// a second `journal serve` on the same workspace that keeps rewriting a file
// of its own and is never killed: the two take over each other's runs of
// the write-ahead log (replay/wal.go, adopt), so the killed server's last
// batches are completed by the running one — or by the restarted one — and
// the running one's batches survive the other's recoveries. Checked as well:
// its file holds its last acknowledged content at every check, and the
// journal's committed events count its batches.
func TestCrash_KillServeBesideAnother(t *testing.T) {
	killServe(t, scale("KILLS", 40, 400), true)
}

// bystander is the second server of TestCrash_KillServeBesideAnother.
type bystander struct {
	s     *server
	mu    sync.Mutex // held during each call; the checks hold it meanwhile
	path  string
	last  []byte // the content last acknowledged
	acked int
	err   error
	stop  chan struct{}
	done  chan struct{}
}

func startBystander(t *testing.T, root string) *bystander {
	b := &bystander{s: mustStart(t, root, "bystander", "--share=false"), path: "bystander.txt", stop: make(chan struct{}), done: make(chan struct{})}
	b.last = []byte(strings.Repeat("bystander 0\n", 40))
	res, err := b.s.call("file_create_new", map[string]any{"ops": []map[string]any{{"path": b.path, "content": string(b.last)}}})
	if err != nil || res.IsError {
		t.Fatalf("bystander: create: %v %+v", err, res)
	}
	b.acked++
	go func() {
		defer close(b.done)
		for i := 1; ; i++ {
			select {
			case <-b.stop:
				return
			default:
			}
			c := []byte(strings.Repeat(fmt.Sprintf("bystander %d\n", i), 40))
			b.mu.Lock()
			res, err := b.s.call("file_replace", map[string]any{"ops": []map[string]any{{"path": b.path, "content": string(c)}}})
			if err == nil && (res.IsError || res.Protocol != nil) {
				err = fmt.Errorf("%s %v", res.Text, res.Protocol)
			}
			if err != nil {
				b.err = err
				b.mu.Unlock()
				return
			}
			b.last = c
			b.acked++
			b.mu.Unlock()
		}
	}()
	return b
}

// close stops the bystander's calls and its server.
func (b *bystander) close(t *testing.T) {
	close(b.stop)
	<-b.done
	b.s.close()
	if b.err != nil {
		t.Fatalf("bystander: %v", b.err)
	}
}

// crashRound is how many kills one workspace takes in killServe: the long
// mode's 1,000 kills run as rounds of it, each in a new workspace. In one
// workspace every kill's `journal verify` re-hashed a journal that grew with
// every kill (473 MiB after 100), so 1,000 kills cost hours, quadratically.
const crashRound = 100

func killServe(t *testing.T, kills int, beside bool) {
	rng, seed := seeded(t)
	st := crashStats{byTool: map[string]int{}, byFiles: map[int]int{}}
	began := time.Now()
	var committed, rolledBack, byAcked, files, rounds int
	var journalMiB int64
	for st.kills < kills {
		c, rb, ba, f, mib := killServeRound(t, rng, min(crashRound, kills-st.kills), beside, &st)
		committed, rolledBack, byAcked, files, journalMiB = committed+c, rolledBack+rb, byAcked+ba, files+f, max(journalMiB, mib)
		rounds++
	}
	figures(t, map[string]any{"seed": seed, "kills": st.kills, "kills_during_recovery": st.earlyKills, "journal_log_reads": st.reads,
		"batches_acknowledged": st.acked, "batches_without_change": st.noops, "batches_in_flight_at_kill": st.inflight,
		"in_flight_committed": st.inflightApplied, "in_flight_rolled_back_or_not_started": st.inflightRolledBack,
		"events_committed": committed, "events_rolled_back": rolledBack, "file_checks": st.filesChecked,
		"verify_runs": st.verifies, "torn_files": 0, "partial_batches": 0, "lost_acknowledged": 0, "temp_files_left": 0,
		"mib_sent": st.bytesSent >> 20, "files": files, "workspaces": rounds, "journal_mib_largest": journalMiB, "bystander_batches": byAcked,
		"by_tool": st.byTool, "by_batch_files": st.byFiles, "seconds": int(time.Since(began).Seconds())})
}

// killServeRound is kills kills of killServe in a new workspace, counted
// into st; it returns the journal's committed and rolled-back events, the
// bystander's batches, the files and the journal's size (MiB).
func killServeRound(t *testing.T, rng *rand.Rand, kills int, beside bool, st *crashStats) (committed, rolledBack, byAcked, files int, journalMiB int64) {
	maxBytes := 4 << 20
	root := t.TempDir()
	m := &crashModel{files: map[string][]byte{}}
	before := *st // this round's counts are st's less before's

	var by *bystander
	if beside {
		by = startBystander(t, root)
	}
	// --share=false: each kill must kill the process that applies the
	// batches (a follower only relays them; TestShare_WriterKilled kills
	// a writer under a follower)
	s := mustStart(t, root, "crash", "--share=false")
	for st.kills < before.kills+kills {
		// Kill after a random delay: sometimes right away (mid-batch of the
		// first call), mostly after a few batches.
		delay := time.Duration(rng.Intn(500)) * time.Millisecond
		if rng.Intn(4) == 0 {
			delay = time.Duration(rng.Intn(20000)) * time.Microsecond
		}
		timer := time.AfterFunc(delay, s.kill)
		var inflight *crashBatch
		for {
			b := m.next(t, rng, maxBytes)
			inflight = b
			st.bytesSent += int64(b.bytes)
			res, err := s.call(b.tool, b.args)
			if err != nil {
				break // killed
			}
			if res.IsError || res.Protocol != nil {
				timer.Stop()
				t.Fatalf("%s failed: %s %v", b.tool, res.Text, res.Protocol)
			}
			changes := false // a batch that changes nothing records no event
			for p, c := range b.after {
				old, had := m.files[p]
				changes = changes || !had || !bytes.Equal(old, c)
				m.files[p] = c
			}
			inflight = nil
			if !changes {
				st.noops++
				continue
			}
			st.acked++
			st.byTool[b.tool]++
			st.byFiles[len(b.after)]++
			if rng.Intn(4) == 0 {
				// A reader: the logged batches move into the bbolt file
				// before their files are synced (replay/doc.go, "Logged
				// batches", step 5), so kills also find such runs.
				if _, err := s.call("journal_log", map[string]any{"limit": 1}); err != nil {
					break // killed
				}
				st.reads++
			}
		}
		timer.Stop()
		<-s.done
		st.kills++

		// Sometimes kill the restarted server again during its recovery.
		if rng.Intn(8) == 0 {
			s = start(t, root, "--share=false")
			time.Sleep(time.Duration(rng.Intn(15000)) * time.Microsecond)
			s.kill()
			st.kills++
			st.earlyKills++
		}
		s = start(t, root, "--share=false")
		if err := s.initialize("crash"); err != nil {
			t.Fatalf("restart after kill %d: %v", st.kills, err)
		}

		if by != nil { // its calls wait while the checks run
			by.mu.Lock()
			if by.err != nil {
				t.Fatalf("kill %d: bystander: %v", st.kills, by.err)
			}
		}
		// Check: the in-flight batch is all applied or not at all; every other file is as acknowledged.
		if inflight != nil {
			st.inflight++
			applied, kept := 0, 0
			var torn []string
			for p, want := range inflight.after {
				got, err := os.ReadFile(filepath.Join(root, p))
				old, had := m.files[p]
				switch {
				case had && bytes.Equal(old, want):
					// Unchanged by the batch (e.g. empty before and after): says nothing.
				case err == nil && bytes.Equal(got, want):
					applied++
				case (err == nil && had && bytes.Equal(got, old)) || (os.IsNotExist(err) && !had):
					kept++
				default:
					torn = append(torn, p)
				}
			}
			if len(torn) > 0 {
				t.Fatalf("kill %d: torn files of the in-flight %s batch: %v", st.kills, inflight.tool, torn)
			}
			if applied > 0 && kept > 0 {
				t.Fatalf("kill %d: in-flight %s batch partly applied: %d files applied, %d not", st.kills, inflight.tool, applied, kept)
			}
			if applied > 0 {
				st.inflightApplied++
				for p, c := range inflight.after {
					m.files[p] = c
				}
			} else {
				st.inflightRolledBack++
			}
		}
		onDisk := map[string]bool{}
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == journal.DirName {
				return filepath.SkipDir
			}
			if err == nil && d.Type().IsRegular() {
				rel, _ := filepath.Rel(root, p)
				onDisk[filepath.ToSlash(rel)] = true
			}
			return nil
		})
		for p, want := range m.files {
			got, err := os.ReadFile(filepath.Join(root, p))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("kill %d: acknowledged content of %s lost (err %v, %d bytes, want %d)", st.kills, p, err, len(got), len(want))
			}
			delete(onDisk, p)
			st.filesChecked++
		}
		if by != nil {
			if got, err := os.ReadFile(filepath.Join(root, by.path)); err != nil || !bytes.Equal(got, by.last) {
				t.Fatalf("kill %d: the bystander's acknowledged content lost (err %v, %.20q, want %.20q)", st.kills, err, got, by.last)
			}
			delete(onDisk, by.path)
		}
		for p := range onDisk {
			if !strings.Contains(p, ".jtmp-") {
				t.Fatalf("kill %d: unexpected file %s", st.kills, p)
			}
		}
		if tmp := tempFiles(root); len(tmp) > 0 {
			t.Fatalf("kill %d: temporary files left: %v", st.kills, tmp)
		}
		if out, err := cli(root, "verify"); err != nil {
			t.Fatalf("kill %d: journal verify: %v\n%s", st.kills, err, out)
		}
		st.verifies++
		if by != nil {
			by.mu.Unlock()
		}
	}
	s.close()
	if by != nil {
		by.close(t)
		byAcked = by.acked
	}

	// The journal's own account: every batch is committed or rolled back, none pending.
	var pending int
	j, err := journal.Open(filepath.Join(root, journal.DirName, journal.FileName), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = j.View(func(tx *journal.Tx) error {
		return tx.Each(0, false, func(ev *journal.Event) error {
			switch ev.Status {
			case journal.StatusCommitted:
				committed++
			case journal.StatusRolledBack:
				rolledBack++
			default:
				pending++
			}
			return nil
		})
	})
	if err != nil || pending > 0 {
		t.Fatalf("journal: %d pending events: %v", pending, err)
	}
	acked, applied := st.acked-before.acked, st.inflightApplied-before.inflightApplied
	if committed != acked+applied+byAcked {
		t.Errorf("journal has %d committed events, the clients saw %d acknowledged + %d applied in flight + %d of the bystander", committed, acked, applied, byAcked)
	}
	fi, _ := os.Stat(j.Path())
	return committed, rolledBack, byAcked, len(m.files), fi.Size() >> 20
}

// TestCrash_KillGC: the crash test for gc. A server applies batches; then
// `journal gc` runs and is SIGKILLed at random moments (or runs to the end),
// again and again, each gc dropping the oldest round of batches left, while the
// server keeps serving between them: after every kill `journal verify`
// passes, `journal status` sees no file changed outside the journal (every
// head still matches its file), every acknowledged file is on disk, and the
// server, never restarted, goes on applying batches.
func TestCrash_KillGC(t *testing.T) {
	kills := scale("GC_KILLS", 12, 100)
	rng, seed := seeded(t)
	root := t.TempDir()
	m := &crashModel{files: map[string][]byte{}}
	s := mustStart(t, root, "crash-gc")
	defer s.close()
	var times []time.Time // when each round of batches ended
	batches := func(n int) {
		t.Helper()
		for range n {
			b := m.next(t, rng, 256<<10)
			res, err := s.call(b.tool, b.args)
			if err != nil || res.IsError || res.Protocol != nil {
				log, _ := cli(root, "log", "--oneline", "-n", "30")
				t.Fatalf("%s: %v %+v\njournal log:\n%s", b.tool, err, res, log)
			}
			for p, c := range b.after {
				m.files[p] = c
			}
		}
		time.Sleep(5 * time.Millisecond)
		times = append(times, time.Now())
		time.Sleep(5 * time.Millisecond)
	}
	check := func(what string) {
		t.Helper()
		if out, err := cli(root, "verify"); err != nil {
			t.Fatalf("%s: journal verify: %v\n%s", what, err, out)
		}
		if out, err := cli(root, "status"); err != nil || !strings.Contains(out, "no file changed outside the journal") {
			t.Fatalf("%s: journal status: %v\n%s", what, err, out)
		}
		for p, want := range m.files {
			if got, err := os.ReadFile(filepath.Join(root, p)); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s: %s lost (err %v)", what, p, err)
			}
		}
	}
	batches(40)
	var completed, killed int
	dropped := regexp.MustCompile(`dropped [1-9][0-9]* events`)
	for k := 0; k < kills; k++ {
		batches(10 + rng.Intn(20))
		// drop the oldest round left (the rounds before times[k])
		keep := time.Since(times[k])
		cmd := exec.Command(binary, "gc", "--keep", keep.Round(time.Millisecond).String())
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(rng.Intn(120000)) * time.Microsecond
		timer := time.AfterFunc(delay, func() { cmd.Process.Kill() })
		err := cmd.Wait()
		timer.Stop()
		if err == nil {
			completed++
			if !dropped.MatchString(out.String()) {
				t.Fatalf("gc %d completed without dropping:\n%s", k, out.String())
			}
			if tmp, _ := filepath.Glob(filepath.Join(root, journal.DirName, "*.compact")); len(tmp) > 0 {
				t.Fatalf("gc %d completed and left its copy: %v", k, tmp)
			}
		} else if ee, ok := err.(*exec.ExitError); ok && ee.ProcessState.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL {
			killed++
		} else {
			t.Fatalf("gc %d: %v\n%s", k, err, out.String())
		}
		t.Logf("gc %d: killed after %v: %v: %s", k, delay, err != nil, strings.SplitN(out.String(), "\n", 2)[0])
		check(fmt.Sprintf("gc %d (killed after %v: %v)", k, delay, err != nil))
	}
	batches(10) // the server was never restarted
	if out, err := cli(root, "gc", "--keep", time.Since(times[len(times)-2]).Round(time.Millisecond).String()); err != nil {
		t.Fatalf("last gc: %v\n%s", err, out)
	}
	check("after the last gc")
	figures(t, map[string]any{"seed": seed, "gc_runs": kills + 1, "gc_killed": killed, "gc_completed": completed + 1, "files": len(m.files)})
	if killed == 0 || completed == 0 {
		t.Logf("every gc was %s (the kill delays missed); the figures say so", map[bool]string{true: "completed", false: "killed"}[killed == 0])
	}
}
