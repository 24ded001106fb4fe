package main_test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote/s3test"
)

// teamStatsRows is team stats --json's rows, as "repository|workspace|
// author|events|+added-removed" sorted as printed, W the workspace's letter.
func teamStatsRows(t *testing.T, names map[string]string, args ...string) string {
	t.Helper()
	var out struct {
		Rows []struct {
			Day, Workspace, Repository, Author string
			Events, Added, Removed             int
		}
	}
	if err := json.Unmarshal([]byte(ok(t, t.TempDir(), append([]string{"team", "stats", "--json"}, args...)...)), &out); err != nil {
		t.Fatal(err)
	}
	var rs []string
	for _, r := range out.Rows {
		if r.Day != time.Now().UTC().Format("2006-01-02") {
			t.Errorf("row of day %s", r.Day)
		}
		rs = append(rs, fmt.Sprintf("%s|%s|%s|%d|+%d-%d", r.Repository, names[r.Workspace], r.Author, r.Events, r.Added, r.Removed))
	}
	return strings.Join(rs, " ; ")
}

// teamOrigin makes a bare git repository holding one commit (a
// .gitignore of .journal/ and a README.md) and returns a function that
// clones it into a new directory, each clone's origin the bare one.
func teamOrigin(t *testing.T) (clone func() string) {
	t.Helper()
	bare := filepath.Join(t.TempDir(), "origin.git")
	gitEnvInAllow(t, t.TempDir(), "init", "-q", "--bare", "-b", "main", bare)
	seed := committedRepo(t, map[string]string{".gitignore": ".journal/\n", "README.md": "hello\n"})
	gitEnvInAllow(t, seed, "push", "-q", bare, "main")
	return func() string {
		d := filepath.Join(t.TempDir(), "w")
		gitEnvInAllow(t, t.TempDir(), "clone", "-q", bare, d)
		return d
	}
}

// Three workspaces push to one remote: A and B are checkouts of one git
// repository (real git: clones of one origin; A's origin URL holds a
// user and token, B's origin removed — they share the root commit), C a
// checkout of another repository without an origin. `team stats --by
// repository` counts A's and B's lines on one row per author, named by
// the origin URL without its credentials, and C's on its own, named by
// its short root commit; `--by workspace` (the default) keeps a row per
// workspace, each naming its repository; --csv has the repository
// column; the text names the repository; --by anything else is a usage
// error.
func TestTeam_StatsByRepository(t *testing.T) {
	srv := s3test.Start(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ok(t, t.TempDir(), "remote", "add", "team", "s3://"+s3test.Bucket+"/r", "--endpoint", srv.Endpoint())
	clone := teamOrigin(t)
	claude := journal.Actor{Kind: "mcp", Name: "claude-code", Session: "s", Origin: "stdio"}
	bob := journal.Actor{Kind: "cli", User: "bob", Origin: "cli"}
	const url = "https://git.example.com/team/app.git"

	a := clone()
	gitEnvInAllow(t, a, "remote", "set-url", "origin", "https://alice:ghp_tokentokentoken@git.example.com/team/app.git")
	ea := engine(t, a)
	teamEdit(t, ea, claude, "write_file", `{"call":{"model":"m1"}}`, "a.go", "1\n2\n3\n")
	ea.Close()
	wa := teamPush(t, a)

	b := clone()
	gitEnvInAllow(t, b, "remote", "remove", "origin")
	eb := engine(t, b)
	teamEdit(t, eb, claude, "write_file", `{"call":{"model":"m1"}}`, "b.go", "1\n2\n")
	teamEdit(t, eb, bob, "write_file", `{}`, "README.md", "hello\nbob\n")
	eb.Close()
	wb := teamPush(t, b)

	c := committedRepo(t, map[string]string{".gitignore": ".journal/\n", "other.txt": "x\n"})
	cRoot := strings.TrimSpace(gitEnvInAllow(t, c, "rev-list", "--max-parents=0", "HEAD"))[:12]
	ec := engine(t, c)
	teamEdit(t, ec, claude, "write_file", `{"call":{"model":"m1"}}`, "c.go", "1\n")
	ec.Close()
	wc := teamPush(t, c)
	names := map[string]string{wa: "A", wb: "B", wc: "C", "": "-"}

	if got, want := teamStatsRows(t, names, "--by", "repository"), cRoot+"|-|claude-code|1|+1-0 ; "+
		url+"|-|claude-code|2|+5-0 ; "+url+"|-|cli:bob|1|+1-0"; got != want {
		t.Errorf("team stats --by repository rows:\n%s\nwant\n%s", got, want)
	}
	byWS := teamStatsRows(t, names)
	for _, want := range []string{url + "|A|claude-code|1|+3-0", url + "|B|claude-code|1|+2-0", url + "|B|cli:bob|1|+1-0", cRoot + "|C|claude-code|1|+1-0"} {
		if !strings.Contains(byWS, want) {
			t.Errorf("team stats rows (by workspace) lack %s:\n%s", want, byWS)
		}
	}
	if strings.Count(byWS, ";") != 3 {
		t.Errorf("team stats rows (by workspace): want 4\n%s", byWS)
	}

	recs, err := csv.NewReader(strings.NewReader(ok(t, t.TempDir(), "team", "stats", "--csv", "--by", "repository", "--agent", "claude-code"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	day := time.Now().UTC().Format("2006-01-02")
	want := [][]string{{"day", "workspace", "repository", "author", "kind", "model", "events", "added", "removed", "reverted", "undone"},
		{day, "", cRoot, "claude-code", "agent", "m1", "1", "1", "0", "0", "0"},
		{day, "", url, "claude-code", "agent", "m1", "2", "5", "0", "0", "0"}}
	if fmt.Sprint(recs) != fmt.Sprint(want) {
		t.Errorf("team stats --csv --by repository:\n%v\nwant\n%v", recs, want)
	}

	text := ok(t, t.TempDir(), "team", "stats", "--by", "repository")
	if !strings.Contains(text, "by day and repository") || !strings.Contains(text, day+" "+url+"  claude-code") || !strings.Contains(text, day+" "+cRoot+"  claude-code") {
		t.Errorf("team stats --by repository:\n%s", text)
	}
	if text := ok(t, t.TempDir(), "team", "stats"); !strings.Contains(text, day+" "+wa[:8]+" "+url+"  claude-code") {
		t.Errorf("team stats:\n%s", text)
	}
	for _, out := range []string{byWS, text} {
		if strings.Contains(out, "ghp_") || strings.Contains(out, "alice") {
			t.Errorf("team stats shows the origin's credentials:\n%s", out)
		}
	}

	// team log names each event's repository: --json, --csv's last column
	logRepos := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(ok(t, t.TempDir(), "team", "log", "--json")), "\n") {
		var e struct{ Workspace, Repository string }
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		if r, seen := logRepos[names[e.Workspace]]; seen && r != e.Repository {
			t.Errorf("team log --json: workspace %s's events name repositories %q and %q", names[e.Workspace], r, e.Repository)
		}
		logRepos[names[e.Workspace]] = e.Repository
	}
	if got, want := fmt.Sprint(logRepos), fmt.Sprint(map[string]string{"A": url, "B": url, "C": cRoot}); got != want {
		t.Errorf("team log --json repositories by workspace: %s, want %s", got, want)
	}
	recs, err = csv.NewReader(strings.NewReader(ok(t, t.TempDir(), "team", "log", "--csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs[1:] {
		if want := map[string]string{"A": url, "B": url, "C": cRoot}[names[r[0]]]; r[len(r)-1] != want {
			t.Errorf("team log --csv: workspace %s's row ends %q, want its repository %q", names[r[0]], r[len(r)-1], want)
		}
	}
	if h := recs[0]; h[len(h)-1] != "repository" {
		t.Errorf("team log --csv header: %v", h)
	}

	// --repo: one repository's checkouts — B, which has no origin, with A
	// named by its origin — by origin URL or a root commit's prefix
	for _, c := range []struct{ repo, want string }{{url, "A B"}, {cRoot[:8], "C"}, {"https://alice:x@git.example.com/team/app.git", "A B"}} {
		seen := map[string]bool{}
		for _, l := range strings.Split(strings.TrimSpace(ok(t, t.TempDir(), "team", "log", "--json", "--repo", c.repo)), "\n") {
			var e struct{ Workspace string }
			if err := json.Unmarshal([]byte(l), &e); err != nil {
				t.Fatal(err)
			}
			seen[names[e.Workspace]] = true
		}
		var got []string
		for _, n := range []string{"A", "B", "C"} {
			if seen[n] {
				got = append(got, n)
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("team log --repo %s: the events of %v, want %s", c.repo, got, c.want)
		}
	}
	if got, want := teamStatsRows(t, names, "--by", "repository", "--repo", url), url+"|-|claude-code|2|+5-0 ; "+url+"|-|cli:bob|1|+1-0"; got != want {
		t.Errorf("team stats --by repository --repo URL rows:\n%s\nwant\n%s", got, want)
	}
	if r := run(t, t.TempDir(), "team", "log", "--repo", "https://git.example.com/other.git"); r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "no events match") {
		t.Errorf("team log --repo of no workspace: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	} else if !strings.Contains(r.stderr, "no workspace on the remote is a checkout of repository") || !strings.Contains(r.stderr, "--by repository") {
		t.Errorf("team log --repo of no workspace does not say so, with what names the repositories:\n%s", r.stderr)
	}

	if r := run(t, t.TempDir(), "team", "stats", "--by", "machine"); r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "--by repository") {
		t.Errorf("team stats --by machine: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
