package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote/s3test"
	"github.com/journalfs/journal/snapshot"
)

// remoteBenchGit runs git in dir (a fixed author, no system config).
func remoteBenchGit(b *testing.B, dir string, args ...string) string {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=alice@example.com",
		"GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=alice@example.com", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// agentJournal writes, straight through journal.Tx (seconds, not minutes),
// a journal in dir of events agent edits over files files of 100 lines
// each (d<i%10>/f<i>.txt, committed as "file i line l"): event k rewrites
// one line of file k%files, a new line each time round. It writes the
// files' last versions into dir and returns how many lines now differ
// from the committed ones.
func agentJournal(b *testing.B, dir string, files, events int) int {
	b.Helper()
	j, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	lines := make([][]string, files)
	for i := range lines {
		lines[i] = make([]string, 100)
		for l := range lines[i] {
			lines[i][l] = fmt.Sprintf("file %d line %d", i, l)
		}
	}
	text := func(i int) []byte { return []byte(strings.Join(lines[i], "\n") + "\n") }
	prev := make([]snapshot.ID, files)
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	changed := map[[2]int]bool{}
	for done := 0; done < events; {
		err := j.Do(func(db *journal.DB) error {
			return db.Update(func(tx *journal.Tx) error {
				if done == 0 {
					for i := range prev { // the committed versions
						if prev[i], err = snapshot.PutTx(tx.Bolt(), text(i)); err != nil {
							return err
						}
					}
				}
				for k := 0; k < 2000 && done < events; k, done = k+1, done+1 {
					i, l := done%files, (done/files*7)%100
					lines[i][l] = fmt.Sprintf("file %d line %d, agent edit %d", i, l, done)
					changed[[2]int{i, l}] = true
					id, err := snapshot.PutTx(tx.Bolt(), text(i))
					if err != nil {
						return err
					}
					p := fmt.Sprintf("d%d/f%d.txt", i%10, i)
					ev := &journal.Event{Time: t0.Add(time.Duration(done) * time.Second), Kind: journal.KindApply, Actor: agent,
						Tool: "edit_file", Status: journal.StatusCommitted, Args: []byte(`{"path":"` + p + `"}`),
						Files: []journal.FileChange{{Path: p, Before: prev[i], After: id, BeforeMode: 0o644, AfterMode: 0o644, Added: 1, Removed: 1}}}
					if err := tx.Append(ev); err != nil {
						return err
					}
					prev[i] = id
				}
				return nil
			})
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for i := range lines {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("d%d/f%d.txt", i%10, i)), text(i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return len(changed)
}

// BenchmarkGitNoteRemote: `journal git note --remote team HEAD` in a fresh
// clone (the CI job of docs/ci/) for a server's squash merge of a branch
// whose journal, pushed to a local versitygw, holds 100 agent edits over
// 10 files or 10,000 over 200 (files of 100 lines), beside `git fetch` of
// the whole repository into an empty one as a floor; one of each per
// iteration, medians and peak RSS (KiB, /usr/bin/time) reported, and the
// one `journal push` of the branch's journal. versitygw closes every
// connection after its answer unless told to keep them (VGW_KEEP_ALIVE), as
// S3 does; the 10,000 events are read both ways.
func BenchmarkGitNoteRemote(b *testing.B) {
	for _, c := range []struct {
		files, events int
		keepAlive     bool
	}{{10, 100, true}, {200, 10000, true}, {200, 10000, false}} {
		b.Run(fmt.Sprintf("events=%d/keepalive=%v", c.events, c.keepAlive), func(b *testing.B) {
			b.Setenv("VGW_KEEP_ALIVE", fmt.Sprint(c.keepAlive))
			srv := s3test.Start(b)
			b.Setenv("XDG_CONFIG_HOME", b.TempDir())
			bare := filepath.Join(b.TempDir(), "origin.git")
			remoteBenchGit(b, b.TempDir(), "init", "-q", "--bare", "-b", "main", bare)

			// the developer: the files committed on main, the agent's
			// edits journaled and committed on a branch
			dev := benchRepo(b, c.files, 100, false)
			remoteBenchGit(b, dev, "remote", "add", "origin", bare)
			remoteBenchGit(b, dev, "push", "-q", "origin", "main")
			remoteBenchGit(b, dev, "checkout", "-q", "-b", "feature")
			start := time.Now()
			agentLines := agentJournal(b, dev, c.files, c.events)
			built := time.Since(start)
			remoteBenchGit(b, dev, "commit", "-qam", "feature: the agent's edits")
			remoteBenchGit(b, dev, "push", "-q", "origin", "feature")
			ok(b, dev, "remote", "add", "team", "s3://"+s3test.Bucket+"/bench", "--endpoint", srv.Endpoint())
			start = time.Now()
			ok(b, dev, "push", "team")
			pushed := time.Since(start)

			// the server's squash merge
			server := filepath.Join(b.TempDir(), "server")
			remoteBenchGit(b, b.TempDir(), "clone", "-q", bare, server)
			remoteBenchGit(b, server, "merge", "-q", "--squash", "origin/feature")
			remoteBenchGit(b, server, "commit", "-qm", "Squashed feature (#1)")
			remoteBenchGit(b, server, "push", "-q", "origin", "main")

			var fd, nd []time.Duration
			var frss, nrss int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				floor := b.TempDir()
				remoteBenchGit(b, floor, "init", "-q", "-b", "main")
				ci := filepath.Join(b.TempDir(), "ci")
				remoteBenchGit(b, b.TempDir(), "clone", "-q", bare, ci)
				b.StartTimer()
				start := time.Now()
				frss = max(frss, runRSS(b, floor, "git", "fetch", "-q", bare, "+refs/heads/*:refs/remotes/origin/*"))
				fd = append(fd, time.Since(start))
				start = time.Now()
				nrss = max(nrss, runRSS(b, ci, bin, "git", "note", "--remote", "team", "HEAD"))
				nd = append(nd, time.Since(start))
				b.StopTimer()
				if i == 0 {
					note := readSpecNoteB(ci)
					if n := strings.Count(note, "s_"); n < 1 || !strings.Contains(note, "d0/f0.txt") {
						b.Fatalf("the squash commit's note:\n%s", note)
					}
				}
				b.StartTimer()
			}
			b.StopTimer()
			b.ReportMetric(float64(agentLines), "agent-lines")
			b.ReportMetric(built.Seconds(), "journal-build-s")
			b.ReportMetric(pushed.Seconds(), "push-s")
			b.ReportMetric(float64(median(fd).Microseconds())/1000, "fetch-p50-ms")
			b.ReportMetric(float64(median(nd).Microseconds())/1000, "note-p50-ms")
			b.ReportMetric(float64(frss), "fetch-maxrss-KiB")
			b.ReportMetric(float64(nrss), "note-maxrss-KiB")
		})
	}
}
