package remote

import (
	"bytes"
	"testing"

	"github.com/journalfs/journal/snapshot"
)

// TestSeal: a sealed value opens with its key and associated data only;
// one flipped bit anywhere fails; the same key under two associated data
// seals under two nonces (the keystreams differ).
func TestSeal(t *testing.T) {
	plain := []byte(`{"args":{"path":".env","content":"TOKEN=x"}}`)
	k := convergentKey(kindArgs, plain)
	a, b := []byte("event hash a"), []byte("event hash b")
	sa, sb := seal(k, plain, a), seal(k, plain, b)
	if got, err := unseal(k, sa, a); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("unseal: %q %v", got, err)
	}
	if _, err := unseal(k, sa, b); err == nil {
		t.Fatal("opened under another associated data")
	}
	if _, err := unseal(convergentKey(kindChunk, plain), sa, a); err == nil {
		t.Fatal("opened with another kind's key")
	}
	for i := range sa {
		c := bytes.Clone(sa)
		c[i] ^= 1
		if _, err := unseal(k, c, a); err == nil {
			t.Fatalf("opened with byte %d flipped", i)
		}
	}
	if bytes.Equal(sa[len(sealMagic):len(sealMagic)+len(plain)], sb[len(sealMagic):len(sealMagic)+len(plain)]) {
		t.Fatal("one key under two associated data reused its nonce")
	}
	if bytes.Contains(sa, []byte("TOKEN")) || !bytes.Equal(seal(k, plain, a), sa) {
		t.Fatal("a seal shows its plaintext, or is not deterministic")
	}
}

// TestKeyFile_RoundTrip: a key file decodes to what was encoded; cut or
// padded ones are refused.
func TestKeyFile_RoundTrip(t *testing.T) {
	f := newKeyFile()
	for i := range 50 {
		f.events[uint64(i*i+1)] = convergentKey(kindArgs, []byte{byte(i)})
		f.contents[snapshot.Sum([]byte{byte(i)})] = convergentKey(kindChunk, []byte{byte(i)})
	}
	b := f.encode()
	g, err := decodeKeyFile(b)
	if err != nil || len(g.events) != 50 || len(g.contents) != 50 || !bytes.Equal(g.encode(), b) {
		t.Fatalf("round trip: %v", err)
	}
	for _, bad := range [][]byte{b[:len(b)-1], append(bytes.Clone(b), 0), b[:10], []byte("JRK2")} {
		if _, err := decodeKeyFile(bad); err == nil {
			t.Fatalf("a key file of %d bytes decoded", len(bad))
		}
	}
}
