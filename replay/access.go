package replay

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/journalfs/journal/snapshot"
)

// Strategy is how a View holds a file's content.
type Strategy string

// Access strategies, chosen by size (seed 004): small files are read into
// memory, medium ones memory-mapped, the largest streamed.
const (
	StrategyMemory Strategy = "memory" // size < the engine's stream threshold (16 MiB)
	StrategyMmap   Strategy = "mmap"   // up to the mmap limit (64 MiB)
	StrategyStream Strategy = "stream" // larger: read through ReadAt / NewReader only
)

// DefaultStreamThreshold is the size from which the engine streams a file's
// content instead of holding it in memory (Options.StreamThreshold), and
// DefaultMmapLimit the largest file View maps into memory.
//
// Both bound a server's resident memory by design (≤ 128 MiB for any edit
// or read, whatever the file's size). An edit held in memory needs the
// content before and after, and more while it is compared and stored:
// several times the file's size at its peak. Every page of a mapping a scan
// touches counts in the process's resident memory, and touching them is
// fast (the kernel maps cached pages several at a time), so no watcher can
// drop them behind a scan: a mapped file's pages count in resident memory
// while it is searched and edited, and the mapping limit bounds them.
// Larger files are streamed in blocks,
// at the same cost per byte here; what they lose is the fuzzy search the
// large-file tools run only on files they hold whole (a refusal, never a
// guess).
const (
	DefaultStreamThreshold = 16 << 20
	DefaultMmapLimit       = 64 << 20
)

// View is a read-only view of one file's content. Data holds the whole content
// for the memory and mmap strategies (a mapping is read-only: never write to
// it) and is nil when streamed. Close releases the mapping and the file.
//
// A mapped file that another process truncates while it is mapped can fault
// on access; the engine itself never truncates (it writes a temp file and
// renames it), so a View stays valid across the engine's edits.
type View struct {
	Path     Path
	ID       snapshot.ID
	Mode     fs.FileMode
	Size     int64
	Strategy Strategy
	Data     []byte

	f     *os.File
	unmap func() error
}

// View opens a file for reading by size, without the journal's lock. The
// version of a file at or above the stream threshold comes from a cache keyed
// by the file's identity (device, inode, size, modification and change
// times) when the file has not changed since it was last hashed, so repeated
// reads of a huge file do not hash it again. mmapLimit ≤ 0 means
// DefaultMmapLimit.
func (e *Engine) View(p string, mmapLimit int64) (*View, error) {
	rp, err := e.Resolve(p)
	if err != nil {
		return nil, err
	}
	return e.openView(rp, mmapLimit, nil)
}

// View opens a file like Engine.View while a batch holds the lock; its
// version is the one the batch sees (hashed under the lock, never cached).
func (r *Reader) View(p string, mmapLimit int64) (*View, error) {
	rp, err := r.e.Resolve(p)
	if err != nil {
		return nil, err
	}
	st, err := r.state(rp)
	if err != nil {
		return nil, err
	}
	if !st.exists {
		return nil, &PathError{Path: rp.Rel, Err: ErrNotFound, Msg: "does not exist"}
	}
	return r.e.openView(rp, mmapLimit, &st)
}

func (e *Engine) openView(p Path, mmapLimit int64, known *state) (*View, error) {
	if mmapLimit <= 0 {
		mmapLimit = DefaultMmapLimit
	}
	fi, err := p.Root.root.Lstat(p.Rel)
	if err != nil {
		return nil, mapFSError(p, "stat", err)
	}
	if err := checkFile(p, fi); err != nil {
		return nil, err
	}
	f, err := p.Root.root.Open(p.Rel)
	if err != nil {
		return nil, mapFSError(p, "open", err)
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, mapFSError(p, "stat", err)
	}
	v := &View{Path: p, Mode: fi.Mode().Perm(), Size: fi.Size(), f: f}
	fail := func(err error) (*View, error) {
		v.Close()
		return nil, err
	}
	switch {
	case v.Size < e.streamMin:
		v.Strategy = StrategyMemory
		if known != nil && known.data != nil {
			v.Data, v.ID, v.Size = known.data, known.id, int64(len(known.data))
			return v, nil
		}
		if v.Data, err = readAll(f, v.Size); err != nil {
			return fail(mapFSError(p, "read", err))
		}
		v.ID, v.Size = snapshot.Sum(v.Data), int64(len(v.Data))
		return v, nil
	case v.Size <= mmapLimit:
		if data, unmap, err := mmapFile(f, v.Size); err == nil {
			v.Strategy, v.Data, v.unmap = StrategyMmap, data, unmap
			break
		}
		v.Strategy = StrategyStream // mapping refused (platform, limits): stream instead
	default:
		v.Strategy = StrategyStream
	}
	if known != nil {
		v.ID = known.id
		return v, nil
	}
	if id, ok := versions.get(p, fi, false); ok {
		v.ID = id
		return v, nil
	}
	start := time.Now()
	h := snapshot.NewHasher()
	if v.Data != nil {
		h.Write(v.Data)
	} else if _, err := io.Copy(h, io.NewSectionReader(f, 0, v.Size)); err != nil {
		return fail(mapFSError(p, "read", err))
	}
	v.ID = h.ID()
	if after, err := f.Stat(); err == nil {
		versions.put(p, fi, after, start, v.ID)
	}
	return v, nil
}

// ReadAt reads from the content at off.
func (v *View) ReadAt(b []byte, off int64) (int, error) {
	if v.Data != nil {
		if off >= int64(len(v.Data)) {
			return 0, io.EOF
		}
		n := copy(b, v.Data[off:])
		if n < len(b) {
			return n, io.EOF
		}
		return n, nil
	}
	if v.f == nil {
		return 0, errors.New("replay: read of a closed view")
	}
	return v.f.ReadAt(b, off)
}

// NewReader returns a reader of the whole content from its start.
func (v *View) NewReader() io.Reader { return io.NewSectionReader(v, 0, v.Size) }

// Close releases the mapping (Data becomes invalid) and the file.
func (v *View) Close() error {
	var err error
	if v.unmap != nil {
		err = v.unmap()
		v.unmap, v.Data = nil, nil
	}
	if v.f != nil {
		if cerr := v.f.Close(); err == nil {
			err = cerr
		}
		v.f = nil
	}
	return err
}
