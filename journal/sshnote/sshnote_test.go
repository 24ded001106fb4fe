package sshnote_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal/sshnote"
	"golang.org/x/mod/sumdb/note"
)

// sshKey makes an Ed25519 key with ssh-keygen and returns its private key
// file and the public key line.
func sshKey(t *testing.T, comment string) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen is not installed (apt-get install openssh-client)")
	}
	p := filepath.Join(t.TempDir(), "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", p).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	pub, err := os.ReadFile(p + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return p, strings.TrimSpace(string(pub))
}

// TestSignVerify_WithSSHKeygen: a note signed here verifies with ssh-keygen
// -Y verify and an allowed-signers file, a signature ssh-keygen -Y sign made
// verifies here, and another key or namespace does not.
func TestSignVerify_WithSSHKeygen(t *testing.T) {
	key, pub := sshKey(t, "alice@example.com")
	priv, err := os.ReadFile(key)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sshnote.NewSigner(priv, "alice@example.com")
	if err != nil {
		t.Fatal(err)
	}
	text := "journal.workspace/abc\n12\nmRjkIvl3o1y3PpTYbVq5HqX8Ar3C9UXm0rW0L4H2XJ8=\ntime 2026-11-28T16:42:09Z\n"
	msg, err := note.Sign(&note.Note{Text: text}, s)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	allowed := filepath.Join(dir, "allowed_signers")
	fields := strings.Fields(pub)
	os.WriteFile(allowed, []byte("alice@example.com "+fields[0]+" "+fields[1]+"\n"), 0o644)
	vs, err := sshnote.ParseAllowedSigners([]byte("# team\nalice@example.com " + fields[0] + " " + fields[1] + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := note.Open(msg, note.VerifierList(vs...)); err != nil {
		t.Fatalf("open: %v", err)
	}
	got, sigs, err := sshnote.Signatures(msg)
	if err != nil || got != text || sigs["alice@example.com"] == "" {
		t.Fatalf("signatures: %q %v %v", got, sigs, err)
	}
	sigFile := filepath.Join(dir, "checkpoint.sig")
	os.WriteFile(sigFile, []byte(sigs["alice@example.com"]), 0o644)
	verify := func(ns, principal string) error {
		cmd := exec.Command("ssh-keygen", "-Y", "verify", "-f", allowed, "-I", principal, "-n", ns, "-s", sigFile)
		cmd.Stdin = strings.NewReader(text)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return errors.New(string(out))
		}
		return nil
	}
	if err := verify(sshnote.Namespace, "alice@example.com"); err != nil {
		t.Fatalf("ssh-keygen -Y verify: %v", err)
	}
	if verify("git", "alice@example.com") == nil || verify(sshnote.Namespace, "mallory@example.com") == nil {
		t.Fatal("ssh-keygen accepted another namespace or principal")
	}
	// the other way: ssh-keygen -Y sign, checked here
	cmd := exec.Command("ssh-keygen", "-Y", "sign", "-f", key, "-n", sshnote.Namespace)
	cmd.Stdin = strings.NewReader(text)
	armored, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	b64 := strings.Join(strings.Split(strings.TrimSpace(string(armored)), "\n")[1:len(strings.Split(strings.TrimSpace(string(armored)), "\n"))-1], "")
	blob, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	if !vs[0].Verify([]byte(text), blob) {
		t.Fatal("ssh-keygen's signature did not verify")
	}
	if vs[0].Verify([]byte(text+"x"), blob) {
		t.Fatal("a signature verified another text")
	}
	// a key of another user under the same principal fails
	_, otherPub := sshKey(t, "alice@example.com")
	other, err := sshnote.ParseAllowedSigners([]byte(otherPub + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := note.Open(msg, note.VerifierList(other...)); err == nil {
		t.Fatal("another key verified the note")
	}
	var hb [4]byte
	binary.BigEndian.PutUint32(hb[:], vs[0].KeyHash())
	if !bytes.Contains(msg, []byte("— alice@example.com ")) {
		t.Fatalf("note %q", msg)
	}
}

// TestNewSigner_Refuses: a passphrase-protected key, an RSA key and a bad
// principal are refused with ErrKey.
func TestNewSigner_Refuses(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("no ssh-keygen")
	}
	d := t.TempDir()
	exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "secret", "-f", filepath.Join(d, "p")).Run()
	exec.Command("ssh-keygen", "-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", filepath.Join(d, "r")).Run()
	for _, c := range []struct{ file, principal, want string }{
		{"p", "alice", "passphrase"}, {"r", "alice", "only ssh-ed25519"},
	} {
		b, err := os.ReadFile(filepath.Join(d, c.file))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sshnote.NewSigner(b, c.principal); !errors.Is(err, sshnote.ErrKey) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.file, err)
		}
	}
	if _, err := sshnote.NewSigner(nil, "a b"); !errors.Is(err, sshnote.ErrKey) {
		t.Errorf("a principal with a space: %v", err)
	}
}
