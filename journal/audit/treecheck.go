package audit

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
	"golang.org/x/mod/sumdb/tlog"
)

// TreeCheck recomputes a journal's Merkle tree from its events, as a verify
// walks them in order, and checks checkpoints against it: each checkpoint's
// root must be the root of the events up to its size. Two checkpoints that
// both match the one sequence of leaves are consistent (the smaller tree is
// a prefix of the larger, which is what a consistency proof shows to one who
// lacks the leaves), so a verify that holds the leaves checks the roots.
// Given the leaves of an earlier history (Reference), the first event whose
// leaf differs is named. It keeps O(log n) hashes.
type TreeCheck struct {
	base      uint64 // the event before leaf 0
	workspace string
	cps       []*Checkpoint // by size
	next      int           // the first checkpoint not reached yet
	n         int64         // leaves added
	stack     []subtree     // the compact range of the leaves added
	ref       []tlog.Hash   // an earlier history's leaves from leaf refStart (nil: none)
	refStart  int64
	refFrom   string      // what the reference is, for messages
	lastOK    *Checkpoint // the largest checkpoint matched so far
	err       error
	// Matched counts the checkpoints whose roots matched.
	Matched int
	// Skipped counts the checkpoints over events gc dropped whose roots
	// could not be recomputed (Seed without a way to).
	Skipped int
}

type subtree struct {
	h      tlog.Hash
	height int
}

// NewTreeCheck checks cps (in any order) against the tree whose leaf 0 is
// event base+1, of workspace ws ("" : the checkpoints must agree among
// themselves). A checkpoint naming another workspace fails here, wrapping
// ErrCheckpoint.
func NewTreeCheck(base uint64, ws string, cps []*Checkpoint) (*TreeCheck, error) {
	c := &TreeCheck{base: base, workspace: ws, cps: append([]*Checkpoint(nil), cps...)}
	sortCheckpoints(c.cps)
	for _, cp := range c.cps {
		if c.workspace == "" {
			c.workspace = cp.Workspace()
		}
		if cp.Workspace() != c.workspace {
			return nil, fmt.Errorf("journal: the checkpoint of %d events signed %s names workspace %s, not this one (%s): a checkpoint of another workspace: %w",
				cp.Size, cp.Time.Format("2006-01-02T15:04:05Z"), cp.Workspace(), c.workspace, ErrCheckpoint)
		}
	}
	return c, nil
}

// Seed starts the tree at n leaves whose compact range is hashes (largest
// subtree first: Tx.TreeSeed), the leaves gc dropped. The checkpoints of
// at most n leaves are checked with root when it is not nil (the journal
// recomputes them from its stored hashes), else counted as Skipped. It
// must come before the first Add.
func (c *TreeCheck) Seed(n int64, hashes []tlog.Hash, root func(size int64) (tlog.Hash, error)) error {
	if c.n != 0 || bits.OnesCount64(uint64(n)) != len(hashes) {
		return fmt.Errorf("journal: the tree's seed has %d hashes for %d leaves: %w", len(hashes), n, journal.ErrCorrupt)
	}
	rest := uint64(n)
	for _, h := range hashes {
		height := 63 - bits.LeadingZeros64(rest)
		c.stack = append(c.stack, subtree{h: h, height: height})
		rest -= 1 << height
	}
	c.n = n
	for ; c.next < len(c.cps) && c.cps[c.next].Size <= n; c.next++ {
		cp := c.cps[c.next]
		if root == nil {
			c.Skipped++
			continue
		}
		h, err := root(cp.Size)
		if errors.Is(err, ErrTree) {
			c.Skipped++
			continue
		}
		if err != nil {
			return err
		}
		if h != cp.Root {
			return fmt.Errorf("journal: the tree's stored hashes over the events gc dropped are not those the checkpoint of %d events signed %s by %s covers: they were rewritten: %w",
				cp.Size, cp.Time.Format("2006-01-02T15:04:05Z"), signers(cp), ErrRewritten)
		}
		c.lastOK = cp
		c.Matched++
	}
	return nil
}

// Reference sets the chain hashes of an earlier history (leaf start+i is
// refs[i], zero for a number no event held) and what it is (for messages).
func (c *TreeCheck) Reference(refs []snapshot.ID, start int64, what string) {
	c.ref = make([]tlog.Hash, len(refs))
	for i, h := range refs {
		c.ref[i] = leafOf(h)
	}
	c.refStart, c.refFrom = start, what
}

func leafOf(h snapshot.ID) tlog.Hash {
	if h.IsZero() {
		return zeroLeaf
	}
	return LeafHash(h)
}

// Add adds event seq, whose chain hash is chain; first is the first number
// it stands for (a damaged event standing for a lost span: Lost.First; else
// seq). The events must come in order, their chain already checked. It
// returns the first failure so far.
func (c *TreeCheck) Add(seq, first uint64, chain snapshot.ID) error {
	if c.err != nil {
		return c.err
	}
	next := c.base + uint64(c.n) + 1
	if first > next || seq < next {
		c.err = fmt.Errorf("journal: event %d is not leaf %d of the tree (its first event is %d; gc dropped the events before?): %w",
			seq, c.n, c.base+1, ErrTree)
		return c.err
	}
	for ; next < seq; next++ {
		c.push(seq, snapshot.ID{})
	}
	c.push(seq, chain)
	return c.err
}

func (c *TreeCheck) push(seq uint64, chain snapshot.ID) {
	leaf := leafOf(chain)
	if i := c.n - c.refStart; c.ref != nil && i >= 0 && i < int64(len(c.ref)) && c.ref[i] != leaf && c.err == nil {
		c.err = fmt.Errorf("journal: event %d is not the event %d of %s: the histories part at event %d: %w",
			seq, seq, c.refFrom, c.base+uint64(c.n)+1, ErrRewritten)
	}
	st := subtree{h: leaf}
	for len(c.stack) > 0 && c.stack[len(c.stack)-1].height == st.height {
		top := c.stack[len(c.stack)-1]
		c.stack = c.stack[:len(c.stack)-1]
		st = subtree{h: tlog.NodeHash(top.h, st.h), height: st.height + 1}
	}
	c.stack = append(c.stack, st)
	c.n++
	for c.next < len(c.cps) && c.cps[c.next].Size == c.n {
		cp := c.cps[c.next]
		c.next++
		if root := c.Root(); root != cp.Root && c.err == nil {
			after := c.base
			if c.lastOK != nil {
				after = c.base + uint64(c.lastOK.Size)
			}
			c.err = fmt.Errorf("journal: events %d..%d are not the history the checkpoint of %d events signed %s by %s covers (root %s, recomputed %s): it was rewritten at an event from %d to %d: %w",
				c.base+1, c.base+uint64(c.n), cp.Size, cp.Time.Format("2006-01-02T15:04:05Z"), signers(cp),
				short(cp.Root), short(root), after+1, c.base+uint64(c.n), ErrRewritten)
			continue
		}
		c.lastOK = cp
		c.Matched++
	}
}

func short(h tlog.Hash) string { return h.String()[:12] }

func signers(cp *Checkpoint) string {
	if len(cp.Signers) == 0 {
		return "an unchecked key"
	}
	return strings.Join(cp.Signers, ", ")
}

// Root is the RFC 6962 root of the leaves added so far.
func (c *TreeCheck) Root() tlog.Hash {
	if len(c.stack) == 0 {
		return tlog.Hash{}
	}
	h := c.stack[len(c.stack)-1].h
	for i := len(c.stack) - 2; i >= 0; i-- {
		h = tlog.NodeHash(c.stack[i].h, h)
	}
	return h
}

// Size is the number of leaves added.
func (c *TreeCheck) Size() int64 { return c.n }

// Finish returns the first failure: a checkpoint or the reference covering
// more events than were added (the tail was cut), or one found by Add.
func (c *TreeCheck) Finish() error {
	if c.err != nil {
		return c.err
	}
	if end := c.refStart + int64(len(c.ref)); end > c.n {
		return fmt.Errorf("journal: %s has events up to %d, this history ends at event %d: the tail from event %d was cut: %w",
			c.refFrom, c.base+uint64(end), c.base+uint64(c.n), c.base+uint64(c.n)+1, ErrRewritten)
	}
	if c.next < len(c.cps) {
		cp := c.cps[len(c.cps)-1]
		return fmt.Errorf("journal: the checkpoint of %d events signed %s by %s covers events %d..%d, but the history ends at event %d: it lost %d events (dropped, or the tail from event %d cut): %w",
			cp.Size, cp.Time.Format("2006-01-02T15:04:05Z"), signers(cp), c.base+1, c.base+uint64(cp.Size), c.base+uint64(c.n),
			int64(cp.Size)-c.n, c.base+uint64(c.n)+1, ErrRewritten)
	}
	return nil
}
