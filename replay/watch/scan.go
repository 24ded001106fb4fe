package watch

import (
	"encoding/gob"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
// the walk is missed).
func walk(eng *replay.Engine, enter func(dir string) error) (*tree, error) {
	t := &tree{files: map[string]replay.Stamp{}}
	for _, root := range eng.Roots() {
		rules := NewRules()
		t.rules = append(t.rules, rules)
		first := root == eng.Roots()[0]
		err := filepath.WalkDir(root.Dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root.Dir {
					return err
				}
				return nil // vanished or unreadable: its own event says so
			}
			rel, _ := filepath.Rel(root.Dir, p)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if rel != "." && rules.Ignored(rel, true) {
					return filepath.SkipDir
				}
				rules.Enter(p, rel)
				t.dirs = append(t.dirs, p)
				if enter != nil {
					if err := enter(p); err != nil {
						return err
					}
				}
				return nil
			}
			if !d.Type().IsRegular() || rules.Ignored(rel, false) {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			st, _ := replay.StampOf(fi)
			if st.Size == 0 {
				st.Size = fi.Size()
			}
			t.files[key(root, rel, first)] = st
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("watch: walk %s: %w", root.Dir, err)
		}
	}
	return t, nil
}

// key is the journal's name of rel in root (replay.Path.Key).
func key(root *replay.Root, rel string, first bool) string {
	if first {
		return rel
	}
	return filepath.ToSlash(filepath.Join(root.Dir, filepath.FromSlash(rel)))
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
}

type cacheEntry struct {
	Stamp replay.Stamp
	ID    snapshot.ID
}

const (
	cacheVersion = 1
	racyMargin   = 100 * time.Millisecond
)

func loadCache(file string) *cache {
	c := &cache{Version: cacheVersion, Files: map[string]cacheEntry{}}
	f, err := os.Open(file)
	if err != nil {
		return c
	}
	defer f.Close()
	var got cache
	if gob.NewDecoder(f).Decode(&got) != nil || got.Version != cacheVersion || got.Files == nil {
		return c
	}
	return &got
}

// save writes the cache atomically (a temp file renamed over it). Losing it
// loses nothing but time, so it is not fsynced.
func (c *cache) save(file string) error {
	tmp := file + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := gob.NewEncoder(f).Encode(c); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, file)
}

// put remembers that the file with identity st has content id, unless its
// times are too recent to trust.
func (c *cache) put(k string, st replay.Stamp, id snapshot.ID) {
	limit := time.Now().Add(-racyMargin).UnixNano()
	if st.Ino == 0 || st.Mtime > limit || st.Ctime > limit {
		delete(c.Files, k)
		return
	}
	c.Files[k] = cacheEntry{st, id}
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
		p, err := eng.Resolve(k)
		if err != nil {
			continue // a root this process does not have
		}
		if rulesFor(eng, t, p.Root).Ignored(p.Rel, false) || strings.HasPrefix(p.Rel, journal.DirName+"/") {
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

func rulesFor(eng *replay.Engine, t *tree, r *replay.Root) *Rules {
	for i, root := range eng.Roots() {
		if root == r && i < len(t.rules) {
			return t.rules[i]
		}
	}
	return NewRules()
}
