package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal/remote/s3test"
)

// The CI job of docs/ci/, run locally: a developer's agent writes on a
// branch (the hooks note the commit) and pushes the journal to S3; the
// server squash-merges the branch (a new commit, no note); the job, in a
// fresh checkout with no journal, notes it from the remote's workspaces
// and pushes refs/notes/ai to the bare repository. The squash commit's
// lines name the agent's session as the branch commit's did.
func TestGitReadRemote_SquashMergeInCI(t *testing.T) {
	srv := s3test.Start(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	bare := filepath.Join(t.TempDir(), "origin.git")
	gitEnvInAllow(t, t.TempDir(), "init", "-q", "--bare", "-b", "main", bare)

	// the developer
	dev := gitRepo(t)
	gitEnvInAllow(t, dev, "remote", "add", "origin", bare)
	gitEnvInAllow(t, dev, "push", "-q", "origin", "main")
	gitEnvInAllow(t, dev, "checkout", "-q", "-b", "feature")
	write(t, dev, agent, "f.txt", "a1\na2\na3\n")
	gitEnvIn(t, dev, nil, "add", "f.txt")
	gitEnvIn(t, dev, nil, "commit", "-qm", "feature: the agent's lines")
	write(t, dev, human, "g.txt", "h1\n")
	gitEnvIn(t, dev, nil, "add", "g.txt")
	gitEnvIn(t, dev, nil, "commit", "-qm", "feature: a person's line")
	wantNote(t, dev, "HEAD~1", map[string]map[int]string{"f.txt": {1: lA, 2: lA, 3: lA}})
	gitEnvInAllow(t, dev, "push", "-q", "origin", "feature")
	ok(t, dev, "remote", "add", "team", "s3://"+s3test.Bucket+"/ci", "--endpoint", srv.Endpoint())
	ok(t, dev, "push", "team")

	// the server's squash merge: no hook, no journal
	server := filepath.Join(t.TempDir(), "server")
	gitEnvInAllow(t, t.TempDir(), "clone", "-q", bare, server)
	gitEnvIn(t, server, nil, "merge", "-q", "--squash", "origin/feature")
	gitEnvIn(t, server, nil, "commit", "-qm", "Squashed feature (#1)")
	gitEnvInAllow(t, server, "push", "-q", "origin", "main")

	// the CI job: the workflow's commands
	ci := filepath.Join(t.TempDir(), "ci")
	gitEnvInAllow(t, t.TempDir(), "clone", "-q", bare, ci)
	gitEnvInAllow(t, ci, "fetch", "-q", "origin", "refs/notes/ai:refs/notes/ai")
	out := ok(t, ci, "git", "note", "--remote", "team", "HEAD")
	if !strings.Contains(out, "note written") {
		t.Fatalf("git note --remote: %s", out)
	}
	wantNote(t, ci, "HEAD", map[string]map[int]string{"f.txt": {1: lA, 2: lA, 3: lA}, "g.txt": {1: lH}})
	if out := ok(t, ci, "git", "note", "--remote", "team", "HEAD"); !strings.Contains(out, "note unchanged") {
		t.Fatalf("second run: %s", out)
	}
	gitEnvInAllow(t, ci, "push", "-q", "origin", "refs/notes/ai")

	// anyone who fetches the notes reads them
	reader := filepath.Join(t.TempDir(), "reader")
	gitEnvInAllow(t, t.TempDir(), "clone", "-q", bare, reader)
	gitEnvInAllow(t, reader, "fetch", "-q", "origin", "refs/notes/ai:refs/notes/ai")
	if out := ok(t, reader, "git", "stats", "HEAD~1..HEAD"); !strings.Contains(out, "4 lines added: 3 by agents (75.0%), 1 by people, 0 untracked") {
		t.Fatalf("stats of the squash commit:\n%s", out)
	}
	if out := ok(t, reader, "git", "blame", "f.txt"); !strings.Contains(out, "claude session s1") {
		t.Fatalf("blame:\n%s", out)
	}

	if r := run(t, ci, "git", "note", "--remote", "nosuch", "HEAD"); r.code == 0 {
		t.Fatalf("an unknown remote: %+v", r)
	}
}

// squashScenario: a developer's branch noted by the hooks and its journal
// pushed to S3 (remote "team"), then squash-merged on the server. It
// returns the bare repository, the remote's URL and the main branch before
// and after the merge.
func squashScenario(t *testing.T, srv *s3test.Server) (bare, url, before, after string) {
	bare = filepath.Join(t.TempDir(), "origin.git")
	gitEnvInAllow(t, t.TempDir(), "init", "-q", "--bare", "-b", "main", bare)
	dev := gitRepo(t)
	gitEnvInAllow(t, dev, "remote", "add", "origin", bare)
	gitEnvInAllow(t, dev, "push", "-q", "origin", "main")
	gitEnvInAllow(t, dev, "checkout", "-q", "-b", "feature")
	write(t, dev, agent, "f.txt", "a1\na2\na3\n")
	gitEnvIn(t, dev, nil, "add", "f.txt")
	gitEnvIn(t, dev, nil, "commit", "-qm", "feature")
	gitEnvInAllow(t, dev, "push", "-q", "origin", "feature")                                        // journal git install makes a push carry the notes
	url = "s3://" + s3test.Bucket + "/" + strings.NewReplacer("/", "-", ".", "-").Replace(t.Name()) // one prefix per scenario
	ok(t, dev, "remote", "add", "team", url, "--endpoint", srv.Endpoint())
	ok(t, dev, "push", "team")
	server := filepath.Join(t.TempDir(), "server")
	gitEnvInAllow(t, t.TempDir(), "clone", "-q", bare, server)
	before = strings.TrimSpace(gitOut(t, server, "rev-parse", "HEAD"))
	gitEnvIn(t, server, nil, "merge", "-q", "--squash", "origin/feature")
	gitEnvIn(t, server, nil, "commit", "-qm", "Squashed feature (#1)")
	gitEnvInAllow(t, server, "push", "-q", "origin", "main")
	after = strings.TrimSpace(gitOut(t, server, "rev-parse", "HEAD"))
	return
}

// ciScript is the shell script between a workflow file's markers.
func ciScript(t *testing.T, file string) string {
	return ciBlock(t, file, "# --- journal-notes script begin", "# --- journal-notes script end")
}

// ciBlock is the text between a workflow file's begin and end marker
// lines, unindented.
func ciBlock(t *testing.T, file, begin, end string) string {
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "ci", file))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in, indent := false, ""
	for _, l := range strings.Split(string(data), "\n") {
		trim := strings.TrimLeft(l, " ")
		switch {
		case trim == begin:
			in, indent = true, l[:len(l)-len(trim)]
		case trim == end:
			return strings.Join(out, "\n") + "\n"
		case in:
			out = append(out, strings.TrimPrefix(l, indent))
		}
	}
	t.Fatalf("%s: no %q markers", file, begin)
	return ""
}

// The workflows of docs/ci/ (their script, as it is) against a local bare
// repository and the S3 test server: the squash commit gets its note, the
// bare repository receives it, a second run finds nothing to do.
func TestGitReadCI_Workflows(t *testing.T) {
	srv := s3test.Start(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, file := range []string{"github-actions-journal-notes.yml", "gitlab-journal-notes.yml", "github-actions-journal-report.yml"} {
		t.Run(file, func(t *testing.T) {
			script := ciScript(t, file)
			bare, url, before, after := squashScenario(t, srv)
			runScript := func() string {
				ci := filepath.Join(t.TempDir(), "ci")
				gitEnvInAllow(t, t.TempDir(), "clone", "-q", bare, ci)
				cmd := exec.Command("bash", "-c", script)
				cmd.Dir = ci
				cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
					"JOURNAL_REMOTE_URL="+url, "JOURNAL_S3_ENDPOINT="+srv.Endpoint(), "JOURNAL_BEFORE="+before, "JOURNAL_AFTER="+after)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s's script: %v\n%s", file, err, out)
				}
				return string(out)
			}
			out := runScript()
			if !strings.Contains(out, after[:12]+": note written") {
				t.Fatalf("first run:\n%s", out)
			}
			check := filepath.Join(t.TempDir(), "check")
			gitEnvInAllow(t, t.TempDir(), "clone", "-q", bare, check)
			gitEnvInAllow(t, check, "fetch", "-q", "origin", "refs/notes/ai:refs/notes/ai")
			wantNote(t, check, after, map[string]map[int]string{"f.txt": {1: lA, 2: lA, 3: lA}})
			if out := runScript(); !strings.Contains(out, "every commit of "+before+".."+after+" has a note") {
				t.Fatalf("second run:\n%s", out)
			}
		})
	}
}
