package remote

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/journalfs/journal/snapshot"
	"github.com/zeebo/blake3"
	"golang.org/x/crypto/chacha20poly1305"
)

// Encryption of an encrypted remote's objects (doc.go "Encryption and
// crypto-shredding").

// dataKey is the XChaCha20-Poly1305 key of one sealed object or value.
type dataKey [chacha20poly1305.KeySize]byte

// sealMagic starts every sealed object: its version, then the ciphertext
// and its tag.
var sealMagic = []byte("JRE1")

// The kinds of plaintext a key is derived from, kept apart so that no two
// kinds ever share a key.
const (
	kindChunk    = "journal remote 2026-11-28 chunk key v1"
	kindManifest = "journal remote 2026-11-28 manifest key v1"
	kindArgs     = "journal remote 2026-11-28 arguments key v1"
	kindNonce    = "journal remote 2026-11-28 nonce v1"
)

// convergentKey derives the key of a plaintext of the given kind from the
// plaintext itself (BLAKE3 in key derivation mode): whoever holds the
// same bytes derives the same key and seals them to the same object, so
// objects shared by workspaces are stored once, and two writers of one
// segment write the same bytes. It is not the plaintext's ID (blake3 in
// hash mode), which object names and events show.
func convergentKey(kind string, plaintext []byte) dataKey {
	var k dataKey
	blake3.DeriveKey(kind, plaintext, k[:])
	return k
}

// seal encrypts plaintext under k, bound to ad (the object's ID or the
// event's hash): a ciphertext moved under another name does not open. A
// key seals one plaintext only (it is derived from it), so the nonce is
// derived from the key and ad: the one key two events with the same
// unsalted arguments share seals under two nonces, never reusing a
// Poly1305 key on two messages.
func seal(k dataKey, plaintext, ad []byte) []byte {
	a, _ := chacha20poly1305.NewX(k[:]) // a 32-byte key never fails
	out := make([]byte, len(sealMagic), len(sealMagic)+len(plaintext)+a.Overhead())
	copy(out, sealMagic)
	return a.Seal(out, nonceOf(k, ad), plaintext, ad)
}

// nonceOf derives the nonce of what k seals under ad.
func nonceOf(k dataKey, ad []byte) []byte {
	h := blake3.NewDeriveKey(kindNonce)
	h.Write(k[:])
	h.Write(ad)
	nonce := make([]byte, chacha20poly1305.NonceSizeX)
	h.Digest().Read(nonce)
	return nonce
}

// errOpen is a sealed object that does not open with the key given:
// altered, or not the object the key is for.
var errOpen = errors.New("does not open with its key")

// unseal opens what seal made.
func unseal(k dataKey, b, ad []byte) ([]byte, error) {
	if !sealed(b) {
		return nil, errOpen
	}
	a, _ := chacha20poly1305.NewX(k[:])
	p, err := a.Open(nil, nonceOf(k, ad), b[len(sealMagic):], ad)
	if err != nil {
		return nil, errOpen
	}
	return p, nil
}

// sealed reports whether b is a sealed object.
func sealed(b []byte) bool { return bytes.HasPrefix(b, sealMagic) }

// keyFile is the key store's object beside one segment: the key of every
// event's sealed arguments in the segment, and the key of every content
// its events name (a manifest's, or a one-chunk content's chunk's). A
// manifest holds its chunks' keys. Shredding rewrites it without the keys
// of what was redacted.
type keyFile struct {
	events   map[uint64]dataKey
	contents map[snapshot.ID]dataKey
}

func newKeyFile() *keyFile {
	return &keyFile{events: map[uint64]dataKey{}, contents: map[snapshot.ID]dataKey{}}
}

// keyMagic starts a key file.
var keyMagic = []byte("JRK1")

// encode writes the key file: "JRK1", uvarint n, n × (uvarint event
// number, 32-byte key) by number, uvarint m, m × (32-byte content ID,
// 32-byte key) by ID.
func (f *keyFile) encode() []byte {
	seqs := make([]uint64, 0, len(f.events))
	for s := range f.events {
		seqs = append(seqs, s)
	}
	sort.Slice(seqs, func(a, b int) bool { return seqs[a] < seqs[b] })
	ids := make([]snapshot.ID, 0, len(f.contents))
	for id := range f.contents {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool { return bytes.Compare(ids[a][:], ids[b][:]) < 0 })
	b := append([]byte(nil), keyMagic...)
	b = binary.AppendUvarint(b, uint64(len(seqs)))
	for _, s := range seqs {
		k := f.events[s]
		b = binary.AppendUvarint(b, s)
		b = append(b, k[:]...)
	}
	b = binary.AppendUvarint(b, uint64(len(ids)))
	for _, id := range ids {
		k := f.contents[id]
		b = append(b, id[:]...)
		b = append(b, k[:]...)
	}
	return b
}

// decodeKeyFile reads what encode wrote.
func decodeKeyFile(b []byte) (*keyFile, error) {
	if !bytes.HasPrefix(b, keyMagic) {
		return nil, fmt.Errorf("not a key file")
	}
	b = b[len(keyMagic):]
	f := newKeyFile()
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, fmt.Errorf("a key file cut short")
	}
	b = b[k:]
	for range n {
		s, k := binary.Uvarint(b)
		if k <= 0 || len(b) < k+32 {
			return nil, fmt.Errorf("a key file cut short")
		}
		var key dataKey
		copy(key[:], b[k:])
		f.events[s] = key
		b = b[k+32:]
	}
	m, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) != m*64 {
		return nil, fmt.Errorf("a key file of the wrong length")
	}
	b = b[k:]
	for i := range m {
		var id snapshot.ID
		var key dataKey
		copy(id[:], b[i*64:])
		copy(key[:], b[i*64+32:])
		f.contents[id] = key
	}
	return f, nil
}

// sealedManifest is an encrypted remote's manifest: "JRM2", uvarint size,
// uvarint n, n × (32-byte chunk ID, 32-byte chunk key) in order. Sealed
// under the key derived from these bytes.
func sealedManifest(size int64, chunks []snapshot.ID, keys []dataKey) []byte {
	b := append([]byte("JRM2"), binary.AppendUvarint(nil, uint64(size))...)
	b = binary.AppendUvarint(b, uint64(len(chunks)))
	for i, c := range chunks {
		b = append(b, c[:]...)
		b = append(b, keys[i][:]...)
	}
	return b
}

func parseSealedManifest(b []byte) (int64, []snapshot.ID, []dataKey, error) {
	if !bytes.HasPrefix(b, []byte("JRM2")) {
		return 0, nil, nil, ErrDamaged
	}
	b = b[4:]
	size, n1 := binary.Uvarint(b)
	if n1 <= 0 {
		return 0, nil, nil, ErrDamaged
	}
	b = b[n1:]
	n, n2 := binary.Uvarint(b)
	if n2 <= 0 || uint64(len(b)-n2) != n*64 {
		return 0, nil, nil, ErrDamaged
	}
	b = b[n2:]
	ids := make([]snapshot.ID, n)
	keys := make([]dataKey, n)
	for i := range ids {
		copy(ids[i][:], b[i*64:])
		copy(keys[i][:], b[i*64+32:])
	}
	return int64(size), ids, keys, nil
}

// merge adds f's keys to k (f nil: none).
func (k *keyFile) merge(f *keyFile) {
	if f == nil {
		return
	}
	for s, key := range f.events {
		k.events[s] = key
	}
	for id, key := range f.contents {
		k.contents[id] = key
	}
}
