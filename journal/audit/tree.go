package audit

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
	"golang.org/x/mod/sumdb/tlog"
)

// The Merkle tree over the events (docs/DESIGN.md "Merkle tree"): leaf i is
// event TreeBase+1+i, its data the event's 32-byte chain hash (a number no
// event holds, inside a span repair lost, has 32 zero bytes); hashing is
// RFC 6962's (tlog.RecordHash, tlog.NodeHash). Its stored hashes are a
// bucket of this package's (merkle) and two keys of the store's meta
// bucket; the store cuts nothing of them itself: a gc that drops events
// keeps what the tree needs of them through GCOptions.KeepTree
// (KeepTreeForGC), which replay.Engine.GC sets.

// tileHeight is the height of the subtrees whose hashes are stored: the
// hashes below it are recomputed from the events (packed 256 to a block, as
// a tile holds 256 leaves), so the tree costs two stored hashes per 256
// events instead of two per event.
const (
	tileHeight = 8
	tileWidth  = 1 << tileHeight
)

var (
	// bucketMerkle holds the tree's stored hashes: level (1) | index (8,
	// big endian) → SHA-256 (32), for level ≥ tileHeight; and at level 0
	// the leaves gc dropped from the tile it cut (KeepTreeForGC).
	bucketMerkle = []byte("merkle")
	// bucketMeta is the store's meta bucket, where the tree keeps its two
	// keys (they predate this package; docs/DESIGN.md "The bbolt file").
	bucketMeta = []byte("meta")
	// metaTreeBase is the event before leaf 0 (8 bytes), fixed when the
	// tree is first stored: 0, or gc's base for a journal gc'd before the
	// tree existed. The store reads it only to refuse a gc without
	// KeepTree (journal.GCOptions).
	metaTreeBase = []byte("tree_base")
	// metaTreeTiles is how many complete tiles the bucket holds (8 bytes).
	metaTreeTiles = []byte("tree_tiles")
)

// ErrTree means the tree cannot be computed for what was asked: a size
// larger than the sealed events, or leaves gc dropped.
var ErrTree = errors.New("journal: merkle tree")

// zeroLeaf is the leaf of a number no event holds (a span repair lost).
var zeroLeaf = tlog.RecordHash(make([]byte, 32))

// LeafHash is the RFC 6962 leaf hash of an event: SHA-256(0x00 || chain hash).
func LeafHash(chain snapshot.ID) tlog.Hash { return tlog.RecordHash(chain[:]) }

// TreeBase is the event before the tree's first leaf.
func TreeBase(t *journal.Tx) uint64 {
	if v := t.Bolt().Bucket(bucketMeta).Get(metaTreeBase); len(v) == 8 {
		return binary.BigEndian.Uint64(v)
	}
	base, _ := t.Base()
	return base
}

// TreeSize is the number of leaves the tree has now: the events after
// TreeBase up to the first one not sealed yet.
func TreeSize(t *journal.Tx) int64 {
	top := t.Last()
	for _, p := range t.Pending() {
		if p <= top {
			top = p - 1
		}
	}
	base := TreeBase(t)
	if top <= base {
		return 0
	}
	return int64(top - base)
}

// LeafIndex is the leaf of event seq.
func LeafIndex(t *journal.Tx, seq uint64) (int64, error) {
	base := TreeBase(t)
	if seq <= base {
		return 0, fmt.Errorf("journal: event %d precedes the tree (it starts after event %d): %w", seq, base, ErrTree)
	}
	return int64(seq - base - 1), nil
}

// treeReader reads the tree's hashes for tlog: stored ones from the bucket
// when there, the others recomputed from the events' chain hashes (one
// tile's leaves at a time, kept).
type treeReader struct {
	t     *journal.Tx
	base  uint64
	tiles map[int64][]tlog.Hash
}

func newTreeReader(t *journal.Tx) *treeReader {
	return &treeReader{t: t, base: TreeBase(t), tiles: map[int64][]tlog.Hash{}}
}

// ReadHashes implements tlog.HashReader.
func (r *treeReader) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		level, n := tlog.SplitStoredHashIndex(x)
		h, err := r.hash(level, n)
		if err != nil {
			return nil, err
		}
		out[i] = h
	}
	return out, nil
}

// hash is the hash of the complete subtree (level, n): leaves n<<level to
// (n+1)<<level - 1.
func (r *treeReader) hash(level int, n int64) (tlog.Hash, error) {
	if level >= tileHeight {
		if v := merkleGet(r.t, merkleKey(level, n)); len(v) == tlog.HashSize {
			return tlog.Hash(v), nil
		}
		if level > tileHeight {
			l, err := r.hash(level-1, 2*n)
			if err != nil {
				return tlog.Hash{}, err
			}
			rt, err := r.hash(level-1, 2*n+1)
			if err != nil {
				return tlog.Hash{}, err
			}
			return tlog.NodeHash(l, rt), nil
		}
	}
	first := n << level // the first leaf
	leaves, err := r.tile(first / tileWidth)
	if err != nil {
		return tlog.Hash{}, err
	}
	off := first % tileWidth
	width := int64(1) << level
	if off+width > int64(len(leaves)) {
		return tlog.Hash{}, fmt.Errorf("journal: leaves %d..%d are past the sealed events: %w", first, first+width-1, ErrTree)
	}
	return rootOf(leaves[off : off+width]), nil
}

// rootOf is the hash of a complete subtree given its leaves (a power of two).
func rootOf(leaves []tlog.Hash) tlog.Hash {
	if len(leaves) == 1 {
		return leaves[0]
	}
	h := len(leaves) / 2
	return tlog.NodeHash(rootOf(leaves[:h]), rootOf(leaves[h:]))
}

// tile returns the leaves of tile k (up to 256; fewer for the last, partial
// tile), read from the events.
func (r *treeReader) tile(k int64) ([]tlog.Hash, error) {
	if l, ok := r.tiles[k]; ok {
		return l, nil
	}
	first := r.base + 1 + uint64(k)*tileWidth // the tile's first event
	leaves := make([]tlog.Hash, 0, tileWidth)
	want := first
	if gcBase, _ := r.t.Base(); first <= gcBase { // dropped by gc: the leaves it kept (KeepTreeForGC)
		for ; want <= gcBase && want < first+tileWidth; want++ {
			v := merkleGet(r.t, merkleKey(0, int64(want-r.base-1)))
			if len(v) != tlog.HashSize {
				return nil, fmt.Errorf("journal: tile of events %d..%d: gc dropped event %d before the tree held it: %w",
					first, first+tileWidth-1, want, ErrTree)
			}
			leaves = append(leaves, tlog.Hash(v))
		}
		if len(leaves) == tileWidth {
			r.tiles[k] = leaves
			return leaves, nil
		}
	}
	err := r.t.Each(want, false, func(e *journal.Event) error {
		if e.Status == journal.StatusPending {
			return journal.ErrStop
		}
		for want < e.Seq && len(leaves) < tileWidth { // numbers a damaged event spans
			if e.Lost == nil || e.Lost.First == 0 || want < e.Lost.First {
				return fmt.Errorf("journal: event %d missing (next is %d): %w", want, e.Seq, journal.ErrCorrupt)
			}
			leaves = append(leaves, zeroLeaf)
			want++
		}
		if len(leaves) == tileWidth {
			return journal.ErrStop
		}
		leaves = append(leaves, LeafHash(e.Hash))
		want++
		if len(leaves) == tileWidth {
			return journal.ErrStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, journal.ErrStop) {
		return nil, fmt.Errorf("journal: merkle tree: %w", err)
	}
	r.tiles[k] = leaves
	return leaves, nil
}

// merkleGet reads a stored hash (nil in a journal whose tree was never stored).
func merkleGet(t *journal.Tx, k []byte) []byte {
	if b := t.Bolt().Bucket(bucketMerkle); b != nil {
		return b.Get(k)
	}
	return nil
}

func merkleKey(level int, n int64) []byte {
	var k [9]byte
	k[0] = byte(level)
	binary.BigEndian.PutUint64(k[1:], uint64(n))
	return k[:]
}

// TreeHash returns the root of the tree's first n leaves.
func TreeHash(t *journal.Tx, n int64) (tlog.Hash, error) {
	if size := TreeSize(t); n > size || n < 0 {
		return tlog.Hash{}, fmt.Errorf("journal: tree of %d leaves: the journal has %d sealed events in its tree: %w", n, size, ErrTree)
	}
	h, err := tlog.TreeHash(n, newTreeReader(t))
	if err != nil {
		return h, fmt.Errorf("journal: tree hash at %d: %w", n, err)
	}
	return h, nil
}

// ProveEvent returns the inclusion proof of leaf i in the tree of n leaves.
func ProveEvent(t *journal.Tx, i, n int64) (tlog.RecordProof, error) {
	if size := TreeSize(t); n > size || i < 0 || i >= n {
		return nil, fmt.Errorf("journal: prove leaf %d in a tree of %d (the journal's has %d): %w", i, n, size, ErrTree)
	}
	p, err := tlog.ProveRecord(n, i, newTreeReader(t))
	if err != nil {
		return nil, fmt.Errorf("journal: prove leaf %d in %d: %w", i, n, err)
	}
	return p, nil
}

// ProveTree returns the consistency proof from the tree of m leaves to the
// tree of n (m ≤ n).
func ProveTree(t *journal.Tx, n, m int64) (tlog.TreeProof, error) {
	if size := TreeSize(t); n > size || m < 1 || m > n {
		return nil, fmt.Errorf("journal: prove the tree of %d consistent with %d (the journal's has %d): %w", n, m, size, ErrTree)
	}
	p, err := tlog.ProveTree(n, m, newTreeReader(t))
	if err != nil {
		return nil, fmt.Errorf("journal: prove tree %d from %d: %w", n, m, err)
	}
	return p, nil
}

// ExtendTree stores the hashes of every complete tile not stored yet (and
// the levels above them), fixing the tree's base the first time.
func ExtendTree(t *journal.Tx) error {
	m := t.Bolt().Bucket(bucketMeta)
	if m.Get(metaTreeBase) == nil {
		if err := m.Put(metaTreeBase, u64(TreeBase(t))); err != nil {
			return fmt.Errorf("journal: merkle tree: %w", err)
		}
	}
	b, err := t.Bolt().CreateBucketIfNotExists(bucketMerkle)
	if err != nil {
		return fmt.Errorf("journal: merkle tree: %w", err)
	}
	var done int64
	if v := m.Get(metaTreeTiles); len(v) == 8 {
		done = int64(binary.BigEndian.Uint64(v))
	}
	full := TreeSize(t) / tileWidth
	if done >= full {
		return nil
	}
	r := newTreeReader(t)
	for k := done; k < full; k++ {
		h, err := r.hash(tileHeight, k)
		if err != nil {
			return err
		}
		level, n := tileHeight, k
		for {
			// bbolt keeps the value until the commit: a copy, as h changes
			if err := b.Put(merkleKey(level, n), bytes.Clone(h[:])); err != nil {
				return fmt.Errorf("journal: merkle tree: %w", err)
			}
			if n%2 == 0 {
				break
			}
			left := b.Get(merkleKey(level, n-1))
			if len(left) != tlog.HashSize {
				return fmt.Errorf("journal: merkle tree: hash (%d, %d) missing: %w", level, n-1, journal.ErrCorrupt)
			}
			h = tlog.NodeHash(tlog.Hash(left), h)
			level, n = level+1, n/2
		}
		delete(r.tiles, k)
	}
	if err := m.Put(metaTreeTiles, u64(uint64(full))); err != nil {
		return fmt.Errorf("journal: merkle tree: %w", err)
	}
	return nil
}

// KeepTreeForGC keeps what the tree needs of the events a gc is about to
// drop (those up to newBase): every complete tile's hashes, and the leaves
// of the tile the cut falls in, so that roots and proofs of the events
// kept, and the checkpoints over them, still compute. A journal whose tree
// was never stored (no checkpoint) needs nothing: its tree will start
// after the new base. It is journal.GCOptions.KeepTree, run in gc's own
// transaction before its copy.
func KeepTreeForGC(t *journal.Tx, newBase uint64) error {
	if t.Bolt().Bucket(bucketMeta).Get(metaTreeBase) == nil {
		return nil
	}
	if err := ExtendTree(t); err != nil {
		return err
	}
	base := TreeBase(t)
	if newBase <= base {
		return nil
	}
	cut := int64(newBase - base) // the first kept leaf
	r := newTreeReader(t)
	leaves, err := r.tile(cut / tileWidth)
	if err != nil {
		return err
	}
	b := t.Bolt().Bucket(bucketMerkle)
	for i := (cut / tileWidth) * tileWidth; i < cut; i++ {
		if err := b.Put(merkleKey(0, i), bytes.Clone(leaves[i%tileWidth][:])); err != nil {
			return fmt.Errorf("journal: gc: merkle tree: %w", err)
		}
	}
	return nil
}

// TreeSeed returns the compact range of the tree's leaves gc dropped (the
// hashes of the complete subtrees that cover leaves 0..n-1, largest first,
// n = gc's base - TreeBase): what a verify of the events kept starts from
// (TreeCheck.Seed). Nil when gc dropped no leaf of the tree.
func TreeSeed(t *journal.Tx) (n int64, hashes []tlog.Hash, err error) {
	gcBase, _ := t.Base()
	base := TreeBase(t)
	if gcBase <= base {
		return 0, nil, nil
	}
	n = int64(gcBase - base)
	r := newTreeReader(t)
	for start, rest := int64(0), n; rest > 0; {
		level := 63 - bits.LeadingZeros64(uint64(rest))
		h, err := r.hash(level, start>>level)
		if err != nil {
			return 0, nil, err
		}
		hashes = append(hashes, h)
		start += 1 << level
		rest -= 1 << level
	}
	return n, hashes, nil
}

// Leaves returns the chain hash of every leaf of the tree up to its size
// (zero for a number no event holds), from the first event gc kept.
func Leaves(t *journal.Tx) ([]snapshot.ID, error) {
	base := TreeBase(t)
	if gcBase, _ := t.Base(); gcBase > base {
		base = gcBase
	}
	var out []snapshot.ID
	err := t.Each(base+1, false, func(e *journal.Event) error {
		if e.Status == journal.StatusPending {
			return journal.ErrStop
		}
		for uint64(len(out))+base+1 < e.Seq {
			out = append(out, snapshot.ID{})
		}
		out = append(out, e.Hash)
		return nil
	})
	if err != nil && !errors.Is(err, journal.ErrStop) {
		return nil, err
	}
	return out, nil
}

// TreeHashes reads the tree's hashes, stored or recomputed, for tlog's
// proofs and roots.
func TreeHashes(t *journal.Tx) tlog.HashReader { return newTreeReader(t) }

// PinTreeBase fixes the tree's base if it was not yet: a later gc must not
// move the leaves a checkpoint covers.
func PinTreeBase(t *journal.Tx) error {
	if m := t.Bolt().Bucket(bucketMeta); m.Get(metaTreeBase) == nil {
		if err := m.Put(metaTreeBase, u64(TreeBase(t))); err != nil {
			return err
		}
	}
	return nil
}
