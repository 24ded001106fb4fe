package main_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zeebo/blake3"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// proof is `journal prove`'s output as docs/VERIFY.md describes it, decoded
// without the product's packages.
type proof struct {
	Seq        uint64   `json:"seq"`
	Event      string   `json:"event"`
	Hash       string   `json:"hash"`
	LeafIndex  int64    `json:"leaf_index"`
	TreeSize   int64    `json:"tree_size"`
	Proof      []string `json:"proof"`
	Checkpoint string   `json:"checkpoint"`
	Args       string   `json:"args"`
	ArgsSalt   string   `json:"args_salt"`
}

// auditorCheck is docs/VERIFY.md's algorithm, written from the page with
// the standard library, blake3 and the note library only: the signature,
// the record's hash, and the inclusion of its leaf under the signed root
// (RFC 6962 §2.1.1, by hand); it returns the checked root. It also asks
// tlog, the library the product uses, to agree.
func auditorCheck(p proof, vkey string) ([]byte, error) {
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, err
	}
	n, err := note.Open([]byte(p.Checkpoint), note.VerifierList(v))
	if err != nil {
		return nil, fmt.Errorf("signature: %w", err)
	}
	lines := strings.Split(n.Text, "\n")
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size != p.TreeSize {
		return nil, fmt.Errorf("checkpoint size %q, proof says %d", lines[1], p.TreeSize)
	}
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(root) != 32 {
		return nil, fmt.Errorf("root %q", lines[2])
	}
	chain := blake3.Sum256([]byte(p.Event))
	if hex.EncodeToString(chain[:]) != p.Hash {
		return nil, fmt.Errorf("blake3 of the record is %x, not %s", chain, p.Hash)
	}
	var rec struct {
		Seq        uint64 `json:"seq"`
		ArgsDigest string `json:"args_digest"`
	}
	if err := json.Unmarshal([]byte(p.Event), &rec); err != nil || rec.Seq != p.Seq {
		return nil, fmt.Errorf("record names event %d, not %d", rec.Seq, p.Seq)
	}
	// the arguments, when given, are those the record's digest commits to
	if p.Args != "" {
		salt, err := base64.StdEncoding.DecodeString(p.ArgsSalt)
		if err != nil || rec.ArgsDigest == "" {
			return nil, fmt.Errorf("arguments without a salt (%q) or a digest (%q)", p.ArgsSalt, rec.ArgsDigest)
		}
		if d := blake3.Sum256(append(salt, p.Args...)); hex.EncodeToString(d[:]) != rec.ArgsDigest {
			return nil, fmt.Errorf("blake3(salt ‖ args) is %x, the record's digest %s", d, rec.ArgsDigest)
		}
	}
	leaf := sha256.Sum256(append([]byte{0}, chain[:]...))
	var path [][]byte
	for _, s := range p.Proof {
		h, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(h) != 32 {
			return nil, fmt.Errorf("proof hash %q", s)
		}
		path = append(path, h)
	}
	node := func(l, r []byte) []byte {
		h := sha256.Sum256(append(append([]byte{1}, l...), r...))
		return h[:]
	}
	// RFC 9162 §2.1.3.2: walk up from the leaf
	fn, sn, r := p.LeafIndex, p.TreeSize-1, leaf[:]
	if fn >= p.TreeSize {
		return nil, fmt.Errorf("leaf %d outside a tree of %d", fn, p.TreeSize)
	}
	for _, h := range path {
		if sn == 0 {
			return nil, fmt.Errorf("proof too long")
		}
		if fn%2 == 1 || fn == sn {
			r = node(h, r)
			for fn%2 == 0 && fn != 0 {
				fn, sn = fn>>1, sn>>1
			}
		} else {
			r = node(r, h)
		}
		fn, sn = fn>>1, sn>>1
	}
	if sn != 0 || !bytes.Equal(r, root) {
		return nil, fmt.Errorf("the proof does not lead to the signed root")
	}
	tp := make(tlog.RecordProof, len(path))
	for i, h := range path {
		tp[i] = tlog.Hash(h)
	}
	if err := tlog.CheckRecord(tp, p.TreeSize, tlog.Hash(root), p.LeafIndex, tlog.Hash(leaf)); err != nil {
		return nil, fmt.Errorf("tlog disagrees: %w", err)
	}
	return root, nil
}

// TestProve_AuditorChecksWithoutTheJournal: `journal prove` of events across
// a journal of 1,000 events (tiles stored, a partial last tile) is checked
// by the auditor's code; a record changed by one byte, another key, or
// another event's proof fails it.
func TestProve_AuditorChecksWithoutTheJournal(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	dir := t.TempDir()
	bigJournal(t, dir, 1000)
	ok(t, dir, "key", "generate", "--name", "alice")
	pub, err := os.ReadFile(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "journal", "checkpoint.key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	vkey := strings.TrimSpace(string(pub))
	ok(t, dir, "checkpoint")
	var proofs []proof
	for _, seq := range []int{1, 2, 256, 257, 777, 1000} {
		var p proof
		out := ok(t, dir, "prove", strconv.Itoa(seq), "--key", filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "journal", "checkpoint.key.pub"))
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("prove %d: %v\n%s", seq, err, out)
		}
		if _, err := auditorCheck(p, vkey); err != nil {
			t.Fatalf("prove %d: %v", seq, err)
		}
		proofs = append(proofs, p)
	}
	if proofs[3].Args == "" {
		t.Fatalf("prove 257 gives no arguments: %+v", proofs[3])
	}
	p := proofs[3]
	p.Args = strings.Replace(p.Args, "}", `,"x":1}`, 1)
	if _, err := auditorCheck(p, vkey); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Fatalf("altered arguments: %v", err)
	}
	p = proofs[3]
	p.Event = strings.Replace(p.Event, `"seq":257`, `"seq":258`, 1)
	if _, err := auditorCheck(p, vkey); err == nil {
		t.Error("an altered record passed")
	}
	p = proofs[3]
	p.LeafIndex = proofs[4].LeafIndex
	if _, err := auditorCheck(p, vkey); err == nil {
		t.Error("a record passed at another leaf")
	}
	p = proofs[3]
	p.Proof = proofs[4].Proof
	if _, err := auditorCheck(p, vkey); err == nil {
		t.Error("a record passed with another event's proof")
	}
	_, other, _ := note.GenerateKey(nil, "alice")
	if _, err := auditorCheck(proofs[0], other); err == nil {
		t.Error("a checkpoint passed under another key of the same name")
	}
	// after more events and no new checkpoint, the newest event cannot be proven yet
	r := run(t, dir, "prove", "1001")
	if r.code == 0 || !strings.Contains(r.stderr, "no event 1001") || !strings.Contains(r.stderr, "hint:") {
		t.Fatalf("prove past the end: %+v", r)
	}
}

// TestCheckpoint_SSHKey: a checkpoint signed with the user's SSH Ed25519 key
// verifies with an allowed-signers file in journal verify, and with
// ssh-keygen -Y verify from journal prove's output alone; another key's
// allowed-signers file fails verify.
func TestCheckpoint_SSHKey(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen is not installed (apt-get install openssh-client)")
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	dir := t.TempDir()
	bigJournal(t, dir, 300)
	keys := t.TempDir()
	allowed := map[string]string{}
	for _, who := range []string{"alice", "mallory"} {
		p := filepath.Join(keys, who)
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", who+"@example.com", "-f", p).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
		pub, _ := os.ReadFile(p + ".pub")
		f := strings.Fields(string(pub))
		allowed[who] = filepath.Join(keys, who+".allowed")
		os.WriteFile(allowed[who], []byte("alice@example.com "+f[0]+" "+f[1]+"\n"), 0o644)
	}
	ok(t, dir, "checkpoint", "--key", filepath.Join(keys, "alice"))
	if out := ok(t, dir, "verify", "--key", allowed["alice"]); !strings.Contains(out, "by alice@example.com") {
		t.Fatalf("verify:\n%s", out)
	}
	if r := run(t, dir, "verify", "--key", allowed["mallory"]); r.code == 0 || !strings.Contains(r.stderr, "CHECKPOINT_INVALID") {
		t.Fatalf("verify with mallory's key under alice's name: %+v", r)
	}
	var p struct {
		proof
		SSHSignatures  map[string]string `json:"ssh_signatures"`
		CheckpointText string            `json:"checkpoint_text"`
	}
	if err := json.Unmarshal([]byte(ok(t, dir, "prove", "123", "--key", allowed["alice"])), &p); err != nil {
		t.Fatal(err)
	}
	sig := filepath.Join(t.TempDir(), "checkpoint.sig")
	os.WriteFile(sig, []byte(p.SSHSignatures["alice@example.com"]), 0o644)
	cmd := exec.Command("ssh-keygen", "-Y", "verify", "-f", allowed["alice"], "-I", "alice@example.com", "-n", "journal-checkpoint", "-s", sig)
	cmd.Stdin = strings.NewReader(p.CheckpointText)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.HasPrefix(p.Checkpoint, p.CheckpointText+"\n") {
		t.Fatalf("ssh-keygen -Y verify: %v %s", err, out)
	}
	// and the inclusion of event 123 under the root it signed, with tlog
	lines := strings.Split(p.CheckpointText, "\n")
	root, _ := base64.StdEncoding.DecodeString(lines[2])
	chain := blake3.Sum256([]byte(p.Event))
	var rp tlog.RecordProof
	for _, h := range p.Proof {
		b, _ := base64.StdEncoding.DecodeString(h)
		rp = append(rp, tlog.Hash(b))
	}
	if err := tlog.CheckRecord(rp, p.TreeSize, tlog.Hash(root), p.LeafIndex, tlog.RecordHash(chain[:])); err != nil {
		t.Fatalf("inclusion: %v", err)
	}
}
