package main_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

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

	if r := run(t, dir, "push"); r.code != 2 || !strings.Contains(r.stderr, "no remote is configured (journal remote add NAME s3://bucket/prefix)") {
		t.Fatalf("push without a remote: %+v", r)
	}
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
	if out := ok(t, dir, "remote", "show", "team"); !regexp.MustCompile(ws + `\s+1-4\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+\(this workspace\)`).MatchString(out) {
		t.Fatalf("remote show:\n%s", out)
	}
	if out := ok(t, dir, "push", "team"); !strings.Contains(out, "team is up to date") {
		t.Fatalf("second push:\n%s", out)
	}
	if out := ok(t, dir, "verify", "--remote", "team"); !strings.Contains(out, "ok: 1 workspace(s) "+ws+", 4 events") {
		t.Fatalf("verify --remote:\n%s", out)
	}

	// the audit trail from the remote: the local export's, line for line
	audit := filepath.Join(t.TempDir(), "remote.jsonl")
	ok(t, t.TempDir(), "export", "--remote", "team", "--workspace", ws, "-o", audit)
	ok(t, dir, "verify", "--export", audit)
	local := filepath.Join(t.TempDir(), "local.jsonl")
	ok(t, dir, "export", "-o", local)
	ra, _ := os.ReadFile(audit)
	la, _ := os.ReadFile(local)
	if rl, ll := strings.Split(string(ra), "\n"), strings.Split(string(la), "\n"); len(rl) != len(ll) || strings.Join(rl[:len(rl)-2], "\n") != strings.Join(ll[:len(ll)-2], "\n") {
		t.Fatalf("the remote's audit trail differs from the journal's:\n%s\n---\n%s", ra, la)
	}
	if r := run(t, dir, "export", "--remote", "team"); r.code != 2 || !strings.Contains(r.stderr, "go together") {
		t.Fatalf("export --remote without --workspace: %+v", r)
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
	busy := filepath.Join(elsewhere, "busy")
	os.MkdirAll(busy, 0o755)
	os.WriteFile(filepath.Join(busy, "a.txt"), []byte("mine\n"), 0o644)
	if r := run(t, elsewhere, "clone", "team", "--workspace", ws, "busy"); r.code == 0 || !strings.Contains(r.stderr, "is not empty") {
		t.Fatalf("clone into a directory with files: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(busy, "a.txt")); string(b) != "mine\n" {
		t.Fatalf("a refused clone overwrote a file: %q", b)
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

// TestServe_Replicate: `journal serve --replicate team` pushes what any
// process commits to the journal, in the background; `journal status` says
// where it stands.
func TestServe_Replicate(t *testing.T) {
	srv := s3test.Start(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "1\n")
	ok(t, dir, "remote", "add", "team", "s3://"+s3test.Bucket+"/serve", "--endpoint", srv.Endpoint())
	addrFile := filepath.Join(t.TempDir(), "addr")
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "--replicate", "team", "--lsp=false")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "JOURNAL_ADDR_FILE="+addrFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	for i := 2; i <= 20; i++ { // another process edits; the server replicates
		apply(t, e, "edit_file", "a.txt", fmt.Sprintf("%d\n", i))
	}
	e.Close()
	var out string
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(out, "up to date (event 20)"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("status never showed the replication up to date:\n%s\nserve: %s", out, stderr.String())
		}
		out = ok(t, dir, "status")
	}
	if !regexp.MustCompile(`replicate to team \(workspace [0-9a-f]{32}\): up to date \(event 20\)`).MatchString(out) {
		t.Fatalf("status:\n%s", out)
	}
	if out := ok(t, dir, "verify", "--remote", "team"); !strings.Contains(out, "20 events") {
		t.Fatalf("verify --remote:\n%s", out)
	}
}

// TestGC_KeepsUnpushed: gc does not drop events a remote has not received
// (it says which and how to go on); after a push it does, and the remote's
// chain continues past the gc.
func TestGC_KeepsUnpushed(t *testing.T) {
	srv := s3test.Start(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "1\n")
	ok(t, dir, "remote", "add", "team", "s3://"+s3test.Bucket+"/gc", "--endpoint", srv.Endpoint())
	ok(t, dir, "push")
	apply(t, e, "write_file", "a.txt", "2\n")
	apply(t, e, "write_file", "a.txt", "3\n")
	e.Close()
	gc := func() result {
		t.Helper()
		cmd := exec.Command(bin, "gc", "--keep", "1m")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "JOURNAL_NOW="+time.Now().Add(time.Hour).Format(time.RFC3339))
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		r := result{stdout: out.String(), stderr: errb.String()}
		if ee, isExit := err.(*exec.ExitError); isExit {
			r.code = ee.ExitCode()
		}
		return r
	}
	r := gc()
	if r.code == 0 || !strings.Contains(r.stderr, "gc would drop events 2 to 2, and remote team holds events only to 1") || !strings.Contains(r.stderr, "journal push team") {
		t.Fatalf("gc of unpushed events: %+v", r)
	}
	if out := ok(t, dir, "log", "--oneline"); strings.Count(out, "\n") != 3 {
		t.Fatalf("a refused gc dropped events:\n%s", out)
	}
	ok(t, dir, "push")
	if r := gc(); r.code != 0 || !strings.Contains(r.stdout, "dropped 2 events") {
		t.Fatalf("gc after the push: %+v", r)
	}
	if out := ok(t, dir, "push"); !strings.Contains(out, "pushed events 4-4") {
		t.Fatalf("push of the gc event:\n%s", out)
	}
	if out := ok(t, dir, "verify", "--remote", "team"); !strings.Contains(out, "4 events") {
		t.Fatalf("verify --remote:\n%s", out)
	}
}

// TestRemote_Encrypted_CLI: `journal remote add --keys` makes an encrypted
// remote: push, verify --remote (every sealed object opened) and clone
// work as with a plain one, and no object in the data bucket holds the
// secret written into .env; --retain without --keys or --plain, and
// --encrypt without --keys, are refused with a hint.
func TestRemote_Encrypted_CLI(t *testing.T) {
	srv := s3test.Start(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	e := engine(t, dir)
	const secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	apply(t, e, "write_file", "a.txt", "one\n", ".env", "GITHUB_TOKEN="+secret+"\n")
	apply(t, e, "edit_file", "a.txt", "one\ntwo\n")
	e.Close()

	r := run(t, dir, "remote", "add", "audit", "s3://"+s3test.Bucket+"/locked", "--endpoint", srv.Endpoint(), "--retain", "7y")
	if r.code != 2 || !strings.Contains(r.stderr, "--retain 7y without --keys") || !strings.Contains(r.stderr, "hint: add --keys s3://another-bucket/prefix") {
		t.Fatalf("--retain without --keys: %+v", r)
	}
	if r := run(t, dir, "remote", "add", "x", "s3://"+s3test.Bucket+"/x", "--encrypt"); r.code != 2 || !strings.Contains(r.stderr, "--encrypt needs --keys") {
		t.Fatalf("--encrypt without --keys: %+v", r)
	}
	if r := run(t, dir, "remote", "add", "x", "s3://"+s3test.Bucket+"/x", "--keys", "s3://"+s3test.Bucket+"/keys"); r.code != 2 || !strings.Contains(r.stderr, "keep the keys in another bucket") {
		t.Fatalf("--keys in the data bucket: %+v", r)
	}
	out := ok(t, dir, "remote", "add", "sealed", "s3://"+s3test.Bucket+"/sealed", "--endpoint", srv.Endpoint(), "--keys", "s3://"+s3test.KeysBucket+"/sealed")
	if !strings.Contains(out, "(encrypted, keys in s3://"+s3test.KeysBucket+"/sealed)") {
		t.Fatalf("remote add --keys:\n%s", out)
	}
	out = ok(t, dir, "push", "sealed")
	m := regexp.MustCompile(`pushed events 1-2 to sealed \(workspace ([0-9a-f]{32})\)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("push:\n%s", out)
	}
	ws := m[1]
	for k, b := range srv.Objects(s3test.Bucket, "sealed") {
		if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte("one\ntwo")) {
			t.Fatalf("%s holds plaintext", k)
		}
	}
	if out := ok(t, dir, "verify", "--remote", "sealed"); !strings.Contains(out, "ok: 1 workspace(s) "+ws+", 2 events") || !strings.Contains(out, "ok: encrypted; every sealed object opened with its key from s3://"+s3test.KeysBucket+"/sealed") {
		t.Fatalf("verify --remote:\n%s", out)
	}
	elsewhere := t.TempDir()
	if out := ok(t, elsewhere, "clone", "sealed", "--workspace", ws, "c"); !strings.Contains(out, "2 events (to 2)") || !strings.Contains(out, "2 files written") {
		t.Fatalf("clone:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(elsewhere, "c", ".env")); err != nil || !strings.Contains(string(b), secret) {
		t.Fatalf(".env in the clone: %q %v", b, err)
	}
	// the same prefix without its key store is refused, naming it
	ok(t, dir, "remote", "add", "nokeys", "s3://"+s3test.Bucket+"/sealed", "--endpoint", srv.Endpoint())
	if r := run(t, dir, "push", "nokeys"); r.code != 2 || !strings.Contains(r.stderr, "is an encrypted remote: add it with --keys s3://"+s3test.KeysBucket+"/sealed") {
		t.Fatalf("push without the key store: %+v", r)
	}
	ok(t, dir, "remote", "remove", "nokeys")

	// the token redacted: shredded at once on the encrypted remote, the
	// plain one named as keeping it; the push carries the redact event
	ok(t, dir, "remote", "add", "plain", "s3://"+s3test.Bucket+"/plain", "--endpoint", srv.Endpoint())
	ok(t, dir, "push", "plain")
	out = ok(t, dir, "redact", "--path", ".env", "--why", "a leaked GitHub token")
	for _, want := range []string{
		"recorded as event 3 (redact)",
		"remote sealed (workspace " + ws + "): shredded the keys of 1 event(s)' arguments and 1 content(s) in 1 key file(s)",
		"remote plain: not shredded: it is not encrypted: its segments keep the arguments and its objects the contents",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("redact does not say %q:\n%s", want, out)
		}
	}
	if out := ok(t, dir, "push", "sealed"); !strings.Contains(out, "pushed events 3-3 to sealed") {
		t.Fatalf("push of the redaction:\n%s", out)
	}
	out = ok(t, dir, "verify", "--remote", "sealed")
	for _, want := range []string{"ok: 1 workspace(s) " + ws + ", 3 events", "but the 2 redacted value(s) below", "redacted: workspace " + ws + ": event 1's arguments, redacted by event 3 (its key shredded)",
		"redacted: workspace " + ws + ": content "} {
		if !strings.Contains(out, want) {
			t.Fatalf("verify --remote after the redaction lacks %q:\n%s", want, out)
		}
	}
	if out := ok(t, elsewhere, "clone", "sealed", "--workspace", ws, "after"); !strings.Contains(out, "redacted: 1 event(s)' arguments and 1 content(s) (their keys were shredded); files not written: .env") {
		t.Fatalf("clone after the redaction:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "after", ".env")); !os.IsNotExist(err) {
		t.Fatalf(".env in the clone after the redaction: %v", err)
	}
	ok(t, filepath.Join(elsewhere, "after"), "verify")
	if out := ok(t, filepath.Join(elsewhere, "after"), "export"); strings.Contains(out, secret) {
		t.Fatalf("the clone's export holds the token:\n%s", out)
	}
}
