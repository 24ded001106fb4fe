package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fastImport builds a repository's history in one git fast-import: commits
// (each a list of whole files) on main, and a note per commit where notes
// gives one.
type fastImport struct {
	buf   bytes.Buffer
	mark  int
	notes []string // by commit mark - 1; "" none
}

func (f *fastImport) data(s string) {
	fmt.Fprintf(&f.buf, "data %d\n%s\n", len(s), s)
}

// commit adds a commit writing files (path → content) with note (may be "").
func (f *fastImport) commit(files map[string]string, note string) {
	f.mark++
	fmt.Fprintf(&f.buf, "commit refs/heads/main\nmark :%d\ncommitter Ann <ann@example.com> %d +0000\n", f.mark, 1767000000+f.mark)
	f.data(fmt.Sprintf("commit %d", f.mark))
	for p, c := range files {
		fmt.Fprintf(&f.buf, "M 100644 inline %s\n", p)
		f.data(c)
	}
	f.notes = append(f.notes, note)
}

func (f *fastImport) run(t testing.TB, dir string) {
	fmt.Fprintf(&f.buf, "commit refs/notes/ai\ncommitter Ann <ann@example.com> 1767999999 +0000\n")
	f.data("notes")
	for i, n := range f.notes {
		if n != "" {
			fmt.Fprintf(&f.buf, "N inline :%d\n", i+1)
			f.data(n)
		}
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Stdin = &f.buf
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	grGitIn(t, dir, "reset", "-q", "--hard", "main")
}

func grGitIn(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

const benchMeta = `---
{"schema_version":"authorship/3.0.0","base_commit_sha":"x","prompts":{},
"humans":{"h_cccccccccccccc":{"author":"Ann <ann@example.com>"}},
"sessions":{"s_aaaaaaaaaaaaaa":{"agent_id":{"tool":"claude","id":"c1","model":"claude-sonnet-4-5"}},
"s_bbbbbbbbbbbbbb":{"agent_id":{"tool":"codex","id":"c2","model":"gpt-5"}}}}
`

// blameRepo: a 5,000-line file written by a first commit and changed, 25
// lines at a time, by 199 more; every commit has a note naming its changed
// lines (agents and a person, some left untracked).
func blameRepo(t testing.TB) string {
	dir := t.TempDir()
	grGitIn(t, dir, "init", "-q", "-b", "main")
	lines := make([]string, 5000)
	var f fastImport
	for c := 0; c < 200; c++ {
		var changed []int
		for i := range lines {
			if c == 0 || (i*7+c*13)%200 == 0 {
				lines[i] = fmt.Sprintf("line %d written by commit %d", i+1, c)
				changed = append(changed, i+1)
			}
		}
		var agentA, agentB, human []string
		for k, l := range changed {
			switch k % 4 {
			case 0, 1:
				agentA = append(agentA, fmt.Sprint(l))
			case 2:
				agentB = append(agentB, fmt.Sprint(l))
			case 3:
				if k%8 == 3 {
					human = append(human, fmt.Sprint(l))
				}
			}
		}
		note := "big.txt\n"
		for _, e := range []struct {
			key   string
			lines []string
		}{{"s_aaaaaaaaaaaaaa::t_" + fmt.Sprintf("%014d", c), agentA}, {"s_bbbbbbbbbbbbbb::t_" + fmt.Sprintf("%014d", c), agentB}, {"h_cccccccccccccc", human}} {
			if len(e.lines) > 0 {
				note += "  " + e.key + " " + strings.Join(e.lines, ",") + "\n"
			}
		}
		f.commit(map[string]string{"big.txt": strings.Join(lines, "\n") + "\n"}, note+benchMeta)
	}
	f.run(t, dir)
	return dir
}

// statsRepo: 1,000 commits over 20 files, each adding 5 lines and changing
// one; 900 have a note (3 agent lines, 1 a person's, 1 untracked).
func statsRepo(t testing.TB) string {
	dir := t.TempDir()
	grGitIn(t, dir, "init", "-q", "-b", "main")
	files := make([][]string, 20)
	var f fastImport
	for c := 0; c < 1000; c++ {
		j := c % 20
		p := fmt.Sprintf("src/file%02d.go", j)
		if len(files[j]) > 0 {
			files[j][0] = fmt.Sprintf("// header changed by %d", c)
		}
		n := len(files[j])
		for k := 0; k < 5; k++ {
			files[j] = append(files[j], fmt.Sprintf("line %d of commit %d", k, c))
		}
		note := ""
		if c%10 != 9 {
			note = fmt.Sprintf("%s\n  s_aaaaaaaaaaaaaa::t_%014d %d-%d\n  h_cccccccccccccc %d\n", p, c, n+1, n+3, n+4) + benchMeta
		}
		f.commit(map[string]string{p: strings.Join(files[j], "\n") + "\n"}, note)
	}
	f.run(t, dir)
	return dir
}

// runRSS runs a command and returns its peak RSS in KiB, the largest of
// it and its children (git's processes), as /usr/bin/time measures it: the
// benchmark's own rusage would not do, as a child forked from this large
// test process inherits its high-water mark across exec. 0 without
// /usr/bin/time.
func runRSS(b *testing.B, dir, name string, args ...string) int64 {
	timeBin, terr := exec.LookPath("/usr/bin/time")
	out := filepath.Join(b.TempDir(), "rss")
	cmd := exec.Command(name, args...)
	if terr == nil {
		cmd = exec.Command(timeBin, append([]string{"-f", "%M", "-o", out, name}, args...)...)
	}
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, stderr.String())
	}
	if terr != nil {
		return 0
	}
	data, _ := os.ReadFile(out)
	kib, _ := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return kib
}

// BenchmarkGitRead_Blame runs `git blame` and `journal git blame` on a
// 5,000-line file with 200 noted commits, side by side in one run (the
// commands as processes, output discarded; peak RSS reported in KiB).
func BenchmarkGitRead_Blame(b *testing.B) {
	dir := blameRepo(b)
	for _, c := range []struct {
		name string
		cmd  []string
	}{
		{"git-blame", []string{"git", "blame", "big.txt"}},
		{"git-blame-porcelain", []string{"git", "blame", "--porcelain", "big.txt"}},
		{"journal-git-blame", []string{bin, "git", "blame", "--no-pager", "big.txt"}},
		{"journal-git-blame-porcelain", []string{bin, "git", "blame", "--porcelain", "big.txt"}},
		{"journal-git-blame-json", []string{bin, "git", "blame", "--json", "big.txt"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var rss int64
			for b.Loop() {
				rss = max(rss, runRSS(b, dir, c.cmd[0], c.cmd[1:]...))
			}
			b.ReportMetric(float64(rss), "maxrss-KiB")
		})
	}
}

// BenchmarkGitRead_Stats runs `journal git stats` over 1,000 commits (900
// noted, 20 files), beside `git log --numstat` of the same range.
func BenchmarkGitRead_Stats(b *testing.B) {
	dir := statsRepo(b)
	for _, c := range []struct {
		name string
		cmd  []string
	}{
		{"git-log-numstat", []string{"git", "log", "--numstat", "-M", "--format=%H %s"}},
		{"journal-git-stats", []string{bin, "git", "stats", "--no-pager"}},
		{"journal-git-stats-json", []string{bin, "git", "stats", "--json"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var rss int64
			for b.Loop() {
				rss = max(rss, runRSS(b, dir, c.cmd[0], c.cmd[1:]...))
			}
			b.ReportMetric(float64(rss), "maxrss-KiB")
		})
	}
}

// The bench repositories are what they claim: checked once, quickly.
func TestGitReadBench_Repos(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 1,200 commits")
	}
	dir := statsRepo(t)
	var st struct {
		Total struct {
			Commits, Noted, Added, Agent, Human, Untracked int
			Survived                                       int `json:"agent_survived"`
		}
	}
	if err := json.Unmarshal([]byte(ok(t, dir, "git", "stats", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	// 5 lines a commit, and a changed header line once a file has one; the
	// header replaces the first agent line of the 18 noted first commits
	tot := st.Total
	if tot.Commits != 1000 || tot.Noted != 900 || tot.Added != 20*5+980*6 || tot.Agent != 2700 || tot.Human != 900 || tot.Survived != 2700-18 {
		t.Errorf("stats repo: %+v", tot)
	}
	dir = blameRepo(t)
	out := ok(t, dir, "git", "blame", "--porcelain", "big.txt")
	if n := strings.Count(out, "\n\t"); n != 5000 {
		t.Errorf("blame repo: %d lines", n)
	}
}
