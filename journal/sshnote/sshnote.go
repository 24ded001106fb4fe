// Package sshnote signs and verifies signed notes (golang.org/x/mod/sumdb/note)
// with SSH Ed25519 keys, so that a checkpoint can be signed with the key a
// user already has and checked with `ssh-keygen -Y verify` and an
// allowed-signers file, as git checks SSH-signed commits.
//
// # Signature
//
// A note signature line is "— <principal> <base64(key hash ‖ sig)>". Here
// sig is an SSHSIG blob (OpenSSH PROTOCOL.sshsig) over the note's text in
// namespace "journal-checkpoint" with SHA-512: the bytes ssh-keygen -Y sign
// writes, base64 between "-----BEGIN SSH SIGNATURE-----" lines (Armor).
// The key hash is the first 4 bytes, big endian, of SHA-256(principal ‖
// "\n" ‖ 0x53 ‖ the public key in SSH wire form): 0x53 ('S') is not an
// algorithm byte the note format uses (Ed25519 is 0x01), so the two kinds
// of key never collide.
package sshnote

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/mod/sumdb/note"
)

// Namespace is the SSHSIG namespace of checkpoint signatures (ssh-keygen -n).
const Namespace = "journal-checkpoint"

// ErrKey means a key or an allowed-signers line cannot be used.
var ErrKey = errors.New("sshnote: unusable key")

const algSSH = 0x53

func keyHash(principal string, pub ssh.PublicKey) uint32 {
	h := sha256.New()
	h.Write([]byte(principal + "\n"))
	h.Write([]byte{algSSH})
	h.Write(pub.Marshal())
	return binary.BigEndian.Uint32(h.Sum(nil))
}

// validName is note's rule for key names: printable, no space, no '+'.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == '+' || r > '~' {
			return false
		}
	}
	return true
}

type signer struct {
	principal string
	s         ssh.Signer
	hash      uint32
}

// NewSigner returns a note signer for an OpenSSH Ed25519 private key (not
// passphrase-protected), signing as principal (the name allowed-signers
// files give the key).
func NewSigner(privateKey []byte, principal string) (note.Signer, error) {
	if !validName(principal) {
		return nil, fmt.Errorf("sshnote: principal %q: printable, without spaces or '+': %w", principal, ErrKey)
	}
	s, err := ssh.ParsePrivateKey(privateKey)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		return nil, fmt.Errorf("sshnote: the key is protected by a passphrase, which is not supported: %w", ErrKey)
	}
	if err != nil {
		return nil, fmt.Errorf("sshnote: %v: %w", err, ErrKey)
	}
	if s.PublicKey().Type() != ssh.KeyAlgoED25519 {
		return nil, fmt.Errorf("sshnote: a %s key: only ssh-ed25519 signs checkpoints: %w", s.PublicKey().Type(), ErrKey)
	}
	return &signer{principal: principal, s: s, hash: keyHash(principal, s.PublicKey())}, nil
}

// Name implements note.Signer: the principal.
func (s *signer) Name() string { return s.principal }

// KeyHash implements note.Signer (see the package comment).
func (s *signer) KeyHash() uint32 { return s.hash }

// signedData is what SSHSIG signs: the magic, the namespace, a reserved
// string, the hash algorithm and the message's hash.
func signedData(msg []byte) []byte {
	h := sha512.Sum512(msg)
	return ssh.Marshal(struct {
		Magic     [6]byte
		Namespace string
		Reserved  string
		HashAlg   string
		Hash      string
	}{[6]byte{'S', 'S', 'H', 'S', 'I', 'G'}, Namespace, "", "sha512", string(h[:])})
}

type sshsig struct {
	Magic     [6]byte
	Version   uint32
	PublicKey string
	Namespace string
	Reserved  string
	HashAlg   string
	Signature string
}

// Sign implements note.Signer: an SSHSIG blob.
func (s *signer) Sign(msg []byte) ([]byte, error) {
	sig, err := s.s.Sign(rand.Reader, signedData(msg))
	if err != nil {
		return nil, fmt.Errorf("sshnote: sign: %w", err)
	}
	return ssh.Marshal(sshsig{Magic: [6]byte{'S', 'S', 'H', 'S', 'I', 'G'}, Version: 1, PublicKey: string(s.s.PublicKey().Marshal()),
		Namespace: Namespace, HashAlg: "sha512", Signature: string(ssh.Marshal(sig))}), nil
}

type verifier struct {
	principal string
	pub       ssh.PublicKey
	hash      uint32
}

// NewVerifier returns the note verifier of principal's SSH public key.
func NewVerifier(principal string, pub ssh.PublicKey) (note.Verifier, error) {
	if !validName(principal) {
		return nil, fmt.Errorf("sshnote: principal %q: printable, without spaces or '+': %w", principal, ErrKey)
	}
	if pub.Type() != ssh.KeyAlgoED25519 {
		return nil, fmt.Errorf("sshnote: a %s key: only ssh-ed25519 signs checkpoints: %w", pub.Type(), ErrKey)
	}
	return &verifier{principal: principal, pub: pub, hash: keyHash(principal, pub)}, nil
}

// Name implements note.Verifier: the principal.
func (v *verifier) Name() string { return v.principal }

// KeyHash implements note.Verifier (see the package comment).
func (v *verifier) KeyHash() uint32 { return v.hash }

// Verify implements note.Verifier: sig must be an SSHSIG blob by this key,
// in Namespace, over msg.
func (v *verifier) Verify(msg, sig []byte) bool {
	var s sshsig
	if ssh.Unmarshal(sig, &s) != nil || string(s.Magic[:]) != "SSHSIG" || s.Version != 1 || s.Namespace != Namespace ||
		s.HashAlg != "sha512" || !bytes.Equal([]byte(s.PublicKey), v.pub.Marshal()) {
		return false
	}
	var inner ssh.Signature
	if ssh.Unmarshal([]byte(s.Signature), &inner) != nil {
		return false
	}
	return v.pub.Verify(signedData(msg), &inner) == nil
}

// ParseAllowedSigners reads an allowed-signers file (ssh-keygen(1) "ALLOWED
// SIGNERS": principals, options, key type, key, comment) and returns a
// verifier for each principal of each ssh-ed25519 key; a line of another
// key type is skipped. A lone public key line ("ssh-ed25519 AAAA… comment",
// a .pub file) stands for its comment as principal.
func ParseAllowedSigners(b []byte) ([]note.Verifier, error) {
	var out []note.Verifier
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if pub, comment, _, _, err := ssh.ParseAuthorizedKey([]byte(line)); err == nil && strings.HasPrefix(line, pub.Type()) {
			if pub.Type() != ssh.KeyAlgoED25519 {
				continue
			}
			v, err := NewVerifier(comment, pub)
			if err != nil {
				return nil, fmt.Errorf("sshnote: line %d: a public key stands for its comment, which must be the principal: %w", i+1, err)
			}
			out = append(out, v)
			continue
		}
		principals, rest, ok := strings.Cut(line, " ")
		if !ok {
			return nil, fmt.Errorf("sshnote: line %d: not principals then a key: %w", i+1, ErrKey)
		}
		// options come before the key type; ParseAuthorizedKey reads them
		pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(strings.TrimSpace(rest)))
		if err != nil {
			return nil, fmt.Errorf("sshnote: line %d: %v: %w", i+1, err, ErrKey)
		}
		if pub.Type() != ssh.KeyAlgoED25519 {
			continue
		}
		for _, p := range strings.Split(principals, ",") {
			v, err := NewVerifier(p, pub)
			if err != nil {
				return nil, fmt.Errorf("sshnote: line %d: %w", i+1, err)
			}
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sshnote: no ssh-ed25519 key: %w", ErrKey)
	}
	return out, nil
}

// Armor returns a note signature's SSHSIG blob (sig without its 4-byte key
// hash) as ssh-keygen -Y sign writes it.
func Armor(blob []byte) string {
	b64 := base64.StdEncoding.EncodeToString(blob)
	var sb strings.Builder
	sb.WriteString("-----BEGIN SSH SIGNATURE-----\n")
	for len(b64) > 70 {
		sb.WriteString(b64[:70] + "\n")
		b64 = b64[70:]
	}
	sb.WriteString(b64 + "\n-----END SSH SIGNATURE-----\n")
	return sb.String()
}

// Signatures returns the SSHSIG signatures of a signed note, armored, by
// principal (signature lines of other kinds are left out), and the note's
// text they sign: what ssh-keygen -Y verify checks. The signatures are not
// verified here.
func Signatures(msg []byte) (text string, armored map[string]string, err error) {
	i := bytes.LastIndex(msg, []byte("\n\n"))
	if i < 0 {
		return "", nil, fmt.Errorf("sshnote: not a signed note (no blank line before the signatures)")
	}
	armored = map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(msg[i+2:]), "\n"), "\n") {
		f := strings.Fields(strings.TrimPrefix(line, "— "))
		if len(f) != 2 {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(f[1])
		if err == nil && len(b) > 10 && string(b[4:10]) == "SSHSIG" {
			armored[f[0]] = Armor(b[4:])
		}
	}
	return string(msg[:i+1]), armored, nil
}
