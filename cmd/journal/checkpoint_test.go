package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/journal/remote/s3test"
	"github.com/journalfs/journal/snapshot"
)

// signedWorkspace makes a workspace of n edits, a signer key (alice) in a
// config directory of its own, and one checkpoint of all n events. It
// returns the workspace, the verifier key file and the checkpoint file.
func signedWorkspace(t *testing.T, n int) (dir, pub, cp string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	dir = t.TempDir()
	e := engine(t, dir)
	for i := range n {
		apply(t, e, "edit_file", fmt.Sprintf("f%d.txt", i%4), fmt.Sprintf("version %d\n", i))
	}
	e.Close()
	out := ok(t, dir, "key", "generate", "--name", "alice")
	if !strings.Contains(out, "alice+") {
		t.Fatalf("key generate: %s", out)
	}
	pub = filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "journal", "checkpoint.key.pub")
	note := ok(t, dir, "checkpoint")
	if !strings.HasPrefix(note, audit.OriginPrefix) || !strings.Contains(note, fmt.Sprintf("\n%d\n", n)) {
		t.Fatalf("checkpoint: %q", note)
	}
	cp = filepath.Join(t.TempDir(), "checkpoint.txt")
	if err := os.WriteFile(cp, []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, pub, cp
}

// rewrite is the insider's attack on a journal: it reads every event of
// src, changes the list with fn, and writes a new journal of those events
// with the chain recomputed (every hash and prev consistent), the same
// workspace ID and, unless dropCheckpoints, the same checkpoints. It
// returns the new journal's path.
func rewrite(t *testing.T, src string, dropCheckpoints bool, fn func([]*journal.Event) []*journal.Event) string {
	t.Helper()
	j, err := journal.Open(src, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var evs []*journal.Event
	contents := map[snapshot.ID][]byte{}
	var ws string
	var cps []*audit.Checkpoint
	err = j.View(func(tx *journal.Tx) error {
		ws = tx.Workspace()
		if cps, err = audit.Checkpoints(tx); err != nil {
			return err
		}
		return tx.Each(0, false, func(e *journal.Event) error {
			for _, f := range e.Files {
				for _, id := range []snapshot.ID{f.Before, f.After} {
					if !id.IsZero() {
						b, err := snapshot.Bytes(tx.Bolt(), id)
						if err != nil {
							return err
						}
						contents[id] = b
					}
				}
			}
			evs = append(evs, e)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	evs = fn(evs)
	dst := filepath.Join(t.TempDir(), journal.DirName, journal.FileName)
	nj, err := journal.Open(dst, journal.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	err = nj.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			for _, b := range contents {
				if _, err := snapshot.PutTx(tx.Bolt(), b); err != nil {
					return err
				}
			}
			for _, e := range evs {
				c := *e
				if err := tx.Append(&c); err != nil {
					return err
				}
			}
			if err := tx.SetWorkspace(ws); err != nil {
				return err
			}
			if dropCheckpoints {
				return nil
			}
			for _, c := range cps {
				if err := audit.PutCheckpoint(tx, c); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// fails runs verify and checks that it fails with code and says each of want.
func fails(t *testing.T, dir, code string, want []string, args ...string) {
	t.Helper()
	r := run(t, dir, append([]string{"verify"}, args...)...)
	if r.code == 0 {
		t.Fatalf("verify %v passed:\n%s", args, r.stdout)
	}
	if !strings.Contains(r.stderr, code) {
		t.Errorf("verify %v: want %s:\n%s", args, code, r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("verify %v: want %q in:\n%s", args, w, r.stderr)
		}
	}
	if !strings.Contains(r.stderr, "hint: ") {
		t.Errorf("verify %v: no hint:\n%s", args, r.stderr)
	}
}

// TestCheckpoint_Attacks: an insider who rewrites the journal with a
// consistent hash chain is caught by the signed checkpoint, and by an
// earlier export, which names the first event where the histories part.
func TestCheckpoint_Attacks(t *testing.T) {
	dir, pub, cp := signedWorkspace(t, 12)
	jp := filepath.Join(dir, journal.DirName, journal.FileName)
	earlier := filepath.Join(t.TempDir(), "a.jsonl")
	ok(t, dir, "export", "-o", earlier)
	out := ok(t, dir, "verify", "--key", pub)
	if !strings.Contains(out, "1 checkpoint(s) match the Merkle tree (12 events") || !strings.Contains(out, "by alice") {
		t.Fatalf("untouched journal: %s", out)
	}
	ok(t, dir, "verify", "--key", pub, "--checkpoint", cp, "--checkpoint", earlier)
	if out := ok(t, dir, "status"); !strings.Contains(out, "signed    1 checkpoint(s); the newest covers 12 of 12 events") || !strings.Contains(out, "by alice") {
		t.Fatalf("status:\n%s", out)
	}
	out = ok(t, dir, "verify", "--export", earlier, "--key", pub, "--checkpoint", cp)
	if !strings.Contains(out, "2 checkpoint(s) match") {
		t.Fatalf("untouched export: %s", out)
	}

	alter := func(evs []*journal.Event) []*journal.Event {
		// an insider who knows the format: new arguments, salted anew
		evs[4].Args, evs[4].ArgsSalt, evs[4].ArgsDigest = json.RawMessage(`{"note":"nothing to see"}`), nil, nil
		return evs
	}
	drop := func(evs []*journal.Event) []*journal.Event { return append(evs[:4:4], evs[5:]...) }
	reorder := func(evs []*journal.Event) []*journal.Event { evs[4], evs[5] = evs[5], evs[4]; return evs }
	for _, c := range []struct {
		name string
		fn   func([]*journal.Event) []*journal.Event
	}{{"altered", alter}, {"dropped", drop}, {"reordered", reorder}} {
		t.Run(c.name, func(t *testing.T) {
			p := rewrite(t, jp, false, c.fn)
			// the journal's own checkpoint no longer matches
			want := "events 1..12 are not the history the checkpoint of 12 events"
			if c.name == "dropped" {
				want = "the checkpoint of 12 events signed"
			}
			fails(t, dir, "HISTORY_REWRITTEN", []string{want, "by alice"}, "--journal", p, "--key", pub)
			// prove refuses to print a proof that cannot check
			if r := run(t, dir, "--journal", p, "prove", "7"); r.code == 0 || !strings.Contains(r.stderr, "HISTORY_REWRITTEN") {
				t.Errorf("prove on the rewritten journal: %+v", r)
			}
			// the earlier export names the event
			fails(t, dir, "HISTORY_REWRITTEN", []string{"the histories part at event 5"}, "--journal", p, "--key", pub, "--checkpoint", earlier)
			// and so does the rewritten journal's export checked against it
			exp := filepath.Join(t.TempDir(), "b.jsonl")
			ok(t, dir, "--journal", p, "export", "-o", exp)
			fails(t, dir, "HISTORY_REWRITTEN", []string{"the histories part at event 5"}, "--export", exp, "--checkpoint", earlier)
		})
	}
	t.Run("tail cut", func(t *testing.T) {
		p := rewrite(t, jp, false, func(evs []*journal.Event) []*journal.Event { return evs[:9] })
		fails(t, dir, "HISTORY_REWRITTEN", []string{"it lost 3 events (dropped, or the tail from event 10 cut)"}, "--journal", p, "--key", pub)
		// the checkpoints removed as well: the key finds none, the earlier checkpoint still sees the cut
		p = rewrite(t, jp, true, func(evs []*journal.Event) []*journal.Event { return evs[:9] })
		fails(t, dir, "CHECKPOINT_INVALID", []string{"no checkpoint signed by the keys given"}, "--journal", p, "--key", pub)
		fails(t, dir, "HISTORY_REWRITTEN", []string{"the tail from event 10 cut"}, "--journal", p, "--checkpoint", cp)
		fails(t, dir, "HISTORY_REWRITTEN", []string{"the tail from event 10 was cut"}, "--journal", p, "--checkpoint", earlier)
	})
	t.Run("regenerated", func(t *testing.T) {
		// deleted and made anew through the engine, as many events, another history
		other := t.TempDir()
		e := engine(t, other)
		for i := range 12 {
			apply(t, e, "edit_file", fmt.Sprintf("f%d.txt", i%4), fmt.Sprintf("other %d\n", i))
		}
		e.Close()
		op := filepath.Join(other, journal.DirName, journal.FileName)
		fails(t, dir, "CHECKPOINT_INVALID", []string{"no checkpoint signed"}, "--journal", op, "--key", pub)
		// with this workspace's ID copied in, the earlier checkpoint's root and export catch it at the first event
		withWS(t, op, jp)
		p := op
		fails(t, dir, "HISTORY_REWRITTEN", []string{"events 1..12 are not the history"}, "--journal", p, "--checkpoint", cp)
		fails(t, dir, "HISTORY_REWRITTEN", []string{"the histories part at event 1"}, "--journal", p, "--checkpoint", earlier)
	})
	t.Run("forged with another key", func(t *testing.T) {
		p := rewrite(t, jp, true, alter)
		mallory := filepath.Join(t.TempDir(), "mallory.key")
		ok(t, dir, "key", "generate", "--name", "mallory", "--out", mallory)
		ok(t, dir, "--journal", p, "checkpoint", "--key", mallory)
		ok(t, dir, "--journal", p, "verify", "--key", mallory+".pub") // mallory's own view passes
		fails(t, dir, "CHECKPOINT_INVALID", []string{"signed by mallory, none of the keys given"}, "--journal", p, "--key", pub)
		exp := filepath.Join(t.TempDir(), "forged.jsonl")
		ok(t, dir, "--journal", p, "export", "-o", exp)
		fails(t, dir, "CHECKPOINT_INVALID", []string{"signed by mallory"}, "--export", exp, "--key", pub)
	})
	t.Run("another workspace", func(t *testing.T) {
		ocp := otherCheckpoint(t, 12)
		fails(t, dir, "CHECKPOINT_INVALID", []string{"a checkpoint of another workspace"}, "--key", pub, "--checkpoint", ocp)
		fails(t, dir, "CHECKPOINT_INVALID", []string{"a checkpoint of another workspace"}, "--export", earlier, "--key", pub, "--checkpoint", ocp)
	})
}

// otherCheckpoint signs, with the key already in XDG_CONFIG_HOME, a
// checkpoint of another workspace of n events (the same user's) and
// returns its file.
func otherCheckpoint(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	e := engine(t, dir)
	for i := range n {
		apply(t, e, "edit_file", "g.txt", fmt.Sprintf("other workspace %d\n", i))
	}
	e.Close()
	note := ok(t, dir, "checkpoint")
	cp := filepath.Join(t.TempDir(), "other-checkpoint.txt")
	if err := os.WriteFile(cp, []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
	return cp
}

// withWS gives the journal at p the workspace ID of the journal at from.
func withWS(t *testing.T, p, from string) {
	t.Helper()
	var ws string
	j, err := journal.Open(from, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.View(func(tx *journal.Tx) error { ws = tx.Workspace(); return nil }); err != nil {
		t.Fatal(err)
	}
	nj, err := journal.Open(p, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = nj.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error { return tx.SetWorkspace(ws) })
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkpointPoll is serve's (checkpoint.go).
const checkpointPoll = time.Second

// TestServe_Checkpoints: serve --checkpoint-every 5 signs in the background
// as events are sealed (by any process), and once more when it exits.
func TestServe_Checkpoints(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "0\n")
	ok(t, dir, "key", "generate")
	pub := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "journal", "checkpoint.key.pub")
	if r := run(t, dir, "serve", "--checkpoint-every", "-1"); r.code != 2 || !strings.Contains(r.stderr, "--checkpoint-every -1") {
		t.Fatalf("a negative cadence: %+v", r)
	}
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "--checkpoint-every", "5", "--lsp=false", "--watch=false")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "JOURNAL_ADDR_FILE="+filepath.Join(t.TempDir(), "addr"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 6; i++ {
		apply(t, e, "edit_file", "a.txt", fmt.Sprintf("%d\n", i))
	}
	var out string
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(out, "checkpoint(s) match"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no checkpoint while serving:\n%s\nserve: %s", out, stderr.String())
		}
		out = run(t, dir, "verify", "--key", pub).stdout
	}
	if !strings.Contains(out, "1 checkpoint(s) match the Merkle tree (6 events") {
		t.Fatalf("while serving:\n%s", out)
	}
	for i := 6; i < 9; i++ { // fewer than 5 more: no checkpoint until serve exits
		apply(t, e, "edit_file", "a.txt", fmt.Sprintf("%d\n", i))
	}
	e.Close()
	time.Sleep(2 * checkpointPoll)
	if out := ok(t, dir, "verify", "--key", pub); !strings.Contains(out, "the newest checkpoint covers 6 of 9 events") {
		t.Fatalf("3 events later:\n%s", out)
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	}
	out = ok(t, dir, "verify", "--key", pub)
	if !strings.Contains(out, "2 checkpoint(s) match the Merkle tree (9 events") || strings.Contains(out, "newest checkpoint covers") {
		t.Fatalf("after serve exited:\n%s", out)
	}
}

// TestCheckpoint_Remote: push sends the checkpoints after the events they
// cover; verify --remote checks them; a local journal rewritten after the
// push fails verify --against the remote at the first event it changed.
func TestCheckpoint_Remote(t *testing.T) {
	srv := s3test.Start(t)
	dir, pub, _ := signedWorkspace(t, 12)
	ok(t, dir, "remote", "add", "team", "s3://"+s3test.Bucket+"/cp", "--endpoint", srv.Endpoint())
	if out := ok(t, dir, "push", "team"); !strings.Contains(out, "sent 1 signed checkpoint(s)") {
		t.Fatalf("push:\n%s", out)
	}
	if out := ok(t, dir, "push", "team"); strings.Contains(out, "checkpoint") {
		t.Fatalf("second push sent checkpoints again:\n%s", out)
	}
	if out := ok(t, dir, "verify", "--remote", "team", "--key", pub); !strings.Contains(out, "ok: 1 checkpoint(s) match their workspace's Merkle tree; each signed") {
		t.Fatalf("verify --remote:\n%s", out)
	}
	if out := ok(t, dir, "verify", "--against", "team", "--key", pub); !strings.Contains(out, "2 checkpoint(s) match") {
		t.Fatalf("verify --against:\n%s", out)
	}
	jp := filepath.Join(dir, journal.DirName, journal.FileName)
	var ws string
	j, err := journal.Open(jp, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	j.View(func(tx *journal.Tx) error { ws = tx.Workspace(); return nil })
	exp := filepath.Join(t.TempDir(), "remote.jsonl")
	ok(t, dir, "export", "--remote", "team", "--workspace", ws, "-o", exp)
	if out := ok(t, dir, "verify", "--export", exp, "--key", pub); !strings.Contains(out, "1 checkpoint(s) match") {
		t.Fatalf("the remote's export:\n%s", out)
	}
	// a clone carries the checkpoints
	clone := filepath.Join(t.TempDir(), "clone")
	ok(t, dir, "clone", "team", "--workspace", ws, clone)
	if out := ok(t, clone, "verify", "--key", pub, "--against", "team"); !strings.Contains(out, "2 checkpoint(s) match the Merkle tree (12 events") {
		t.Fatalf("verify of the clone:\n%s", out)
	}
	p := rewrite(t, jp, true, func(evs []*journal.Event) []*journal.Event {
		evs[6].Args, evs[6].ArgsSalt, evs[6].ArgsDigest = json.RawMessage(`{"note":"rewritten after the push"}`), nil, nil
		return evs
	})
	fails(t, dir, "HISTORY_REWRITTEN", []string{"the histories part at event 7", "remote team's copy"}, "--journal", p, "--against", "team")
}
