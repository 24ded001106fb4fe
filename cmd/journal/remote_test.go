package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal/remote/s3test"
)

// TestRemote_CLI: `journal remote add`, `push`, `verify --remote` and
// `clone` against a real S3 server (versitygw): the clone, in a fresh
// directory, has the same files, log and blame; a second push sends
// nothing; wrong credentials and a missing bucket give one line each.
func TestRemote_CLI(t *testing.T) {
	srv := s3test.Start(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "one\ntwo\nthree\n", "src/b.go", "package b\n")
	apply(t, e, "edit_file", "a.txt", "one\n2\nthree\nfour\n")
	apply(t, e, "delete_file", "src/b.go", nil)
	apply(t, e, "write_file", "notes.md", "# notes\n")
	e.Close()

	ok(t, dir, "remote", "add", "team", "s3://"+s3test.Bucket+"/cli", "--endpoint", srv.Endpoint())
	if out := ok(t, dir, "remote", "list"); !strings.Contains(out, "team") || !strings.Contains(out, srv.Endpoint()) {
		t.Fatalf("remote list:\n%s", out)
	}
	out := ok(t, dir, "push")
	m := regexp.MustCompile(`pushed events 1-4 to team \(workspace ([0-9a-f]{32})\)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("push:\n%s", out)
	}
	ws := m[1]
	if out := ok(t, dir, "push", "team"); !strings.Contains(out, "team is up to date") {
		t.Fatalf("second push:\n%s", out)
	}
	if out := ok(t, dir, "verify", "--remote", "team"); !strings.Contains(out, "ok: 1 workspace(s) "+ws+", 4 events") {
		t.Fatalf("verify --remote:\n%s", out)
	}

	elsewhere := t.TempDir()
	clone := filepath.Join(elsewhere, "clone")
	if out := ok(t, elsewhere, "clone", "team", "--workspace", ws, "clone"); !strings.Contains(out, "4 events (to 4)") || !strings.Contains(out, "2 files written") {
		t.Fatalf("clone:\n%s", out)
	}
	for _, f := range []string{"a.txt", "notes.md"} {
		a, _ := os.ReadFile(filepath.Join(dir, f))
		b, err := os.ReadFile(filepath.Join(clone, f))
		if err != nil || string(a) != string(b) {
			t.Fatalf("%s in the clone: %q %v, want %q", f, b, err, a)
		}
	}
	if _, err := os.Stat(filepath.Join(clone, "src", "b.go")); !os.IsNotExist(err) {
		t.Fatalf("the deleted src/b.go is in the clone: %v", err)
	}
	for _, args := range [][]string{{"log"}, {"blame", "a.txt"}, {"show", "2"}} {
		if a, b := ok(t, dir, args...), ok(t, clone, args...); a != b {
			t.Fatalf("journal %s differs in the clone:\n%s\n---\n%s", strings.Join(args, " "), a, b)
		}
	}
	ok(t, clone, "verify")
	if r := run(t, elsewhere, "clone", "team", "--workspace", ws, "clone"); r.code == 0 || !strings.Contains(r.stderr, "holds a journal already") {
		t.Fatalf("clone into a journal: %+v", r)
	}

	// one line each: a missing bucket, wrong credentials
	ok(t, dir, "remote", "add", "nobucket", "s3://no-such-bucket/x", "--endpoint", srv.Endpoint())
	r := run(t, dir, "push", "nobucket")
	if r.code == 0 || !strings.Contains(r.stderr, `bucket "no-such-bucket" does not exist`) {
		t.Fatalf("push to a missing bucket: %+v", r)
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong")
	r = run(t, dir, "push", "team")
	if r.code == 0 || !strings.Contains(r.stderr, "refused the credentials") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
		t.Fatalf("push with wrong credentials: %+v", r)
	}
	t.Logf("wrong credentials:\n%s", r.stderr)
}
