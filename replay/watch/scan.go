package watch

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// tree is what a walk of the roots found: every file the rules keep, by
// journal key, with its identity, and every directory to watch.
type tree struct {
	files map[string]replay.Stamp
	dirs  []string // absolute
	rules []*Rules // per root, as the walk left them
}

// walk lists the roots' files and directories, leaving out what the rules
// ignore and never following a symbolic link (a link is not a file the
// journal keeps, and a linked directory may be outside every root).
// enter, if set, is called for each directory kept before its entries are
// walked (the watcher adds its watch there, so that nothing created during
// the walk is missed). About n files are expected (the cache's: the map
// of files is made that large at once, not grown). stamp, if not nil, says
// which files (by key) need their identity; the others are not statted
// (replay.WalkOptions.Stamp) and have a zero one.
func walk(eng *replay.Engine, n int, enter func(dir string) error, stamp func(key string) bool) (*tree, error) {
	t := &tree{files: make(map[string]replay.Stamp, n)}
	jdir := filepath.Dir(Dir(eng))
	for i, root := range eng.Roots() {
		rules := NewRules()
		t.rules = append(t.rules, rules)
		err := walkDir(root, i == 0, root.Dir, rules, jdir, func(d string) error {
			t.dirs = append(t.dirs, d)
			if enter != nil {
				return enter(d)
			}
			return nil
		}, func(k string, st replay.Stamp) { t.files[k] = st }, stamp)
		if err != nil {
			return nil, fmt.Errorf("watch: walk %s: %w", root.Dir, err)
		}
	}
	return t, nil
}

// walkDir walks the directory start of root (first: the engine's first
// root, whose keys are relative), entering each directory the rules keep
// (dir, then, once it is listed, rules.EnterListed) and passing each regular file they keep to file
// with its journal key and identity. It skips the journal's directory jdir,
// wherever it is, and follows no symbolic link (replay.Root.Walk). Only an
// error on start itself, or from dir, ends it: a path that vanished
// meanwhile has its own event. stamp is walk's.
func walkDir(root *replay.Root, first bool, start string, rules *Rules, jdir string, dir func(abs string) error, file func(key string, st replay.Stamp), stamp func(key string) bool) error {
	rel, err := filepath.Rel(root.Dir, start)
	if err != nil {
		return err
	}
	o := replay.WalkOptions{Listed: func(rel string, names []string) {
		rules.EnterListed(filepath.Join(root.Dir, filepath.FromSlash(rel)), rel, names)
	}}
	if stamp != nil {
		o.Stamp = func(rel string) bool { return stamp(key(root, rel, first)) }
	}
	return root.WalkWith(filepath.ToSlash(rel), func(e replay.WalkEntry) error {
		if e.Dir {
			p := filepath.Join(root.Dir, filepath.FromSlash(e.Rel))
			if e.Rel != "." && (p == jdir || rules.ignoredInWalk(e.Rel, true)) {
				return fs.SkipDir
			}
			return dir(p)
		}
		if !rules.ignoredInWalk(e.Rel, false) {
			file(key(root, e.Rel, first), e.Stamp)
		}
		return nil
	}, o)
}

// never is a walk's stamp for a caller that compares no identity.
func never(string) bool { return false }

// walkKnown walks the roots (walk, enter as there) while the journal's
// heads are read (Engine.Known) on a goroutine of its own, and returns
// both: a file needs its identity only where the cache or the journal
// knows it (a first start stats none), so the walk waits for the heads
// at its first file the cache does not know. The cache is not written
// meanwhile.
func (w *Watcher) walkKnown(enter func(dir string) error) (*tree, map[string]journal.Head, error) {
	done := make(chan struct{})
	var heads map[string]journal.Head
	var kerr error
	go func() {
		defer close(done)
		heads, kerr = w.eng.Known()
	}()
	t, err := walk(w.eng, len(w.cache.Files), enter, func(k string) bool {
		if _, ok := w.cache.Files[k]; ok {
			return true
		}
		<-done
		_, ok := heads[k]
		return ok || kerr != nil
	})
	<-done
	if err == nil {
		err = kerr
	}
	return t, heads, err
}

// key is the journal's name of rel in root (replay.Path.Key).
func key(root *replay.Root, rel string, first bool) string {
	if first {
		return rel
	}
	return filepath.ToSlash(filepath.Join(root.Dir, filepath.FromSlash(rel)))
}

// place maps a path under one of the roots (as the watcher's walks and
// watches spell it: the roots' resolved directories) to the index of its
// root, its slash-separated relative path and its journal key, lexically:
// the watcher reaches no path through a symbolic link, and Observe
// resolves every path it records with the engine's checks.
func place(roots []*replay.Root, abs string) (i int, rel, k string, ok bool) {
	for i, r := range roots {
		rl, err := filepath.Rel(r.Dir, abs)
		if err != nil || rl == "." || rl == ".." || strings.HasPrefix(rl, ".."+string(filepath.Separator)) {
			continue
		}
		rel = filepath.ToSlash(rl)
		return i, rel, key(r, rel, i == 0), true
	}
	return 0, "", "", false
}

// absOf is the absolute path of the journal key k (of the engine's roots).
func absOf(roots []*replay.Root, k string) string {
	if filepath.IsAbs(filepath.FromSlash(k)) {
		return filepath.FromSlash(k)
	}
	return filepath.Join(roots[0].Dir, filepath.FromSlash(k))
}

// rulesAt returns the rules of root i, or the defaults when a walk has not
// set them.
func rulesAt(rules []*Rules, i int) *Rules {
	if i < len(rules) {
		return rules[i]
	}
	return NewRules()
}

// cache remembers the version of files by identity between runs, so that a
// starting watcher hashes only the files whose identity changed since: it
// is a hint, never the record (a missing or unreadable cache only costs
// hashing). An entry is kept only for a file whose times are older than
// racyMargin when it is written, so that a change within the same
// timestamp tick cannot hide behind an unchanged identity (git's racy-index
// rule).
type cache struct {
	Version int
	Files   map[string]cacheEntry
	changed bool // since loaded or saved: save writes only then
}

type cacheEntry struct {
	Stamp replay.Stamp
	ID    snapshot.ID
}

const (
	cacheVersion = 2
	racyMargin   = 100 * time.Millisecond
)

// The cache file: "jwc2", then per entry the key's length (uvarint), the
// key, the stamp's five fields and the content ID (8 bytes each, 32 for
// the ID, little-endian). Read whole, at every hook's walk without a
// watcher: gob took 12 % of such a hook's CPU in 10,000 files.
var cacheMagic = []byte("jwc2")

func loadCache(file string) *cache {
	c := &cache{Version: cacheVersion, Files: map[string]cacheEntry{}}
	b, err := os.ReadFile(file)
	if err != nil || !bytes.HasPrefix(b, cacheMagic) {
		return c
	}
	b = b[len(cacheMagic):]
	files := map[string]cacheEntry{}
	for len(b) > 0 {
		n, w := binary.Uvarint(b)
		if w <= 0 || uint64(len(b)-w) < n+5*8+32 {
			return c // torn: a hint lost, nothing else
		}
		b = b[w:]
		k := string(b[:n])
		b = b[n:]
		var e cacheEntry
		e.Stamp.Dev, e.Stamp.Ino = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
		e.Stamp.Size, e.Stamp.Mtime, e.Stamp.Ctime = int64(binary.LittleEndian.Uint64(b[16:])), int64(binary.LittleEndian.Uint64(b[24:])), int64(binary.LittleEndian.Uint64(b[32:]))
		copy(e.ID[:], b[40:72])
		b = b[72:]
		files[k] = e
	}
	c.Files = files
	return c
}

// save writes the cache atomically (a temp file renamed over it), if it
// changed. Losing it loses nothing but time, so it is not fsynced.
func (c *cache) save(file string) error {
	if !c.changed {
		return nil
	}
	buf := make([]byte, 0, len(cacheMagic)+len(c.Files)*100)
	buf = append(buf, cacheMagic...)
	for k, e := range c.Files {
		buf = binary.AppendUvarint(buf, uint64(len(k)))
		buf = append(buf, k...)
		for _, v := range []uint64{e.Stamp.Dev, e.Stamp.Ino, uint64(e.Stamp.Size), uint64(e.Stamp.Mtime), uint64(e.Stamp.Ctime)} {
			buf = binary.LittleEndian.AppendUint64(buf, v)
		}
		buf = append(buf, e.ID[:]...)
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, buf, 0o600); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, file); err != nil {
		return err
	}
	c.changed = false
	return nil
}

// put remembers that the file with identity st has content id, unless its
// times are too recent to trust.
func (c *cache) put(k string, st replay.Stamp, id snapshot.ID) {
	limit := time.Now().Add(-racyMargin).UnixNano()
	if st.Ino == 0 || st.Mtime > limit || st.Ctime > limit {
		c.drop(k)
		return
	}
	if e, ok := c.Files[k]; !ok || e != (cacheEntry{st, id}) {
		c.Files[k] = cacheEntry{st, id}
		c.changed = true
	}
}

// drop forgets k.
func (c *cache) drop(k string) {
	if _, ok := c.Files[k]; ok {
		delete(c.Files, k)
		c.changed = true
	}
}

// clean reports whether the file k with identity st is known to hold its
// head's content: its cached identity and version match.
func (c *cache) clean(k string, st replay.Stamp, h journal.Head, known bool) bool {
	e, ok := c.Files[k]
	return ok && known && st.Ino != 0 && e.Stamp == st && e.ID == h.ID
}

// changes compares a walk with the journal: the files whose identity is not
// cached as their head's content, the files the journal has that the walk
// did not find (gone, unless the rules now ignore them), and the heads that
// the walk confirmed (for the cache).
func changes(eng *replay.Engine, t *tree, c *cache, heads map[string]journal.Head) (dirty []string) {
	for k, st := range t.files {
		if !c.clean(k, st, heads[k], hasHead(heads, k)) {
			dirty = append(dirty, k)
		}
	}
	for k, h := range heads {
		if h.ID.IsZero() {
			continue
		}
		if _, ok := t.files[k]; ok {
			continue
		}
		i, rel, _, ok := place(eng.Roots(), absOf(eng.Roots(), k))
		if !ok {
			continue // a root this process does not have
		}
		if rulesAt(t.rules, i).Ignored(rel, false) {
			continue
		}
		dirty = append(dirty, k)
	}
	return dirty
}

func hasHead(heads map[string]journal.Head, k string) bool {
	_, ok := heads[k]
	return ok
}

// Untracked lists, sorted, the files under the engine's roots that the
// ignore rules keep and the journal has never recorded (no head, present or
// deleted): files made while no watcher ran, which the next start records
// as first seen. `journal status` names them beside the changed ones.
func Untracked(eng *replay.Engine) ([]string, error) {
	t, err := walk(eng, 0, nil, never)
	if err != nil {
		return nil, err
	}
	heads, err := eng.Known()
	if err != nil {
		return nil, err
	}
	var out []string
	for k := range t.files {
		if _, ok := heads[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, nil
}
