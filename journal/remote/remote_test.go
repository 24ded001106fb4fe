package remote_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/journal/remote"
	"github.com/journalfs/journal/journal/remote/s3test"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

var ctx = context.Background()

// store opens the remote "team" (s3://bucket/team) on srv.
func store(t testing.TB, srv *s3test.Server) *remote.Store {
	t.Helper()
	s, err := remote.Open(ctx, remote.Remote{Name: "team", URL: "s3://" + s3test.Bucket + "/team", Endpoint: srv.Endpoint()})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// agent is the actor of a workspace's edits.
func agent(ws string) journal.Actor {
	return journal.Actor{Kind: "mcp", Name: "claude-code", Version: "2.1", Session: "s-" + ws, Origin: "stdio"}
}

// files reads every file of a workspace (not .journal) into a map.
func files(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == journal.DirName {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// repo is the starting tree of every workspace: the same files, as clones
// of one repository are.
func repo() map[string]string {
	out := map[string]string{}
	for f := range 10 {
		var b strings.Builder
		for l := range 300 {
			fmt.Fprintf(&b, "// file %d, line %d: as long as the lines of source files are, more or less\n", f, l)
		}
		out[fmt.Sprintf("src/f%d.go", f)] = b.String()
	}
	return out
}

// workspace makes a workspace with the repository's files and n one-line
// edits by an agent; at records the files after the events named in it.
func workspace(t testing.TB, name string, n int, at map[uint64]map[string]string) (string, *replay.Engine) {
	t.Helper()
	dir := t.TempDir()
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: agent(name)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	tree := repo()
	b := &replay.Batch{Tool: "file_create_new"}
	for p, c := range tree {
		b.Changes = append(b.Changes, replay.Change{Path: p, Data: []byte(c)})
	}
	if _, err := e.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		p := fmt.Sprintf("src/f%d.go", i%10)
		lines := strings.SplitAfter(tree[p], "\n")
		lines[(i*7)%300] = fmt.Sprintf("// %s edit %d\n", name, i)
		tree[p] = strings.Join(lines, "")
		res, err := e.Apply(ctx, &replay.Batch{Tool: "edit_content", Args: []byte(fmt.Sprintf(`{"path":%q,"n":%d}`, p, i)),
			Changes: []replay.Change{{Path: p, Data: []byte(tree[p])}}})
		if err != nil {
			t.Fatal(err)
		}
		if want, ok := at[res.Seq]; ok && want == nil {
			at[res.Seq] = files(t, dir)
		}
	}
	return dir, e
}

// events lists a journal's events as "seq hash" lines.
func events(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	for _, e := range journalEvents(t, dir) {
		out = append(out, fmt.Sprintf("%d %s %s", e.Seq, e.Hash, e.Tool))
	}
	return out
}

// journalEvents reads the events of the journal in dir.
func journalEvents(t testing.TB, dir string) []*journal.Event {
	t.Helper()
	j, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var out []*journal.Event
	err = j.View(func(tx *journal.Tx) error {
		return tx.Each(0, false, func(e *journal.Event) error {
			out = append(out, e)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func workspaceID(t testing.TB, dir string) string {
	t.Helper()
	j, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var ws string
	j.View(func(tx *journal.Tx) error { ws = tx.Workspace(); return nil })
	return ws
}

// TestPushClone: three workspaces cloned from one repository push 1,000
// events to one remote; the repository's files are stored once; each
// workspace clones into a fresh directory with every file byte-identical,
// the same events (numbers and hashes), and at an earlier event the files
// as they were then; a second push sends nothing; a later one only what is
// new.
func TestPushClone(t *testing.T) {
	srv := s3test.Start(t)
	s := store(t, srv)
	type ws struct {
		dir string
		e   *replay.Engine
		at  map[uint64]map[string]string
	}
	var all []ws
	for i, n := range []int{400, 300, 297} {
		at := map[uint64]map[string]string{50: nil, 200: nil}
		dir, e := workspace(t, fmt.Sprintf("w%d", i), n, at)
		all = append(all, ws{dir, e, at})
	}
	var reps []*remote.PushReport
	for _, w := range all {
		j := w.e.Journal()
		rep, err := remote.Push(ctx, s, j, remote.PushOptions{SegmentEvents: 128})
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, rep)
	}
	if reps[0].From != 1 || reps[0].To != 401 || reps[0].Segments != 4 || reps[0].ContentsThere != 0 {
		t.Fatalf("first push: %+v", reps[0])
	}
	if reps[1].ContentsThere < 10 { // the repository's ten files, sent by the first workspace
		t.Fatalf("second push: %+v", reps[1])
	}
	again, err := remote.Push(ctx, s, all[0].e.Journal(), remote.PushOptions{})
	if err != nil || again.From != 0 || again.Chunks != 0 {
		t.Fatalf("push of an up-to-date journal: %+v %v", again, err)
	}
	for i, w := range all {
		id := workspaceID(t, w.dir)
		clone := filepath.Join(t.TempDir(), "clone")
		rep, err := remote.Clone(ctx, s, id, clone, remote.CloneOptions{})
		if err != nil {
			t.Fatalf("clone %d: %v", i, err)
		}
		if rep.Files != 10 || len(rep.Skipped) != 0 {
			t.Fatalf("clone %d: %+v", i, rep)
		}
		want, got := files(t, w.dir), files(t, clone)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Fatalf("clone %d: files differ", i)
		}
		if a, b := events(t, w.dir), events(t, clone); strings.Join(a, "\n") != strings.Join(b, "\n") {
			t.Fatalf("clone %d: events differ: %d vs %d", i, len(a), len(b))
		}
		if workspaceID(t, clone) != id {
			t.Fatalf("clone %d has workspace %q, want %q", i, workspaceID(t, clone), id)
		}
		for _, f := range []string{"src/f0.go", "src/f7.go"} {
			if a, b := blame(t, w.dir, f), blame(t, clone, f); a != b {
				t.Fatalf("clone %d: the blame of %s differs", i, f)
			}
		}
		for seq, tree := range w.at {
			past := filepath.Join(t.TempDir(), "past")
			if _, err := remote.Clone(ctx, s, id, past, remote.CloneOptions{At: seq}); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(files(t, past)) != fmt.Sprint(tree) {
				t.Fatalf("clone %d --at %d: files differ", i, seq)
			}
			if n := len(events(t, past)); n != int(seq) {
				t.Fatalf("clone %d --at %d holds %d events", i, seq, n)
			}
		}
	}
	// a later push sends only what is new
	if _, err := all[0].e.Apply(ctx, &replay.Batch{Tool: "file_create_new", Changes: []replay.Change{{Path: "NEW.md", Data: []byte("new\n")}}}); err != nil {
		t.Fatal(err)
	}
	more, err := remote.Push(ctx, s, all[0].e.Journal(), remote.PushOptions{})
	if err != nil || more.From != 402 || more.To != 402 || more.Contents != 1 {
		t.Fatalf("incremental push: %+v %v", more, err)
	}
	vr, err := remote.Verify(ctx, s, "")
	if err != nil || !vr.OK() || len(vr.Workspaces) != 3 || vr.Events != 1001 {
		t.Fatalf("verify: %+v %v", vr, err)
	}
}

// TestOpen_Errors: wrong credentials, a missing bucket and a server that is
// down each give one clear error.
func TestOpen_Errors(t *testing.T) {
	srv := s3test.Start(t)
	_, err := remote.Open(ctx, remote.Remote{Name: "team", URL: "s3://no-such-bucket/x", Endpoint: srv.Endpoint()})
	if !errors.Is(err, remote.ErrNoBucket) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), `bucket "no-such-bucket" does not exist`) {
		t.Fatalf("missing bucket: %v", err)
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong")
	_, err = remote.Open(ctx, remote.Remote{Name: "team", URL: "s3://" + s3test.Bucket + "/x", Endpoint: srv.Endpoint()})
	if !errors.Is(err, remote.ErrAuth) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "refused the credentials") {
		t.Fatalf("wrong credentials: %v", err)
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3test.Secret)
	srv.Kill()
	c, cancel := context.WithTimeout(ctx, 20e9)
	defer cancel()
	_, err = remote.Open(c, remote.Remote{Name: "team", URL: "s3://" + s3test.Bucket + "/x", Endpoint: srv.Endpoint()})
	if !errors.Is(err, remote.ErrUnreachable) {
		t.Fatalf("server down: %v", err)
	}
}

// copyDir copies a workspace, journal included (cp -a).
func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPush_SecondWriter: a copy of a workspace (same journal, same
// workspace ID) that goes its own way is refused when it pushes after the
// original, and the remote keeps the original's history.
func TestPush_SecondWriter(t *testing.T) {
	srv := s3test.Start(t)
	s := store(t, srv)
	dir, e := workspace(t, "a", 10, nil)
	if _, err := remote.Push(ctx, s, e.Journal(), remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Close()
	copyDir(t, dir, filepath.Join(t.TempDir(), "copy"))
	twin := filepath.Join(t.TempDir(), "twin")
	copyDir(t, dir, twin)
	a, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: agent("a")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := replay.Open(replay.Options{Roots: []string{twin}, Actor: agent("b")})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, x := range []*replay.Engine{a, b} {
		if _, err := x.Apply(ctx, &replay.Batch{Tool: "file_create_new", Changes: []replay.Change{{Path: "who.txt", Data: []byte(fmt.Sprintf("%p\n", x))}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := remote.Push(ctx, s, a.Journal(), remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = remote.Push(ctx, s, b.Journal(), remote.PushOptions{})
	if !errors.Is(err, remote.ErrConflict) || !strings.Contains(err.Error(), "another writer") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("the twin's push: %v", err)
	}
	if vr, err := remote.Verify(ctx, s, ""); err != nil || !vr.OK() || vr.Events != 12 {
		t.Fatalf("verify: %+v %v", vr, err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	if _, err := remote.Clone(ctx, s, workspaceID(t, dir), clone, remote.CloneOptions{}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(files(t, clone)) != fmt.Sprint(files(t, dir)) {
		t.Fatal("the remote does not hold the original's files")
	}
}

// TestPush_ResumesAfterServerKilled: the S3 server is killed in the middle
// of a push of 40 files of 256 KB; the push fails; once the server is back
// the push resumes: every object once, verify clean, the clone identical.
func TestPush_ResumesAfterServerKilled(t *testing.T) {
	srv := s3test.Start(t)
	s := store(t, srv)
	dir := t.TempDir()
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: agent("big")})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for i := range 40 {
		var b strings.Builder
		for l := 0; b.Len() < 256<<10; l++ {
			fmt.Fprintf(&b, "file %d line %d: %x\n", i, l, uint64(l*2654435761+i*40503))
		}
		if _, err := e.Apply(ctx, &replay.Batch{Tool: "file_create_new", Changes: []replay.Change{{Path: fmt.Sprintf("data/%02d.txt", i), Data: []byte(b.String())}}}); err != nil {
			t.Fatal(err)
		}
	}
	chunksDir := srv.Object("team/chunks")
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		for {
			n := 0
			filepath.WalkDir(chunksDir, func(_ string, d fs.DirEntry, _ error) error {
				if d != nil && !d.IsDir() {
					n++
				}
				return nil
			})
			if n >= 150 {
				srv.Kill()
				return
			}
		}
	}()
	c, cancel := context.WithTimeout(ctx, 60e9)
	defer cancel()
	_, err = remote.Push(c, s, e.Journal(), remote.PushOptions{SegmentEvents: 10})
	<-killed
	if err == nil {
		t.Fatal("the push went through though the server was killed")
	}
	srv.Restart()
	rep, err := remote.Push(ctx, s, e.Journal(), remote.PushOptions{SegmentEvents: 10})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ChunksThere == 0 || rep.Chunks == 0 {
		t.Fatalf("the second push did not resume: %+v", rep)
	}
	// every chunk once: as many chunk objects as the journal has chunks
	var objects int
	filepath.WalkDir(chunksDir, func(_ string, d fs.DirEntry, _ error) error {
		if d != nil && !d.IsDir() {
			objects++
		}
		return nil
	})
	var stored int
	e.Journal().View(func(tx *journal.Tx) error {
		st, err := snapshotStats(tx)
		stored = st
		return err
	})
	if objects != stored {
		t.Fatalf("%d chunk objects for %d chunks", objects, stored)
	}
	if vr, err := remote.Verify(ctx, s, ""); err != nil || !vr.OK() || vr.Events != 40 {
		t.Fatalf("verify: %+v %v", vr, err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	if _, err := remote.Clone(ctx, s, workspaceID(t, dir), clone, remote.CloneOptions{}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(files(t, clone)) != fmt.Sprint(files(t, dir)) {
		t.Fatal("the clone's files differ")
	}
}

// TestVerify_NamesDamage: an altered chunk, a deleted manifest and two
// segments swapped are each named by the object's key; a clone refuses.
func TestVerify_NamesDamage(t *testing.T) {
	srv := s3test.Start(t)
	s := store(t, srv)
	dir, e := workspace(t, "v", 299, nil)
	var big strings.Builder
	for i := 0; big.Len() < 200<<10; i++ {
		fmt.Fprintf(&big, "line %d of a file of many chunks %x\n", i, i*7919)
	}
	if _, err := e.Apply(ctx, &replay.Batch{Tool: "file_create_new", Changes: []replay.Change{{Path: "big.txt", Data: []byte(big.String())}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := remote.Push(ctx, s, e.Journal(), remote.PushOptions{SegmentEvents: 100}); err != nil {
		t.Fatal(err)
	}
	ws := workspaceID(t, dir)
	var chunk, content string
	filepath.WalkDir(srv.Object("team/chunks"), func(p string, d fs.DirEntry, _ error) error {
		if d != nil && !d.IsDir() && chunk == "" {
			chunk = p
		}
		return nil
	})
	// the manifest of the big file (its segment, 301-301, stays readable)
	content = srv.Object("team/contents/" + snapshot.Sum([]byte(big.String())).String())
	b, _ := os.ReadFile(chunk)
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(chunk, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(content); err != nil {
		t.Fatal(err)
	}
	seg := func(first, last int) string {
		return srv.Object(fmt.Sprintf("team/workspaces/%s/segments/%020d-%020d.jsonl.zst", ws, first, last))
	}
	s1, _ := os.ReadFile(seg(101, 200))
	s2, _ := os.ReadFile(seg(201, 300))
	os.WriteFile(seg(101, 200), s2, 0o644)
	os.WriteFile(seg(201, 300), s1, 0o644)

	vr, err := remote.Verify(ctx, s, "")
	if err != nil {
		t.Fatal(err)
	}
	report := strings.Join(vr.Problems, "\n")
	for _, want := range []string{
		"chunks/" + filepath.Base(filepath.Dir(chunk)) + "/" + filepath.Base(chunk) + ": altered",
		"contents/" + filepath.Base(content) + ": missing",
		fmt.Sprintf("workspaces/%s/segments/%020d-%020d.jsonl.zst: ", ws, 101, 200),
		fmt.Sprintf("workspaces/%s/segments/%020d-%020d.jsonl.zst: ", ws, 201, 300),
	} {
		if !strings.Contains(report, want) {
			t.Errorf("verify does not name %q:\n%s", want, report)
		}
	}
	// a clone refuses the damage instead of rebuilding a wrong workspace,
	// and leaves nothing behind
	c := filepath.Join(t.TempDir(), "c")
	if _, err := remote.Clone(ctx, s, ws, c, remote.CloneOptions{}); !errors.Is(err, remote.ErrDamaged) && !errors.Is(err, remote.ErrNotFound) {
		t.Fatalf("clone of a damaged remote: %v", err)
	}
	if _, err := os.Stat(c); !os.IsNotExist(err) {
		t.Fatalf("a failed clone left %s behind: %v", c, err)
	}
}

func snapshotStats(tx *journal.Tx) (int, error) {
	st, err := snapshot.ReadStats(tx.Bolt())
	return st.Chunks, err
}

// TestReplicate: continuous replication while an agent edits at about 50
// edits a second: every event reaches the remote; with the S3 server
// killed, every edit still succeeds, the recorded state shows the error and
// a growing lag, and the remote catches up once the server is back; a
// replication started again resumes; the small segments it leaves are
// rolled up; the remote verifies and clones identical.
func TestReplicate(t *testing.T) {
	srv := s3test.Start(t)
	r := remote.Remote{Name: "team", URL: "s3://" + s3test.Bucket + "/team", Endpoint: srv.Endpoint()}
	dir, e := workspace(t, "r", 0, nil)
	j := e.Journal()
	start := func() (stop func()) {
		c, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := remote.Replicate(c, r, j, remote.ReplicateOptions{Poll: 20e6, MaxBackoff: 300e6}); err != nil {
				t.Error(err)
			}
		}()
		return func() { cancel(); <-done }
	}
	edit := func(i int) {
		t.Helper()
		if _, err := e.Apply(ctx, &replay.Batch{Tool: "edit_content", Changes: []replay.Change{{Path: fmt.Sprintf("notes/%d.txt", i%5), Data: []byte(fmt.Sprintf("edit %d\n", i))}}}); err != nil {
			t.Fatal(err)
		}
	}
	state := func() journal.Replication {
		t.Helper()
		rs, err := j.Replications()
		if err != nil || len(rs) != 1 {
			t.Fatalf("replications: %+v %v", rs, err)
		}
		return rs[0]
	}
	waitFor := func(what string, ok func(journal.Replication) bool) journal.Replication {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if rs, _ := j.Replications(); len(rs) == 1 && ok(rs[0]) {
				return rs[0]
			}
			if time.Now().After(deadline) {
				rs, _ := j.Replications()
				t.Fatalf("waited 30 s for %s: %+v", what, rs)
			}
		}
	}
	upToDate := func(r journal.Replication) bool {
		var last uint64
		j.View(func(tx *journal.Tx) error { last = tx.Last(); return nil })
		return r.Error == "" && r.Pushed == last && r.Behind == 0
	}
	stop := start()
	for i := range 100 {
		edit(i)
		time.Sleep(20 * time.Millisecond)
	}
	waitFor("the first 100 edits", upToDate)

	srv.Kill()
	for i := 100; i < 120; i++ {
		edit(i) // succeeds: an edit never waits for the remote
	}
	down := waitFor("the outage to show", func(r journal.Replication) bool { return r.Error != "" && r.Behind > 0 })
	if !strings.Contains(down.Error, "does not answer") || down.Lag <= 0 {
		t.Fatalf("state during the outage: %+v", down)
	}
	srv.Restart()
	waitFor("the catch-up after the outage", upToDate)
	stop()

	for i := 120; i < 130; i++ {
		edit(i)
	}
	if err := e.Checkpoint(); err != nil { // the write-ahead log into the journal file, as status does
		t.Fatal(err)
	}
	if st := state(); st.Behind != 10 || st.Lag <= 0 {
		t.Fatalf("stopped replication: %+v", st)
	}
	stop = start()
	waitFor("the restarted replication", upToDate)
	stop()

	s := store(t, srv)
	vr, err := remote.Verify(ctx, s, "")
	if err != nil || !vr.OK() || vr.Events != 131 {
		t.Fatalf("verify: %+v %v", vr, err)
	}
	hb, err := os.ReadFile(srv.Object("team/workspaces/" + workspaceID(t, dir) + "/head.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(hb), `"key"`); n > 40 {
		t.Fatalf("the head names %d segments: the small ones were not rolled up", n)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	if _, err := remote.Clone(ctx, s, workspaceID(t, dir), clone, remote.CloneOptions{}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(files(t, clone)) != fmt.Sprint(files(t, dir)) {
		t.Fatal("the clone's files differ")
	}
}

// blame is a file's blame in the journal in dir: each line's event and
// who made it.
func blame(t testing.TB, dir, path string) string {
	t.Helper()
	j, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var out strings.Builder
	err = j.View(func(tx *journal.Tx) error {
		b, err := replay.BlameTx(tx, path, 0)
		if err != nil {
			return err
		}
		for _, l := range b.Lines {
			e := b.Events[l.Seq]
			fmt.Fprintf(&out, "%d %s %s %s", l.Seq, e.Actor.Session, e.Time.UTC().Format(time.RFC3339Nano), l.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestPushClone_AfterGC: a journal whose first events a gc dropped before
// its first push: the remote's chain starts at the gc's base, and the clone
// rebuilds the journal from there — it verifies, lists the same events,
// holds the same files, and takes edits.
func TestPushClone_AfterGC(t *testing.T) {
	srv := s3test.Start(t)
	s := store(t, srv)
	dir, e := workspace(t, "g", 40, nil)
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	rep, err := e.GC(journal.GCOptions{Keep: time.Minute, Now: time.Now().Add(time.Hour), Actor: journal.Actor{Kind: "cli"}})
	if err != nil || rep.Dropped == 0 {
		t.Fatalf("gc: %+v %v", rep, err)
	}
	for i := range 5 {
		if _, err := e.Apply(ctx, &replay.Batch{Tool: "file_create_new", Changes: []replay.Change{{Path: fmt.Sprintf("after/%d.txt", i), Data: []byte("after gc\n")}}}); err != nil {
			t.Fatal(err)
		}
	}
	pr, err := remote.Push(ctx, s, e.Journal(), remote.PushOptions{})
	if err != nil || pr.From != rep.FirstKept {
		t.Fatalf("push after gc: %+v %v (first kept %d)", pr, err, rep.FirstKept)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	if _, err := remote.Clone(ctx, s, workspaceID(t, dir), clone, remote.CloneOptions{}); err != nil {
		t.Fatal(err)
	}
	if a, b := events(t, dir), events(t, clone); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("events differ:\n%v\n%v", a, b)
	}
	if fmt.Sprint(files(t, clone)) != fmt.Sprint(files(t, dir)) {
		t.Fatal("files differ")
	}
	c, err := replay.Open(replay.Options{Roots: []string{clone}, Actor: agent("clone")})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Apply(ctx, &replay.Batch{Tool: "file_create_new", Changes: []replay.Change{{Path: "on-the-clone.txt", Data: []byte("x\n")}}}); err != nil {
		t.Fatal(err)
	}
	err = c.Journal().View(func(tx *journal.Tx) error {
		base, _ := tx.Base()
		if base != rep.FirstKept-1 {
			t.Errorf("the clone's base is %d, want %d", base, rep.FirstKept-1)
		}
		_, err := tx.Verify(true, nil)
		return err
	})
	if err != nil {
		t.Fatalf("the clone does not verify: %v", err)
	}
	// and the clone carries the workspace on: its push continues the chain
	if pr, err := remote.Push(ctx, s, c.Journal(), remote.PushOptions{}); err != nil || pr.To != pr.From {
		t.Fatalf("push from the clone: %+v %v", pr, err)
	}
}

// TestPush_Progress: a push reports its progress as it sends contents, not
// only when a segment is done, and ends at the total.
func TestPush_Progress(t *testing.T) {
	srv := s3test.Start(t)
	s := store(t, srv)
	_, e := workspace(t, "p", 30, nil)
	var calls []uint64
	var total uint64
	rep, err := remote.Push(ctx, s, e.Journal(), remote.PushOptions{Progress: func(done, tot uint64) {
		calls = append(calls, done)
		total = tot
	}})
	if err != nil || rep.To != 31 {
		t.Fatal(rep, err)
	}
	if total != 31 || len(calls) < 5 || calls[len(calls)-1] != 31 || !slices.IsSorted(calls) {
		t.Fatalf("progress %v of %d", calls, total)
	}
}

// TestReplicate_TwoServers: two replications of one journal (two servers
// on one workspace, each with --replicate) race on the head; the remote
// stays whole and up to date, and neither is left failing.
func TestReplicate_TwoServers(t *testing.T) {
	srv := s3test.Start(t)
	r := remote.Remote{Name: "team", URL: "s3://" + s3test.Bucket + "/two", Endpoint: srv.Endpoint()}
	dir, e := workspace(t, "two", 0, nil)
	j := e.Journal()
	c, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			remote.Replicate(c, r, j, remote.ReplicateOptions{Poll: 5 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
		}()
	}
	for i := range 100 {
		if _, err := e.Apply(ctx, &replay.Batch{Tool: "edit_content", Changes: []replay.Change{{Path: fmt.Sprintf("n/%d.txt", i%7), Data: []byte(fmt.Sprint(i))}}}); err != nil {
			t.Fatal(err)
		}
	}
	e.Checkpoint()
	var last uint64
	j.View(func(tx *journal.Tx) error { last = tx.Last(); return nil })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		rs, _ := j.Replications()
		if len(rs) == 1 && rs[0].Pushed == last && rs[0].Error == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replications did not settle: %+v", rs)
		}
	}
	cancel()
	wg.Wait()
	s, err := remote.Open(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if vr, err := remote.Verify(ctx, s, workspaceID(t, dir)); err != nil || !vr.OK() || vr.Events != int(last) {
		t.Fatalf("verify: %+v %v", vr, err)
	}
}

// TestPushClone_Repaired: a journal `journal repair` rebuilt (the kept
// format-3 sample: a damaged event stands for a lost record) pushes,
// verifies on the remote, exports and clones: the damaged event's span and
// links are followed as `journal verify` follows them.
func TestPushClone_Repaired(t *testing.T) {
	srv := s3test.Start(t)
	s := store(t, srv)
	dir := sampleWorkspace(t, "repaired-format3.db")
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: agent("rep")})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Apply(ctx, &replay.Batch{Tool: "file_create_new", Changes: []replay.Change{{Path: "after-repair.txt", Data: []byte("x\n")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := remote.Push(ctx, s, e.Journal(), remote.PushOptions{SegmentEvents: 2}); err != nil {
		t.Fatal(err)
	}
	ws := workspaceID(t, dir)
	vr, err := remote.Verify(ctx, s, ws)
	if err != nil || !vr.OK() {
		t.Fatalf("verify: %+v %v", vr, err)
	}
	var exported strings.Builder
	h, err := remote.Export(ctx, s, ws, &exported)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := audit.VerifyExport(strings.NewReader(exported.String()), h.Head, nil); err != nil {
		t.Fatalf("the remote's export does not verify: %v", err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	if _, err := remote.Clone(ctx, s, ws, clone, remote.CloneOptions{}); err != nil {
		t.Fatal(err)
	}
	if a, b := events(t, dir), events(t, clone); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("events differ:\n%v\n%v", a, b)
	}
	j, err := journal.Open(filepath.Join(clone, journal.DirName, journal.FileName), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.View(func(tx *journal.Tx) error { _, err := tx.Verify(false, nil); return err }); err != nil {
		t.Fatalf("the clone does not verify: %v", err)
	}
}

// sampleWorkspace is a new workspace holding a copy of the kept journal
// testdata/journals/name.
func sampleWorkspace(t testing.TB, name string) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "journals", name))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, journal.DirName), 0o755)
	if err := os.WriteFile(filepath.Join(dir, journal.DirName, journal.FileName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
