package main_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/cli")

// bin is the journal binary built once by TestMain.
var bin string

// repoRoot is the module root (two levels up).
var repoRoot, _ = filepath.Abs("../..")

func TestMain(m *testing.M) {
	if b := os.Getenv(agentBinEnv); b != "" {
		os.Exit(actAsAgent(b))
	}
	flag.Parse()
	bin = filepath.Join(repoRoot, "tmp", "journal")
	build := exec.Command("go", "build", "-o", bin, "./cmd/journal")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	if path10k != "" {
		os.RemoveAll(filepath.Dir(filepath.Dir(path10k)))
	}
	os.Exit(code)
}

// agent is the actor of the test workspaces' events.
var agent = journal.Actor{Kind: "mcp", Name: "claude", Version: "1.0", Session: "s1", Origin: "stdio"}

// person is the actor of reverts made by the tests through the engine.
var person = journal.Actor{Kind: "cli", User: "alice", Host: "box", Origin: "cli"}

// engine opens the replay engine on dir, creating the journal.
func engine(t testing.TB, dir string) *replay.Engine {
	t.Helper()
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: agent})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// apply applies one batch of (path, content) pairs; a nil content deletes the file.
func apply(t testing.TB, e *replay.Engine, tool string, files ...any) uint64 {
	t.Helper()
	b := &replay.Batch{Tool: tool, Args: []byte(`{"note":"test"}`)}
	for i := 0; i < len(files); i += 2 {
		c := replay.Change{Path: files[i].(string)}
		if files[i+1] == nil {
			c.Delete = true
		} else {
			c.Data = []byte(files[i+1].(string))
		}
		b.Changes = append(b.Changes, c)
	}
	res, err := e.Apply(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	return res.Seq
}

// basicWorkspace is the golden workspace: creates, an edit, a delete, a
// revert by a person, and a file changed outside the journal.
func basicWorkspace(t testing.TB) string {
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "one\ntwo\nthree\n", "src/b.go", "package b\n")
	apply(t, e, "edit_file", "a.txt", "one\n2\nthree\nfour\n")
	apply(t, e, "delete_file", "src/b.go", nil)
	apply(t, e, "write_file", "notes.md", "# notes\n")
	if _, err := e.Revert(context.Background(), 2, replay.RevertOptions{Actor: &person}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# notes\nedited by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// result is what one run of the binary did.
type result struct {
	stdout, stderr string
	code           int
}

// run runs the binary in dir with a stable environment (UTC, no colour, no pager).
func run(t testing.TB, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	env := []string{"JOURNAL_TZ=UTC", "NO_COLOR=1", "PAGER=cat"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "JOURNAL_") && !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "PAGER=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	return runCmd(t, cmd)
}

// runCmd runs cmd and returns its output and exit status; a command that
// cannot run at all fails the test.
func runCmd(t testing.TB, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// ok runs the binary and fails the test unless it exits 0.
func ok(t testing.TB, dir string, args ...string) string {
	t.Helper()
	r := run(t, dir, args...)
	if r.code != 0 {
		t.Fatalf("journal %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// Arguments' salts are random, and so are their digests.
var (
	saltRE   = regexp.MustCompile(`"args_salt":"[A-Za-z0-9+/=]+"`)
	digestRE = regexp.MustCompile(`"args_digest":"[0-9a-f]{64}"`)
)

var timeRE = regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?( UTC|Z)?`)

// normalize makes output stable: times become <TIME>, event hashes <HASH n>
// (n = the event), salts <SALT> and their digests <DIGEST>, the workspace
// directory $WS.
func normalize(t testing.TB, dir, s string) string {
	t.Helper()
	j, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var pairs []string
	j.View(func(tx *journal.Tx) error {
		return tx.Each(0, false, func(e *journal.Event) error {
			if !e.Hash.IsZero() {
				n := fmt.Sprintf("<HASH %d>", e.Seq)
				pairs = append(pairs, e.Hash.String(), n, e.Hash.Short(), n)
			}
			return nil
		})
	})
	s = strings.NewReplacer(pairs...).Replace(s)
	s = timeRE.ReplaceAllString(s, "<TIME>")
	s = saltRE.ReplaceAllString(s, `"args_salt":"<SALT>"`)
	s = digestRE.ReplaceAllString(s, `"args_digest":"<DIGEST>"`)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		s = strings.ReplaceAll(s, real, "$WS")
	}
	s = strings.ReplaceAll(s, dir, "$WS")
	// the binary's version, in an export's head (JSON lines and CSV)
	s = regexp.MustCompile(`"producer":"journal [^"]*"`).ReplaceAllString(s, `"producer":"journal <VERSION>"`)
	s = regexp.MustCompile(`(?m)^head,(\d+),,,journal,[^,]*,`).ReplaceAllString(s, "head,$1,,,journal,<VERSION>,")
	// whether status walked the file or took its stamp's word depends on
	// the clock (the stamp's margin)
	s = regexp.MustCompile(`(?m)^structure ok .*$`).ReplaceAllString(s, "structure ok <CHECKED>")
	return regexp.MustCompile(`(?m)^size .*$`).ReplaceAllString(s, "size      <SIZE>")
}

// golden compares got with testdata/cli/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join(repoRoot, "testdata", "cli", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run `go test ./cmd/journal -run %s -update` to create it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (rerun with -update if intended)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}
