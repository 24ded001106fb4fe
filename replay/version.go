package replay

import (
	"io/fs"
	"sync"
	"time"

	"github.com/journalfs/journal/snapshot"
)

// The version cache remembers the version (content ID) of large files by
// their identity — device, inode, size, modification and change times — so
// that a file unchanged since it was last hashed or written is not hashed
// again. An entry comes from one of two places:
//
//   - Hashing (read tools, outside the lock): trusted by read tools only, and
//     only if the file's times are older than the start of the hash by
//     racyMargin, so that a change within the same timestamp tick cannot go
//     unseen (git's racy-index rule). This assumes the file system's clock
//     and ours agree within the margin.
//
//   - The engine's own write of a streamed content (putOwn): trusted by
//     batches under the lock too, because it is proven without our clock.
//     Just before the temp file is renamed into place (after its fsync and
//     the intent), probeTemp changes its mode to the same mode, which sets
//     its change time to the file system's clock, and reads both times. If
//     the change time is later than the modification time (of our last
//     write), the file system's clock has moved past that write, so any
//     later write — whose modification time is the clock at that moment —
//     gives the file another modification time. Once the temp file is
//     renamed into place, renamedIdent checks that the file there is the same
//     inode, with the same size and modification time (nothing wrote it
//     since the probe), and its identity is recorded after the commit,
//     with the content's chunk layout (the base of the next streamed edit,
//     see streamBase). Any later change to the file then changes its
//     identity: a write its modification time, a change of metadata (or a
//     write whose modification time is set back with utimes) its change
//     time, a replacement its inode.
//
// What this trusts: timestamps of one file system never go backwards (a
// clock stepped back could, in principle, give a later write the very same
// nanosecond); nobody writes the temp file (".name.jtmp-N") before it is
// renamed — the apply protocol already trusts that, since the after-content
// is what was written to it, not what is read back; and nobody both writes
// the file and sets its modification time back to the very nanosecond within
// the clock tick of the rename (which would keep the change time too). Where
// file identities are not available (identOf), nothing is cached and large
// files are hashed on every batch.

// versionCache remembers the hash of large files by identity.
type versionCache struct {
	mu sync.Mutex // guards m
	m  map[string]versionEntry
}

type versionEntry struct {
	ident  fileIdent
	id     snapshot.ID
	own    bool             // from the engine's own write (trusted under the lock)
	chunks []snapshot.Chunk // own entries: the content's layout, the base of the next streamed edit
}

// versionCacheSize bounds the cache; it is cleared when full (entries are
// cheap to rebuild relative to how rarely that many huge files are read).
const versionCacheSize = 256

// racyMargin: a file changed less than this long before it was hashed is not
// cached, so a later change within the same timestamp tick cannot go unseen.
const racyMargin = 100 * time.Millisecond

var versions = &versionCache{m: map[string]versionEntry{}}

// get returns the cached version of the file p whose stat is fi; with
// ownOnly, only a version the engine wrote itself.
func (c *versionCache) get(p Path, fi fs.FileInfo, ownOnly bool) (snapshot.ID, bool) {
	e, ok := c.entry(p, fi, ownOnly)
	return e.id, ok
}

func (c *versionCache) entry(p Path, fi fs.FileInfo, ownOnly bool) (versionEntry, bool) {
	ident, ok := identOf(fi)
	if !ok {
		return versionEntry{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[p.Root.Dir+"\x00"+p.Rel]
	if !ok || e.ident != ident || (ownOnly && !e.own) {
		return versionEntry{}, false
	}
	return e, true
}

// put caches a version computed by hashing, if the file's identity was the
// same before and after and its times are older than the hash by racyMargin.
func (c *versionCache) put(p Path, before, after fs.FileInfo, hashStart time.Time, id snapshot.ID) {
	a, ok1 := identOf(before)
	b, ok2 := identOf(after)
	if !ok1 || !ok2 || a != b || a.ctime > hashStart.Add(-racyMargin).UnixNano() || a.mtime > hashStart.Add(-racyMargin).UnixNano() {
		return
	}
	c.set(p, versionEntry{ident: a, id: id})
}

// putOwn caches the version of a file the engine has just written and
// committed, with the identity renamedIdent returned and its layout.
func (c *versionCache) putOwn(p Path, ident fileIdent, id snapshot.ID, chunks []snapshot.Chunk) {
	c.set(p, versionEntry{ident: ident, id: id, own: true, chunks: chunks})
}

// layoutBudget bounds the chunks of all cached layouts (36 bytes each: 18 MiB,
// the layouts of about 4.5 GiB of content); past it, older layouts are dropped.
const layoutBudget = 1 << 19

func (c *versionCache) set(p Path, e versionEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := p.Root.Dir + "\x00" + p.Rel
	if len(c.m) >= versionCacheSize {
		clear(c.m)
	}
	delete(c.m, key)
	if len(e.chunks) > layoutBudget {
		e.chunks = nil
	}
	total := len(e.chunks)
	for _, o := range c.m {
		total += len(o.chunks)
	}
	for k, o := range c.m {
		if total <= layoutBudget {
			break
		}
		total -= len(o.chunks)
		o.chunks = nil
		c.m[k] = o
	}
	c.m[key] = e
}

// tempProbe is a temp file's identity just before its rename, when its
// change time shows the file system's clock past its last write.
type tempProbe struct {
	ident fileIdent
	ok    bool
}

// probeTemp sets the change time of the temp file tmp (fsynced, about to be
// renamed over p) to the file system's clock, by a chmod to the mode it
// has, and reads its identity; it is usable only if the change time is later
// than the modification time. Any failure just means no probe.
func probeTemp(p Path, tmp string, mode fs.FileMode) tempProbe {
	if !haveIdent {
		return tempProbe{}
	}
	if err := p.Root.root.Chmod(tmp, mode); err != nil {
		return tempProbe{}
	}
	fi, err := p.Root.root.Lstat(tmp)
	if err != nil {
		return tempProbe{}
	}
	id, ok := identOf(fi)
	if !ok || id.ctime <= id.mtime {
		return tempProbe{}
	}
	return tempProbe{ident: id, ok: true}
}

// renamedIdent returns the identity of the file at p, just renamed from the
// temp file probe describes, if it is still that inode with that size and
// modification time.
func renamedIdent(p Path, probe tempProbe) (fileIdent, bool) {
	fi, err := p.Root.root.Lstat(p.Rel)
	if err != nil {
		return fileIdent{}, false
	}
	id, ok := identOf(fi)
	if !ok || id.dev != probe.ident.dev || id.ino != probe.ident.ino || id.size != probe.ident.size || id.mtime != probe.ident.mtime {
		return fileIdent{}, false
	}
	return id, true
}

// streamBase returns the base for storing op's streamed content: the file's
// current content, if its version came from the engine's own write with its
// layout, read from the file (the inode the version was proven for) and
// checked unchanged before the new content is recorded. close releases it.
func (e *Engine) streamBase(op *fileOp) (base *snapshot.Base, close func()) {
	none := func() {}
	if op.cur.base == nil || op.cur.base.chunks == nil {
		return nil, none
	}
	want := op.cur.base.ident
	f, err := op.p.Root.root.Open(op.p.Rel)
	if err != nil {
		return nil, none
	}
	same := func() bool {
		fi, err := f.Stat()
		if err != nil {
			return false
		}
		id, ok := identOf(fi)
		return ok && id == want
	}
	if !same() {
		f.Close()
		return nil, none
	}
	return &snapshot.Base{ID: op.cur.id, Chunks: op.cur.base.chunks, Data: f, Check: func() error {
		if !same() {
			return &PathError{Path: op.p.Rel, Err: ErrConflict, Msg: "changed while it was being read",
				Hint: "read the file again and redo the edit on its current content"}
		}
		return nil
	}}, func() { f.Close() }
}
