package snapshot

import (
	"encoding/hex"
	"fmt"

	"github.com/zeebo/blake3"
)

// ID is the blake3-256 hash of a content, a chunk or a chunk list.
type ID [32]byte

// ShortLen is the number of hex digits in the short form of an ID.
const ShortLen = 12

// Sum returns the ID of b.
func Sum(b []byte) ID { return ID(blake3.Sum256(b)) }

// ParseID parses the 64-digit hex form of an ID.
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 2*len(id) {
		return id, fmt.Errorf("snapshot: parse id %q: want %d hex digits", s, 2*len(id))
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, fmt.Errorf("snapshot: parse id %q: %w", s, err)
	}
	return id, nil
}

// String returns the full hex form.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// Short returns the first ShortLen hex digits, the form shown to people and agents as a "version".
func (id ID) Short() string { return id.String()[:ShortLen] }

// IsZero reports whether id is the zero ID, used for "no content" (the file did not exist).
func (id ID) IsZero() bool { return id == ID{} }

// MarshalText encodes the ID as hex; the zero ID encodes as the empty string.
func (id ID) MarshalText() ([]byte, error) {
	if id.IsZero() {
		return []byte{}, nil
	}
	return []byte(id.String()), nil
}

// UnmarshalText decodes hex; the empty string is the zero ID.
func (id *ID) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*id = ID{}
		return nil
	}
	p, err := ParseID(string(b))
	if err != nil {
		return err
	}
	*id = p
	return nil
}

// Hasher computes an ID incrementally.
type Hasher struct{ h *blake3.Hasher }

// NewHasher returns a streaming hasher.
func NewHasher() *Hasher { return &Hasher{h: blake3.New()} }

// Write adds p to the hash. It never fails.
func (h *Hasher) Write(p []byte) (int, error) { return h.h.Write(p) }

// ID returns the hash of everything written so far.
func (h *Hasher) ID() ID {
	var id ID
	h.h.Sum(id[:0])
	return id
}
