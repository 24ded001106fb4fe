package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/aymanbagabas/go-udiff/lcs"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// state is what a file is on disk at one moment.
type state struct {
	exists bool
	id     snapshot.ID // zero if !exists
	mode   fs.FileMode // permission bits
	size   int64
	data   []byte        // nil for streamed (large) files
	base   *versionEntry // the version cache's entry the version came from, if it did
}

// readState reads (small files) or hashes by streaming (large files) the file
// at p. A large file whose identity (device, inode, size, mtime, ctime) is
// unchanged takes its version from the version cache (see version.go): with
// cached (lock-free reads), any entry; otherwise (batches under the lock)
// only one the engine's own write proved.
func (e *Engine) readState(p Path, cached bool) (state, error) {
	fi, err := p.Root.root.Lstat(p.Rel)
	if errors.Is(err, fs.ErrNotExist) {
		return state{}, nil
	}
	if err != nil {
		return state{}, mapFSError(p, "stat", err)
	}
	return e.readStated(p, cached, fi, nil)
}

// readStated is readState of the file whose stat (Lstat, taken before)
// is fi: its size chooses how it is read, its mode is the state's; a caller
// that compares fi with a stat taken after the read knows the two agree
// (readBetweenStats).
func (e *Engine) readStated(p Path, cached bool, fi fs.FileInfo, ds *dirHandles) (state, error) {
	if err := checkFile(p, fi); err != nil {
		return state{}, err
	}
	f, err := ds.open(p)
	if err != nil {
		return state{}, mapFSError(p, "open", err)
	}
	defer f.Close()
	st := state{exists: true, mode: fi.Mode().Perm(), size: fi.Size()}
	if fi.Size() < e.streamMin {
		if st.data, err = readAll(f, fi.Size()); err != nil {
			return state{}, mapFSError(p, "read", err)
		}
		if st.data == nil {
			st.data = []byte{}
		}
		st.id, st.size = snapshot.Sum(st.data), int64(len(st.data))
		return st, nil
	}
	if ent, ok := versions.entry(p, fi, !cached); ok {
		st.id, st.base = ent.id, &ent
		return st, nil
	}
	start := time.Now()
	largeHashes.Add(1)
	if st.id, st.size, err = hashReader(f); err != nil {
		return state{}, mapFSError(p, "read", err)
	}
	if after, err := f.Stat(); err == nil {
		versions.put(p, fi, after, start, st.id)
	}
	return st, nil
}

// largeHashes counts the large files readState has hashed (for tests).
var largeHashes atomic.Int64

// readAll reads f whole into a buffer sized from its stat (io.ReadAll grows
// by doubling, which costs a 50 MB file four copies and as many clears).
// A read that stops at the stat's size, short of the byte over asked for,
// is at the end of the file (a regular file reads short only there), so a
// small file costs one read, not two; a file that grew or shrank since its
// stat is read on to its end, and a caller that must know it did not
// change compares stats around the read (readBetweenStats).
func readAll(f io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, 0, size+1) // the byte over: EOF is seen without a copy
	for {
		asked := cap(buf) - len(buf)
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF || (err == nil && n > 0 && n < asked && int64(len(buf)) == size) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) { // the file grew since its stat
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// tempName is the temporary file an apply of event seq writes beside rel.
// Recovery finds it from the event alone.
func tempName(rel string, seq uint64) string {
	base := path.Base(rel)
	if len(base) > 200 {
		base = base[:200]
	}
	return path.Join(path.Dir(rel), "."+base+".jtmp-"+strconv.FormatUint(seq, 10))
}

// isTemp reports whether a directory entry name is one of our temporary files.
func isTemp(name string) bool {
	i := strings.LastIndex(name, ".jtmp-")
	if i < 0 || !strings.HasPrefix(name, ".") {
		return false
	}
	_, err := strconv.ParseUint(name[i+6:], 10, 64)
	return err == nil
}

// createdDir is a directory a batch made for a new file; a rollback removes it again.
type createdDir struct {
	root *Root
	rel  string
}

// missingDirs returns p's parent directories that do not exist, innermost
// first.
func missingDirs(p Path) []string {
	var missing []string
	for d := path.Dir(p.Rel); d != "."; d = path.Dir(d) {
		if _, err := p.Root.root.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
	}
	return missing
}

// mkdirs makes p's missing parent directories and appends them, outermost
// first, to created (if not nil).
func (e *Engine) mkdirs(p Path, created *[]createdDir) error {
	dir := path.Dir(p.Rel)
	missing := missingDirs(p)
	if len(missing) == 0 {
		return nil
	}
	if err := p.Root.root.MkdirAll(dir, 0o755); err != nil {
		return mapFSError(p, "mkdir", err)
	}
	if created != nil {
		for i := len(missing) - 1; i >= 0; i-- {
			*created = append(*created, createdDir{p.Root, missing[i]})
		}
	}
	return nil
}

// removeDirs removes directories a failed batch created, innermost first;
// a directory that is not empty (someone else wrote there) stays.
func removeDirs(dirs []createdDir) {
	for i := len(dirs) - 1; i >= 0; i-- {
		dirs[i].root.root.Remove(dirs[i].rel)
	}
}

// writeTemp creates tmp (which must not exist) with mode, fills it by calling
// fill, and fsyncs it. It returns the size written. Parent directories it
// has to make are appended to created.
func (e *Engine) writeTemp(p Path, tmp string, mode fs.FileMode, created *[]createdDir, fill func(w io.Writer) error) (int64, error) {
	return e.writeTempSync(p, tmp, mode, created, fill, true)
}

// writeTempSync is writeTemp; with sync false the temp is not fsynced (a
// logged batch's temps: the write-ahead log holds their contents, and the
// checkpoint fsyncs the files, see wal.go).
func (e *Engine) writeTempSync(p Path, tmp string, mode fs.FileMode, created *[]createdDir, fill func(w io.Writer) error, sync bool) (int64, error) {
	if err := e.step("mkdir", p.Rel); err != nil {
		return 0, err
	}
	if err := e.mkdirs(p, created); err != nil {
		return 0, err
	}
	if err := e.step("create", p.Rel); err != nil {
		return 0, err
	}
	f, err := p.Root.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if errors.Is(err, fs.ErrExist) { // a leftover from a crash of an event with this number
		p.Root.root.Remove(tmp)
		f, err = p.Root.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	}
	if err != nil {
		return 0, mapFSError(p, "create temporary file", err)
	}
	fail := func(err error) (int64, error) {
		f.Close()
		p.Root.root.Remove(tmp)
		return 0, classify(err)
	}
	cw := &countingWriter{w: earlyWriteback(f, f)}
	if err := e.step("write", p.Rel); err != nil {
		return fail(err)
	}
	if err := fill(cw); err != nil {
		return fail(fmt.Errorf("replay: write %s: %w", p.Rel, err))
	}
	if err := f.Chmod(mode); err != nil {
		return fail(fmt.Errorf("replay: chmod %s: %w", p.Rel, err))
	}
	if !sync {
		if err := e.step("written", p.Rel); err != nil {
			return fail(err)
		}
	} else {
		if err := e.step("fsync", p.Rel); err != nil {
			return fail(err)
		}
		if err := f.Sync(); err != nil {
			return fail(fmt.Errorf("replay: fsync %s: %w", p.Rel, err))
		}
	}
	if err := f.Close(); err != nil {
		p.Root.root.Remove(tmp)
		return 0, classify(fmt.Errorf("replay: close %s: %w", p.Rel, err))
	}
	return cw.n, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

// Write implements io.Writer.
func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (e *Engine) rename(p Path, tmp string) error {
	if err := e.step("rename", p.Rel); err != nil {
		return err
	}
	if err := p.Root.root.Rename(tmp, p.Rel); err != nil {
		return classify(mapFSError(p, "rename", err))
	}
	return nil
}

func (e *Engine) remove(p Path) error {
	if err := e.step("remove", p.Rel); err != nil {
		return err
	}
	if err := p.Root.root.Remove(p.Rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return mapFSError(p, "remove", err)
	}
	return nil
}

func (e *Engine) syncDir(r *Root, dir string) error {
	if err := e.step("dirsync", dir); err != nil {
		return err
	}
	d, err := r.root.Open(dir)
	if err != nil {
		return mapFSError(Path{Root: r, Rel: dir, Key: dir}, "open directory", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("replay: fsync dir %s: %w", dir, err)
	}
	return nil
}

// observedLines counts the lines a change made outside the journal added
// and removed, from the version the journal last recorded (before) to the
// file as it is (cur): text files held in memory, up to lineStats' limit.
func observedLines(tx *journal.Tx, before snapshot.ID, cur state) (added, removed int) {
	if cur.exists && cur.data == nil { // streamed: too large to count
		return 0, 0
	}
	var b []byte
	if !before.IsZero() {
		n, err := snapshot.Size(tx.Bolt(), before)
		if err != nil {
			return 0, 0
		}
		if n > lineStatsMax {
			if cur.exists {
				return 0, 0 // too large to diff
			}
			// a delete takes out every line: counted as the content
			// streams by, whatever its size (a binary one counts none)
			var lc lineCounter
			if snapshot.Get(tx.Bolt(), before, &lc) != nil || lc.binary {
				return 0, 0
			}
			return 0, lc.lines()
		}
		if b, err = snapshot.Bytes(tx.Bolt(), before); err != nil {
			return 0, 0
		}
	}
	return lineStats(b, cur.data)
}

// lineCounter counts the lines of a text written to it, and notes a NUL
// byte (a binary content, whose lines are not counted).
type lineCounter struct {
	n       int
	last    byte
	written bool
	binary  bool
}

func (c *lineCounter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		c.n += bytes.Count(p, []byte{'\n'})
		c.binary = c.binary || bytes.IndexByte(p, 0) >= 0
		c.last, c.written = p[len(p)-1], true
	}
	return len(p), nil
}

// lines is the text's line count, a last line without its newline included.
func (c *lineCounter) lines() int {
	if c.written && c.last != '\n' {
		return c.n + 1
	}
	return c.n
}

// lineStatsMax is the largest text lineStats counts.
const lineStatsMax = 4 << 20

// lineStats counts lines added and removed between two small texts.
//
// Lines both texts share at their start and at their end are never part of a
// minimal line diff, so only the lines between them are split and diffed: a
// one-line edit of a 300-line file diffs one line against one, not 300
// against 300 (and copies 60 bytes, not both texts).
func lineStats(before, after []byte) (added, removed int) {
	if len(before) > lineStatsMax || len(after) > lineStatsMax || bytes.IndexByte(before, 0) >= 0 || bytes.IndexByte(after, 0) >= 0 {
		return 0, 0
	}
	before, after = trimCommonLines(before, after)
	if len(before) == 0 || len(after) == 0 {
		return countLines(after), countLines(before)
	}
	// the lines are read in place (the texts do not change meanwhile): a
	// batch's contents can be megabytes
	for _, d := range lcs.DiffLines(splitLines(unsafe.String(unsafe.SliceData(before), len(before))), splitLines(unsafe.String(unsafe.SliceData(after), len(after)))) {
		removed += d.End - d.Start
		added += d.ReplEnd - d.ReplStart
	}
	return added, removed
}

// trimCommonLines drops the whole lines a and b share at their start and at
// their end (without overlap) and returns what is left of each.
func trimCommonLines(a, b []byte) ([]byte, []byte) {
	const block = 64 // compared with bytes.Equal (vector instructions), then byte by byte
	n := min(len(a), len(b))
	p := 0
	for p+block <= n && bytes.Equal(a[p:p+block], b[p:p+block]) {
		p += block
	}
	for p < n && a[p] == b[p] {
		p++
	}
	// Back up to the start of the line the first difference is in.
	p = bytes.LastIndexByte(a[:p], '\n') + 1
	a, b = a[p:], b[p:]
	n = min(len(a), len(b))
	s := 0
	for s+block <= n && bytes.Equal(a[len(a)-s-block:len(a)-s], b[len(b)-s-block:len(b)-s]) {
		s += block
	}
	for s < n && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	// The common suffix must start a line in both texts: move its start
	// forward past the first newline inside it unless it already does.
	i, j := len(a)-s, len(b)-s
	if (i > 0 && a[i-1] != '\n') || (j > 0 && b[j-1] != '\n') {
		k := bytes.IndexByte(a[i:], '\n')
		if k < 0 {
			return a, b
		}
		i, j = i+k+1, j+k+1
	}
	return a[:i], b[:j]
}

// countLines is the number of lines of s: its newlines, plus one for a last
// line without one.
func countLines(s []byte) int {
	n := bytes.Count(s, []byte{'\n'})
	if len(s) > 0 && s[len(s)-1] != '\n' {
		n++
	}
	return n
}

// splitLines splits s after each '\n', keeping terminators.
func splitLines(s string) []string {
	out := make([]string, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
