package main_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// consistency is `journal prove --consistency`'s output as docs/VERIFY.md
// describes it, decoded without the product's packages.
type consistency struct {
	OldSize       int64    `json:"old_size"`
	OldRoot       string   `json:"old_root"`
	NewSize       int64    `json:"new_size"`
	NewRoot       string   `json:"new_root"`
	Proof         []string `json:"proof"`
	OldCheckpoint string   `json:"old_checkpoint"`
	NewCheckpoint string   `json:"new_checkpoint"`
}

// signedTree opens a signed checkpoint with vkey and returns its origin,
// size and root, from the note's text as docs/VERIFY.md lays it out.
func signedTree(msg, vkey string) (origin string, size int64, root []byte, err error) {
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return "", 0, nil, err
	}
	n, err := note.Open([]byte(msg), note.VerifierList(v))
	if err != nil {
		return "", 0, nil, fmt.Errorf("signature: %w", err)
	}
	lines := strings.Split(n.Text, "\n")
	if size, err = strconv.ParseInt(lines[1], 10, 64); err != nil {
		return "", 0, nil, err
	}
	if root, err = base64.StdEncoding.DecodeString(lines[2]); err != nil || len(root) != 32 {
		return "", 0, nil, fmt.Errorf("root %q", lines[2])
	}
	return lines[0], size, root, nil
}

// auditorConsistency is docs/VERIFY.md's "Two checkpoints", written from
// the page with the standard library and the note library: both
// signatures, one origin, the auditor's own earlier checkpoint (mine) the
// proof's old one, and the proof (RFC 9162 §2.1.4.2, by hand) leading from
// the old root to the new. It also asks tlog to agree.
func auditorConsistency(p consistency, vkey, mine string) error {
	oo, m, oldRoot, err := signedTree(p.OldCheckpoint, vkey)
	if err != nil {
		return err
	}
	no, n, newRoot, err := signedTree(p.NewCheckpoint, vkey)
	if err != nil {
		return err
	}
	mo, ms, mr, err := signedTree(mine, vkey)
	if err != nil {
		return err
	}
	if oo != no || mo != oo || ms != m || !bytes.Equal(mr, oldRoot) {
		return errors.New("not the auditor's checkpoint, or two workspaces")
	}
	var path [][]byte
	for _, s := range p.Proof {
		h, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(h) != 32 {
			return fmt.Errorf("proof hash %q", s)
		}
		path = append(path, h)
	}
	node := func(l, r []byte) []byte {
		h := sha256.Sum256(append(append([]byte{1}, l...), r...))
		return h[:]
	}
	switch {
	case m < 1 || m > n:
		return fmt.Errorf("sizes %d, %d", m, n)
	case m == n:
		if len(path) != 0 || !bytes.Equal(oldRoot, newRoot) {
			return errors.New("equal sizes, other roots")
		}
		return nil
	}
	if m&(m-1) == 0 { // a power of two: the old root is the first node
		path = append([][]byte{oldRoot}, path...)
	}
	if len(path) == 0 {
		return errors.New("empty proof")
	}
	fn, sn := m-1, n-1
	for fn&1 == 1 {
		fn, sn = fn>>1, sn>>1
	}
	fr, sr := path[0], path[0]
	for _, c := range path[1:] {
		if sn == 0 {
			return errors.New("proof too long")
		}
		if fn&1 == 1 || fn == sn {
			fr, sr = node(c, fr), node(c, sr)
			for fn&1 == 0 && fn != 0 {
				fn, sn = fn>>1, sn>>1
			}
		} else {
			sr = node(sr, c)
		}
		fn, sn = fn>>1, sn>>1
	}
	if sn != 0 || !bytes.Equal(fr, oldRoot) || !bytes.Equal(sr, newRoot) {
		return errors.New("the proof does not lead from the old root to the new")
	}
	tp := make(tlog.TreeProof, len(p.Proof))
	for i, s := range p.Proof {
		h, _ := base64.StdEncoding.DecodeString(s)
		tp[i] = tlog.Hash(h)
	}
	if err := tlog.CheckTree(tp, n, tlog.Hash(newRoot), m, tlog.Hash(oldRoot)); err != nil {
		return fmt.Errorf("tlog disagrees: %w", err)
	}
	return nil
}

// TestProve_Consistency: checkpoints at 1000, 1024 and 1300 events (a
// tile's worth past a power of two, a partial tile); `journal prove
// --consistency` between them, by file or by size, is checked by the
// auditor's code and by `journal verify --consistency` without a journal;
// an altered proof, another checkpoint, or a journal rewritten after the
// earlier checkpoint fail, each with a code and a hint.
func TestProve_Consistency(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	dir := t.TempDir()
	ok(t, dir, "key", "generate", "--name", "alice")
	pub := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "journal", "checkpoint.key.pub")
	b, _ := os.ReadFile(pub)
	vkey := strings.TrimSpace(string(b))
	files := map[int]string{}
	for _, n := range []int{1000, 1024, 1300} {
		bigJournalFrom(t, dir, prevSize(files), n-prevSize(files))
		files[n] = filepath.Join(t.TempDir(), fmt.Sprintf("cp%d.txt", n))
		os.WriteFile(files[n], []byte(ok(t, dir, "checkpoint")), 0o644)
	}
	proofs := map[string]consistency{}
	for _, c := range [][]string{
		{files[1000]}, {"1000", "1300"}, {files[1024], "1300"}, {"1000", files[1024]}, {"1300"}, {"1024", "1024"},
	} {
		var p consistency
		out := ok(t, dir, append([]string{"prove", "--key", pub, "--consistency"}, c...)...)
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("prove --consistency %v: %v\n%s", c, err, out)
		}
		mine := files[int(p.OldSize)]
		if err := auditorConsistency(p, vkey, string(readBytes(t, mine))); err != nil {
			t.Fatalf("prove --consistency %v (%d to %d): %v", c, p.OldSize, p.NewSize, err)
		}
		pf := filepath.Join(t.TempDir(), "proof.json")
		os.WriteFile(pf, []byte(out), 0o644)
		if out := ok(t, t.TempDir(), "verify", "--consistency", pf, "--checkpoint", mine, "--key", pub); !strings.Contains(out,
			fmt.Sprintf("ok: the tree of %d events", p.NewSize)) || !strings.Contains(out, fmt.Sprintf("extends the tree of %d events", p.OldSize)) {
			t.Fatalf("verify --consistency:\n%s", out)
		}
		proofs[strings.Join(c, " ")] = p
	}
	if p := proofs[files[1000]]; p.OldSize != 1000 || p.NewSize != 1300 || len(p.Proof) == 0 {
		t.Fatalf("NEW defaults to the newest: %d to %d", p.OldSize, p.NewSize)
	}
	if a, b := proofs[files[1000]], proofs["1000 1300"]; strings.Join(a.Proof, ",") != strings.Join(b.Proof, ",") {
		t.Fatal("by file and by size: two proofs")
	}

	// an altered proof, or another earlier checkpoint, fails the auditor and verify
	p := proofs["1000 1300"]
	p.Proof = append([]string(nil), p.Proof...)
	p.Proof[1] = proofs[files[1024]+" 1300"].Proof[0]
	if err := auditorConsistency(p, vkey, string(readBytes(t, files[1000]))); err == nil {
		t.Fatal("an altered proof passed the auditor")
	}
	altered, _ := json.Marshal(p)
	pf := filepath.Join(t.TempDir(), "altered.json")
	os.WriteFile(pf, altered, 0o644)
	failsWith(t, t.TempDir(), "HISTORY_REWRITTEN", "does not lead from the root of 1000 events", "verify", "--consistency", pf, "--key", pub)
	good, _ := json.Marshal(proofs["1000 1300"])
	os.WriteFile(pf, good, 0o644)
	failsWith(t, t.TempDir(), "HISTORY_REWRITTEN", "the earlier checkpoint of 1024 events", "verify", "--consistency", pf, "--checkpoint", files[1024], "--key", pub)
	mallory := filepath.Join(t.TempDir(), "mallory")
	ok(t, dir, "key", "generate", "--name", "alice", "--out", mallory)
	failsWith(t, t.TempDir(), "CHECKPOINT_INVALID", "old checkpoint", "verify", "--consistency", pf, "--key", mallory+".pub")

	// bad arguments
	failsWith(t, dir, "", "the journal has no checkpoint of 999 events", "prove", "--consistency", "999")
	failsWith(t, dir, "", "give the smaller tree first", "prove", "--consistency", "1300", "1000")
	failsWith(t, dir, "", "which event?", "prove")
	failsWith(t, dir, "CHECKPOINT_INVALID", "another workspace", "prove", "--consistency", otherCheckpoint(t, 3))

	// the journal rewritten after the checkpoint at 1000 (its checkpoints kept): no proof is printed
	jp := filepath.Join(dir, journal.DirName, journal.FileName)
	rw := rewrite(t, jp, false, func(evs []*journal.Event) []*journal.Event {
		evs[500].Args, evs[500].ArgsSalt, evs[500].ArgsDigest = json.RawMessage(`{"note":"nothing to see"}`), nil, nil // salted anew
		return evs
	})
	failsWith(t, dir, "HISTORY_REWRITTEN", "the checkpoint of 1000 events signed", "--journal", rw, "prove", "--consistency", files[1000])
}

// prevSize is the largest key of files (0 when empty).
func prevSize(files map[int]string) int {
	m := 0
	for n := range files {
		m = max(m, n)
	}
	return m
}

func readBytes(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// failsWith runs the binary and wants a failure whose stderr has code
// (exit status 2 and no code when code is ""), want and a hint.
func failsWith(t *testing.T, dir, code, want string, args ...string) {
	t.Helper()
	r := run(t, dir, args...)
	switch {
	case r.code == 0:
		t.Errorf("journal %v passed:\n%s", args, r.stdout)
	case code == "" && r.code != 2, code != "" && !strings.Contains(r.stderr, "journal: "+code+": "):
		t.Errorf("journal %v: exit %d, want code %q:\n%s", args, r.code, code, r.stderr)
	case !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "hint: "):
		t.Errorf("journal %v: want %q and a hint in:\n%s", args, want, r.stderr)
	}
}
