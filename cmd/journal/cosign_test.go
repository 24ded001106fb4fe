package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote/s3test"
)

// TestCheckpoint_Witness: a witness countersigns the signer's checkpoint
// (checkpoint --cosign); verify with both keys and --quorum 2 wants both
// signatures, in the journal and in its export, and names who signed when
// one is missing; a witness does not cosign a rewritten history; the
// auditor's check of a proof still passes with the signer's key alone.
func TestCheckpoint_Witness(t *testing.T) {
	dir, pub, _ := signedWorkspace(t, 12)
	jp := filepath.Join(dir, journal.DirName, journal.FileName)
	witness := filepath.Join(t.TempDir(), "bob")
	ok(t, dir, "key", "generate", "--name", "bob", "--out", witness)
	wpub := witness + ".pub"
	both := []string{"--key", pub, "--key", wpub}

	failsWith(t, dir, "CHECKPOINT_INVALID", "signed by 1 of the keys given (alice), the quorum is 2", append([]string{"verify", "--quorum", "2"}, both...)...)
	note := ok(t, dir, "checkpoint", "--cosign", witness)
	if !strings.Contains(note, "\n— alice ") || !strings.Contains(note, "\n— bob ") || !strings.Contains(note, "\n12\n") {
		t.Fatalf("cosigned checkpoint:\n%s", note)
	}
	if out := ok(t, dir, append([]string{"verify", "--quorum", "2"}, both...)...); !strings.Contains(out, "1 checkpoint(s) match") || !strings.Contains(out, "alice, bob") {
		t.Fatalf("verify with a quorum of 2:\n%s", out)
	}
	ok(t, dir, "verify", "--key", wpub) // the witness's key alone
	exp := filepath.Join(t.TempDir(), "a.jsonl")
	ok(t, dir, "export", "-o", exp)
	ok(t, dir, append([]string{"verify", "--export", exp, "--quorum", "2"}, both...)...)
	failsWith(t, dir, "CHECKPOINT_INVALID", "the quorum is 3", append([]string{"verify", "--export", exp, "--quorum", "3"}, both...)...)
	// a consistency proof between the signer's first checkpoint and a cosigned later one: the quorum holds for both only once both are cosigned
	e := engine(t, dir)
	apply(t, e, "edit_file", "f0.txt", "later\n")
	e.Close()
	ok(t, dir, "checkpoint")
	pf := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(pf, []byte(ok(t, dir, "prove", "--consistency", "12")), 0o644)
	failsWith(t, t.TempDir(), "CHECKPOINT_INVALID", "the quorum is 2", append([]string{"verify", "--consistency", pf, "--quorum", "2"}, both...)...)
	ok(t, dir, "checkpoint", "--cosign", witness)
	os.WriteFile(pf, []byte(ok(t, dir, "prove", "--consistency", "12")), 0o644)
	ok(t, t.TempDir(), append([]string{"verify", "--consistency", pf, "--quorum", "2"}, both...)...)
	// cosigning again replaces the witness's signature, not adds one
	if again := ok(t, dir, "checkpoint", "--cosign", witness, "12"); strings.Count(again, "— bob ") != 1 || strings.Count(again, "— alice ") != 1 {
		t.Fatalf("cosigned twice:\n%s", again)
	}
	// the prove output checks with the signer's key alone, the witness's signature beside it
	var p proof
	if err := json.Unmarshal([]byte(ok(t, dir, "prove", "5", "--key", pub)), &p); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(pub)
	if _, err := auditorCheck(p, strings.TrimSpace(string(b))); err != nil {
		t.Fatalf("auditor, signer's key: %v", err)
	}

	// bad inputs
	failsWith(t, dir, "", "--quorum 0", "verify", "--quorum", "0", "--key", pub)
	failsWith(t, dir, "", "--quorum 2", "verify", "--quorum", "2")
	failsWith(t, dir, "", "the journal has no checkpoint of 99 events", "checkpoint", "--cosign", witness, "99")
	failsWith(t, dir, "KEY_INVALID", "does not exist", "checkpoint", "--cosign", filepath.Join(dir, "nokey"))
	failsWith(t, dir, "", "a CHECKPOINT goes with --cosign", "checkpoint", "12")

	// a rewritten journal, its checkpoint kept: the witness refuses
	rw := rewrite(t, jp, false, func(evs []*journal.Event) []*journal.Event {
		evs[3].Args, evs[3].ArgsSalt, evs[3].ArgsDigest = json.RawMessage(`{"note":"nothing to see"}`), nil, nil // salted anew
		return evs
	})
	failsWith(t, dir, "HISTORY_REWRITTEN", "no longer hash to the root", "--journal", rw, "checkpoint", "--cosign", witness)
}

// TestCheckpoint_WitnessRemote: a witness cosigns a checkpoint already
// pushed; the next push sends the cosigned copy beside the first (objects
// are never overwritten), and the remote's checkpoints carry both
// signatures: verify --remote and --against with --quorum 2 pass, and so
// does a clone's verify.
func TestCheckpoint_WitnessRemote(t *testing.T) {
	srv := s3test.Start(t)
	dir, pub, _ := signedWorkspace(t, 12)
	witness := filepath.Join(t.TempDir(), "bob")
	ok(t, dir, "key", "generate", "--name", "bob", "--out", witness)
	both := []string{"--key", pub, "--key", witness + ".pub", "--quorum", "2"}
	ok(t, dir, "remote", "add", "team", "s3://"+s3test.Bucket+"/w", "--endpoint", srv.Endpoint())
	ok(t, dir, "push", "team")
	if r := run(t, dir, append([]string{"verify", "--remote", "team"}, both...)...); r.code == 0 || !strings.Contains(r.stdout+r.stderr, "the quorum is 2") {
		t.Fatalf("verify --remote, quorum 2, before the cosign: %+v", r)
	}
	ok(t, dir, "checkpoint", "--cosign", witness)
	if out := ok(t, dir, "push", "team"); !strings.Contains(out, "sent 1 signed checkpoint(s)") {
		t.Fatalf("push of the cosigned copy:\n%s", out)
	}
	if out := ok(t, dir, "push", "team"); strings.Contains(out, "checkpoint") {
		t.Fatalf("a third push sent checkpoints again:\n%s", out)
	}
	if out := ok(t, dir, append([]string{"verify", "--remote", "team"}, both...)...); !strings.Contains(out, "ok: 1 checkpoint(s) match") {
		t.Fatalf("verify --remote, quorum 2:\n%s", out)
	}
	ok(t, dir, append([]string{"verify", "--against", "team"}, both...)...)
	j, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ws string
	j.View(func(tx *journal.Tx) error { ws = tx.Workspace(); return nil })
	clone := filepath.Join(t.TempDir(), "clone")
	ok(t, dir, "clone", "team", "--workspace", ws, clone)
	ok(t, clone, append([]string{"verify"}, both...)...)
}
