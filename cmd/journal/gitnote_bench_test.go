package main_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/replay"
)

// benchRepo makes a repository of n files of lines lines each, committed;
// with journal set, a journal with journal git installed.
func benchRepo(b *testing.B, n, lines int, journaled bool) string {
	b.Helper()
	dir := b.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".journal/\n"), 0o644)
	for i := 0; i < n; i++ {
		var s strings.Builder
		for l := 0; l < lines; l++ {
			fmt.Fprintf(&s, "file %d line %d\n", i, l)
		}
		p := filepath.Join(dir, fmt.Sprintf("d%d/f%d.txt", i%10, i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(s.String()), 0o644)
	}
	run("add", "-A")
	run("commit", "-qm", "start")
	if journaled {
		for _, args := range [][]string{{"exec", "--", "true"}, {"git", "install"}} {
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("journal %v: %v %s", args, err, out)
			}
		}
	}
	return dir
}

// change rewrites line 1 of every file, through the journal as an agent
// (journaled) or by hand.
func change(b *testing.B, dir string, n, lines, iter int, journaled bool) {
	b.Helper()
	batch := &replay.Batch{Tool: "write_file"}
	for i := 0; i < n; i++ {
		var s strings.Builder
		fmt.Fprintf(&s, "file %d agent line, iteration %d\n", i, iter)
		for l := 1; l < lines; l++ {
			fmt.Fprintf(&s, "file %d line %d\n", i, l)
		}
		p := fmt.Sprintf("d%d/f%d.txt", i%10, i)
		if journaled {
			batch.Changes = append(batch.Changes, replay.Change{Path: p, Data: []byte(s.String())})
		} else {
			os.WriteFile(filepath.Join(dir, p), []byte(s.String()), 0o644)
		}
	}
	if journaled {
		e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: agent})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.Apply(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
}

func timedCommit(b *testing.B, dir string) time.Duration {
	cmd := exec.Command("git", "commit", "-qam", "c")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil || len(out) > 0 {
		b.Fatalf("git commit: %v %s", err, out)
	}
	return d
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkGitCommit: `git commit -a` of an agent's change to 1, 10 and
// 1,000 files (100 lines each: 100,000 lines) with journal git installed,
// beside the same commit in the same state without it, one of each per
// iteration; medians reported (targets: +100 ms p50 for 1-10 files, +1 s
// for 1,000).
func BenchmarkGitCommit(b *testing.B) {
	for _, n := range []int{1, 10, 1000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			plain, noted := benchRepo(b, n, 100, false), benchRepo(b, n, 100, true)
			var pd, jd []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				change(b, plain, n, 100, i, false)
				change(b, noted, n, 100, i, true)
				b.StartTimer()
				pd = append(pd, timedCommit(b, plain))
				jd = append(jd, timedCommit(b, noted))
			}
			b.StopTimer()
			if readSpecNoteB(noted) == "" {
				b.Fatal("no note written")
			}
			b.ReportMetric(float64(median(pd).Microseconds())/1000, "plain-p50-ms")
			b.ReportMetric(float64(median(jd).Microseconds())/1000, "journal-p50-ms")
			b.ReportMetric(float64((median(jd)-median(pd)).Microseconds())/1000, "added-p50-ms")
		})
	}
}

func readSpecNoteB(dir string) string {
	cmd := exec.Command("git", "notes", "--ref=ai", "show", "HEAD")
	cmd.Dir = dir
	out, _ := cmd.Output()
	return string(out)
}

// BenchmarkGitNoteRebase: `journal git note` of the 100 commits a rebase
// made (each an agent's change of one file of 100 lines), notes written
// (target ≤ 5 s).
func BenchmarkGitNoteRebase(b *testing.B) {
	dir := benchRepo(b, 100, 100, true)
	// no hooks: the 100 commits are noted by the command measured
	gitb := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x")
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
		return string(out)
	}
	gitb("config", "--unset", "core.hooksPath")
	for i := 0; i < 100; i++ {
		e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: agent})
		if err != nil {
			b.Fatal(err)
		}
		var s strings.Builder
		fmt.Fprintf(&s, "agent line of commit %d\n", i)
		for l := 1; l < 100; l++ {
			fmt.Fprintf(&s, "file %d line %d\n", i, l)
		}
		if _, err := e.Apply(context.Background(), &replay.Batch{Tool: "write_file", Changes: []replay.Change{{Path: fmt.Sprintf("d%d/f%d.txt", i%10, i), Data: []byte(s.String())}}}); err != nil {
			b.Fatal(err)
		}
		e.Close()
		gitb("commit", "-qam", fmt.Sprint(i))
	}
	gitb("checkout", "-q", "-b", "side", "main~100")
	os.WriteFile(filepath.Join(dir, "other.txt"), []byte("other\n"), 0o644)
	gitb("add", "other.txt")
	gitb("commit", "-qm", "other")
	gitb("checkout", "-q", "main")
	gitb("rebase", "-q", "side")
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		gitb("update-ref", "-d", "refs/notes/ai")
		b.StartTimer()
		cmd := exec.Command(bin, "git", "note", "side..main")
		cmd.Dir = dir
		start := time.Now()
		out, err := cmd.CombinedOutput()
		ds = append(ds, time.Since(start))
		if err != nil || strings.Count(string(out), "note written") != 100 {
			b.Fatalf("journal git note: %v %s", err, out)
		}
	}
	b.StopTimer()
	if n := readSpecNoteB(dir); !strings.Contains(n, "s_") {
		b.Fatalf("HEAD's note names no agent:\n%s", n)
	}
	b.ReportMetric(float64(median(ds).Microseconds())/1000, "p50-ms")
}
