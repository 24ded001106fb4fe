package remote_test

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote"
	"github.com/journalfs/journal/journal/remote/s3test"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// bigJournal writes n events straight through journal.Tx: one small Go
// file's new version per event, over 200 files (as cmd/journal's
// benchmarks do).
func bigJournal(b *testing.B, dir string, n int) *journal.Journal {
	b.Helper()
	j, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { j.Close() })
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	prev := map[string]snapshot.ID{}
	for done := 0; done < n; {
		err := j.Do(func(db *journal.DB) error {
			return db.Update(func(tx *journal.Tx) error {
				for k := 0; k < 5000 && done < n; k, done = k+1, done+1 {
					path := fmt.Sprintf("src/f%03d.go", done%200)
					id, err := snapshot.PutTx(tx.Bolt(), fmt.Appendf(nil, "package f\n\n// version %d\nfunc F() int { return %d }\n", done, done))
					if err != nil {
						return err
					}
					ev := &journal.Event{Time: t0.Add(time.Duration(done) * time.Second), Kind: journal.KindApply, Actor: agent("big"),
						Tool: "edit_file", Status: journal.StatusCommitted, Args: []byte(`{"path":"` + path + `"}`),
						Files: []journal.FileChange{{Path: path, Before: prev[path], After: id, AfterMode: 0o644, Added: 1, Removed: 1}}}
					if err := tx.Append(ev); err != nil {
						return err
					}
					prev[path] = id
				}
				return nil
			})
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return j
}

// bucketBytes is the size of every object under dir of the server's bucket.
func bucketBytes(srv *s3test.Server, dir string) (n int64, objects int) {
	filepath.WalkDir(srv.Object(dir), func(_ string, d fs.DirEntry, _ error) error {
		if d != nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
				objects++
			}
		}
		return nil
	})
	return n, objects
}

// BenchmarkPush100k: the first push of a 100,000-event journal to a local
// versitygw (one run; the events, their 100,000 contents, the segments).
func BenchmarkPush100k(b *testing.B) {
	srv := s3test.Start(b)
	j := bigJournal(b, b.TempDir(), 100000)
	s := store(b, srv)
	b.ResetTimer()
	start := time.Now()
	rep, err := remote.Push(ctx, s, j, remote.PushOptions{})
	if err != nil || rep.To != 100000 {
		b.Fatal(rep, err)
	}
	d := time.Since(start)
	bytes, objects := bucketBytes(srv, "team")
	b.ReportMetric(d.Seconds(), "s/push")
	b.ReportMetric(100000/d.Seconds(), "events/s")
	b.ReportMetric(float64(bytes)/1e6, "MB-stored")
	b.ReportMetric(float64(objects), "objects")
	// again: nothing to send
	start = time.Now()
	if rep, err = remote.Push(ctx, s, j, remote.PushOptions{}); err != nil || rep.From != 0 {
		b.Fatal(rep, err)
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "ms/up-to-date-push")
}

// BenchmarkReplicationLag: an agent edits at 50 edits a second for 10
// seconds while journal serve's replication runs; the lag of each event is
// the time from its edit's return to the remote's head holding it.
func BenchmarkReplicationLag(b *testing.B) {
	srv := s3test.Start(b)
	dir := b.TempDir()
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: agent("lag")})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	var mu sync.Mutex
	done := map[uint64]time.Time{}
	pushed := map[uint64]time.Time{}
	c, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		remote.Replicate(c, remote.Remote{Name: "team", URL: "s3://" + s3test.Bucket + "/team", Endpoint: srv.Endpoint()}, e.Journal(),
			remote.ReplicateOptions{Pushed: func(seq uint64) {
				mu.Lock()
				pushed[seq] = time.Now()
				mu.Unlock()
			}})
	}()
	b.ResetTimer()
	const n = 500
	tick := time.NewTicker(20 * time.Millisecond)
	for i := range n {
		<-tick.C
		res, err := e.Apply(ctx, &replay.Batch{Tool: "edit_content", Changes: []replay.Change{{Path: fmt.Sprintf("src/%d.go", i%20), Data: []byte(fmt.Sprintf("package src\n\n// edit %d\n", i))}}})
		if err != nil {
			b.Fatal(err)
		}
		mu.Lock()
		done[res.Seq] = time.Now()
		mu.Unlock()
	}
	tick.Stop()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		var top uint64
		for s := range pushed {
			top = max(top, s)
		}
		mu.Unlock()
		if top >= n {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the remote reached only event %d of %d", top, n)
		}
	}
	// an edit never waits for the remote: its latency with the server up,
	// then killed (the replication failing and retrying meanwhile)
	latency := func() float64 {
		var ms []float64
		for i := range 50 {
			t0 := time.Now()
			if _, err := e.Apply(ctx, &replay.Batch{Tool: "edit_content", Changes: []replay.Change{{Path: fmt.Sprintf("src/%d.go", i%20), Data: []byte(fmt.Sprintf("package src\n\n// timed %d %v\n", i, t0.UnixNano()))}}}); err != nil {
				b.Fatal(err)
			}
			ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
			time.Sleep(20 * time.Millisecond)
		}
		slices.Sort(ms)
		return ms[len(ms)/2]
	}
	up := latency()
	srv.Kill()
	down := latency()
	b.ReportMetric(up, "ms-edit-server-up")
	b.ReportMetric(down, "ms-edit-server-down")
	cancel()
	<-stopped
	var heads []uint64
	for s := range pushed {
		heads = append(heads, s)
	}
	slices.Sort(heads)
	var lags []float64
	for seq, t := range done {
		i := sort.Search(len(heads), func(i int) bool { return heads[i] >= seq })
		lags = append(lags, float64(pushed[heads[i]].Sub(t).Microseconds())/1000)
	}
	slices.Sort(lags)
	b.ReportMetric(lags[len(lags)/2], "ms-lag-p50")
	b.ReportMetric(lags[len(lags)*99/100], "ms-lag-p99")
	b.ReportMetric(lags[len(lags)-1], "ms-lag-max")
}

// BenchmarkDedup5Workspaces: five workspaces that are copies of one 50 MB
// repository (each with a few edits of its own) replicate to one prefix;
// the bytes stored there, beside 5 × the repository and beside each
// workspace replicated on its own (restic-style: one repository per
// workspace, deduplicated within it only).
func BenchmarkDedup5Workspaces(b *testing.B) {
	srv := s3test.Start(b)
	var repo []replay.Change
	var size int64
	for f := 0; size < 50<<20; f++ {
		var sb strings.Builder
		for l := 0; sb.Len() < 100<<10; l++ {
			fmt.Fprintf(&sb, "\t// file %d line %d: %x %x\n", f, l, uint64(f*7919+l)*2654435761, uint64(l*l+f))
		}
		repo = append(repo, replay.Change{Path: fmt.Sprintf("pkg/%03d/file.go", f), Data: []byte(sb.String())})
		size += int64(sb.Len())
	}
	shared := store(b, srv)
	b.ResetTimer()
	for w := range 5 {
		dir := b.TempDir()
		e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: agent(fmt.Sprint(w))})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.Apply(ctx, &replay.Batch{Tool: "file_create_new", Changes: repo}); err != nil {
			b.Fatal(err)
		}
		for i := range 10 {
			c := repo[(w*10+i)%len(repo)]
			data := append([]byte(fmt.Sprintf("// workspace %d edit %d\n", w, i)), c.Data...)
			if _, err := e.Apply(ctx, &replay.Batch{Tool: "edit_content", Changes: []replay.Change{{Path: c.Path, Data: data}}}); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := remote.Push(ctx, shared, e.Journal(), remote.PushOptions{}); err != nil {
			b.Fatal(err)
		}
		alone, err := remote.Open(ctx, remote.Remote{Name: "alone", URL: fmt.Sprintf("s3://%s/alone%d", s3test.Bucket, w), Endpoint: srv.Endpoint()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := remote.Push(ctx, alone, e.Journal(), remote.PushOptions{}); err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
	sharedBytes, _ := bucketBytes(srv, "team")
	var aloneBytes int64
	for w := range 5 {
		n, _ := bucketBytes(srv, fmt.Sprintf("alone%d", w))
		aloneBytes += n
	}
	b.ReportMetric(float64(size)/1e6, "MB-repository")
	b.ReportMetric(float64(sharedBytes)/1e6, "MB-shared")
	b.ReportMetric(float64(aloneBytes)/1e6, "MB-per-workspace")
	b.ReportMetric(float64(sharedBytes)/float64(5*size), "shared/5×repo")
	b.ReportMetric(float64(sharedBytes)/float64(aloneBytes), "shared/per-workspace")
}

// BenchmarkPushClone: the first push of a 2,000-event journal (one small
// content per event, as BenchmarkPush100k) and the clone of it, to a plain
// remote and to an encrypted one (its key store in a second bucket): the
// cost of sealing, of the key files, and of opening on the way back.
func BenchmarkPushClone(b *testing.B) {
	const n = 2000
	for _, enc := range []bool{false, true} {
		name := "plain"
		if enc {
			name = "encrypted"
		}
		b.Run(name, func(b *testing.B) {
			srv := s3test.Start(b)
			j := bigJournal(b, b.TempDir(), n)
			r := remote.Remote{Name: "team", URL: "s3://" + s3test.Bucket + "/team", Endpoint: srv.Endpoint()}
			if enc {
				r.Keys = "s3://" + s3test.KeysBucket + "/team"
			}
			s, err := remote.Open(ctx, r)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := time.Now()
			rep, err := remote.Push(ctx, s, j, remote.PushOptions{})
			if err != nil || rep.To != n {
				b.Fatal(rep, err)
			}
			push := time.Since(start)
			var ws string
			j.View(func(tx *journal.Tx) error { ws = tx.Workspace(); return nil })
			start = time.Now()
			cr, err := remote.Clone(ctx, s, ws, filepath.Join(b.TempDir(), "clone"), remote.CloneOptions{})
			if err != nil || cr.Events != n {
				b.Fatal(cr, err)
			}
			clone := time.Since(start)
			data, objects := bucketBytes(srv, "team")
			keys, keyObjects := 0, 0
			for _, v := range srv.Objects(s3test.KeysBucket, "team") {
				keys += len(v)
				keyObjects++
			}
			b.ReportMetric(push.Seconds(), "s/push")
			b.ReportMetric(clone.Seconds(), "s/clone")
			b.ReportMetric(float64(data)/1e6, "MB-data")
			b.ReportMetric(float64(objects), "objects")
			b.ReportMetric(float64(keys)/1e3, "kB-keys")
			b.ReportMetric(float64(keyObjects), "key-objects")
		})
	}
}

// BenchmarkShred100k: a 100,000-event journal pushed to an encrypted
// remote (10 segments, 10 key files), then one content shredded there:
// every key file of the workspace read, the one holding it rewritten,
// older versions looked for (one run).
func BenchmarkShred100k(b *testing.B) {
	srv := s3test.Start(b)
	j := bigJournal(b, b.TempDir(), 100000)
	s, err := remote.Open(ctx, remote.Remote{Name: "team", URL: "s3://" + s3test.Bucket + "/team", Endpoint: srv.Endpoint(),
		Keys: "s3://" + s3test.KeysBucket + "/team"})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	rep, err := remote.Push(ctx, s, j, remote.PushOptions{})
	if err != nil || rep.To != 100000 {
		b.Fatal(rep, err)
	}
	push := time.Since(start)
	var id snapshot.ID
	j.View(func(tx *journal.Tx) error {
		e, err := tx.Event(54321)
		id = e.Files[0].After
		return err
	})
	keys := 0
	for _, v := range srv.Objects(s3test.KeysBucket, "team") {
		keys += len(v)
	}
	b.ResetTimer()
	start = time.Now()
	sr, err := remote.ShredStore(ctx, s, rep.Workspace, []uint64{54321}, []snapshot.ID{id})
	if err != nil || sr.Contents == 0 || sr.Events != 1 {
		b.Fatal(sr, err)
	}
	b.ReportMetric(time.Since(start).Seconds(), "s/shred")
	b.ReportMetric(push.Seconds(), "s/push") // after ResetTimer, which drops metrics
	b.ReportMetric(float64(sr.KeyFiles), "key-files")
	b.ReportMetric(float64(keys)/1e6, "MB-keys")
}
