package watch

import (
	"encoding/gob"
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
// the walk is missed).
func walk(eng *replay.Engine, enter func(dir string) error) (*tree, error) {
	t := &tree{files: map[string]replay.Stamp{}}
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
		}, func(k string, e fs.DirEntry) {
			fi, err := e.Info()
			if err != nil {
				return
			}
			st, _ := replay.StampOf(fi)
			if st.Size == 0 {
				st.Size = fi.Size()
			}
			t.files[k] = st
		})
		if err != nil {
			return nil, fmt.Errorf("watch: walk %s: %w", root.Dir, err)
		}
	}
	return t, nil
}

// walkDir walks the directory start of root (first: the engine's first
// root, whose keys are relative), entering each directory the rules keep
// (rules.Enter, then dir) and passing each regular file they keep to file
// with its journal key. It skips the journal's directory jdir, wherever it
// is, and follows no symbolic link. Only an error on start itself, or
// from dir, ends it: a path that vanished meanwhile has its own event.
func walkDir(root *replay.Root, first bool, start string, rules *Rules, jdir string, dir func(abs string) error, file func(key string, e fs.DirEntry)) error {
	return filepath.WalkDir(start, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == start {
				return err
			}
			return nil
		}
		rel, _ := filepath.Rel(root.Dir, p)
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			if rel != "." && (p == jdir || rules.Ignored(rel, true)) {
				return filepath.SkipDir
			}
			rules.Enter(p, rel)
			return dir(p)
		}
		if e.Type().IsRegular() && !rules.Ignored(rel, false) {
			file(key(root, rel, first), e)
		}
		return nil
	})
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
	t, err := walk(eng, nil)
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
