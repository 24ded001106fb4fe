package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// Options configure Start.
type Options struct {
	// Settle is how long a file must be quiet before its change is
	// recorded (default 200 ms): a burst of writes becomes one event.
	Settle time.Duration
	// MaxDelay bounds the wait of a change inside a burst that never
	// settles (default 10 s): changes are then recorded at this pace. A
	// burst that ends sooner (a checkout, a formatter over the tree) is
	// one event, so that one undo takes it back.
	MaxDelay time.Duration
	// CallMax bounds how long an agent's call (Begin) may keep the changes
	// made during it waiting for its End (default 10 min; a tool's own
	// limit is shorter: limitOf): past it the call closes as "timeout",
	// and what changed in its window is tied to no one (tie).
	CallMax time.Duration
	// HotLimit and HotPace tame files that change all the time (logs): a
	// file recorded HotLimit times within a minute (default 30) is then
	// recorded at most once every HotPace (default 1 min).
	HotLimit int
	HotPace  time.Duration
	// MaxSize: larger files are not recorded (default 128 MiB), and are
	// listed as skipped.
	MaxSize int64
	// MaxFiles: a workspace with more files than this (after the rules) is
	// not watched (default 500,000): a root set to a home directory by
	// mistake must not be copied into the journal. A .journalignore brings
	// a larger tree under the limit.
	MaxFiles int
	// Logf reports what the watcher does beside recording (overflows,
	// rescans, skipped files); nil: silent.
	Logf func(format string, args ...any)
	// Recorded, if set, is called after each recording (tests, benchmarks).
	Recorded func(*replay.Observed)
}

func (o *Options) defaults() {
	if o.Settle <= 0 {
		o.Settle = 200 * time.Millisecond
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = 10 * time.Second
	}
	if o.CallMax <= 0 {
		o.CallMax = 10 * time.Minute
	}
	if o.HotLimit <= 0 {
		o.HotLimit = 30
	}
	if o.HotPace <= 0 {
		o.HotPace = time.Minute
	}
	if o.MaxSize <= 0 {
		o.MaxSize = 128 << 20
	}
	if o.MaxFiles <= 0 {
		o.MaxFiles = 500000
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
}

// ErrTooMany: the workspace has more files than Options.MaxFiles.
var ErrTooMany = errors.New("too many files to watch")

// ErrBusy: another process already watches this journal's workspace.
var ErrBusy = errors.New("watch: another watcher runs on this journal")

// Watcher records every change made under the engine's roots by another
// process as an observe event (see doc.go).
type Watcher struct {
	o    Options
	eng  *replay.Engine
	dir  string // <journal dir>/watch
	fw   *fsnotify.Watcher
	lock func()
	// walked: this watcher is one walk of a hook without a watcher
	// (scan); the next walk compares every file with the cache, so a file
	// recorded without its stamp (changed within the racy margin of its
	// read: none cached) is read again then, as inotify would have it
	// read again — the read is not waited out and repeated.
	walked bool

	mu        sync.Mutex // guards the fields below
	dirty     map[string]*dirtyState
	dirtyDirs map[string]bool // absolute: their whole subtree is looked at
	first     time.Time       // of the oldest unrecorded change
	last      time.Time       // of the newest that is not a busy file's
	wake      chan struct{}   // a change came: the loop starts ticking
	rescan    bool            // walk everything (overflow, unwatched directories)
	baseline  bool            // with rescan: files first seen are a baseline (ignore rules changed)
	watched   map[string]bool // absolute directories with a watch
	rules     []*Rules        // per root
	calls     map[string]*callState
	hot       map[string]*hotState
	deferred  map[string]time.Time // hot files: not before
	unwatched int                  // directories a watch could not be added to
	said      map[string]bool      // files whose skip was reported; guarded by record
	busyAt    map[string]time.Time // files recorded while busy, and when
	// outside are the changed files a process outside every open call's
	// agent was seen holding open for writing (proofs): no call's.
	outside  map[string]bool
	suspects chan suspect // files for proofs to look at

	record sync.Mutex // one cut or recording at a time: the order of recordings
	// lastDone closes when the last recording handed over (cut) is
	// stored; a recording made under record waits for it first, so
	// events follow the order the changes were taken in. Guarded by record.
	lastDone chan struct{}
	cache    *cache
	barriers sync.Map // name → chan struct{}
	seq      atomic.Uint64
	srv      *server
	stop     context.CancelFunc
	done     sync.WaitGroup
}

// dirtyState is when a file's unrecorded changes began and last came;
// wasBusy says the file was busy when it was last recorded.
type dirtyState struct {
	first, last time.Time
	wasBusy     bool
}

// busy reports whether a file has kept changing for longer than busyAfter,
// or was busy when last recorded and changes again: a log being appended
// to, a download. Such a file does not hold back the recording of the
// others (which wait for every other file to be quiet).
func (d *dirtyState) busy() bool { return d.wasBusy || d.last.Sub(d.first) > busyAfter }

const busyAfter = time.Second

// busyMemory is how long a file recorded while busy counts as busy when it
// changes again.
const busyMemory = 30 * time.Second

type callState struct {
	call  Call
	start time.Time
	limit time.Duration // limitOf the call
}

// over says why the call must close now without its after-hook: its
// agent's process is gone ("exited"), or its time is up ("timeout"); ""
// while it may still end. w.mu need not be held.
func (s *callState) over(now time.Time) string {
	switch {
	case s.call.Proc.Gone():
		return "exited"
	case now.Sub(s.start) >= s.limit:
		return "timeout"
	}
	return ""
}

type hotState struct {
	times []time.Time
}

// Start takes the workspace's watch lock (ErrBusy if another process holds
// it), watches every directory the rules keep, records what changed while
// no watcher ran (a catch-up, see CatchUp), and goes on recording until
// Close. It listens for agents' hooks on <journal dir>/watch/sock.
func Start(ctx context.Context, eng *replay.Engine, o Options) (*Watcher, error) {
	// the engine's batches wait until the catch-up (a first start's
	// baseline) is recorded: it is the tree as found here, before them
	release := eng.HoldEdits()
	defer release()
	o.defaults()
	dir := Dir(eng)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	unlock, err := tryLock(filepath.Join(dir, "lock"))
	if err != nil {
		return nil, err
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		unlock()
		return nil, fmt.Errorf("watch: %w", err)
	}
	w := newWatcher(eng, dir, o)
	w.fw, w.lock = fw, unlock
	if err := fw.Add(dir); err != nil { // barriers
		w.closeEarly()
		return nil, fmt.Errorf("watch: %w", err)
	}
	lctx, cancel := context.WithCancel(context.Background())
	w.stop = cancel
	w.done.Add(1)
	go w.events(lctx)
	// watches first, then the catch-up: a change made during the walk is
	// either seen by the walk or sent by a watch
	w.mu.Lock()
	t, heads, err := w.walkKnown(func(d string) error { w.addWatch(d); return nil })
	if err == nil {
		w.rules = t.rules
	}
	w.mu.Unlock()
	if err == nil && len(t.files) > o.MaxFiles {
		err = fmt.Errorf("watch: %d files under the roots, more than the watcher's limit of %d (%w): add a %s for what need not be journaled, or run without a watcher", len(t.files), o.MaxFiles, ErrTooMany, IgnoreFile)
	}
	if err != nil {
		w.Close()
		return nil, err
	}
	// the socket first: a hook that comes during a long catch-up (a first
	// start's baseline) waits for it instead of walking the tree itself
	w.record.Lock()
	if w.srv, err = listen(w); err != nil {
		o.Logf("journal watch: hooks cannot reach this watcher: %v", err)
	}
	_, err = w.catchUpHeads(ctx, t, heads, true, journal.ToolCatchUp, nil, nil)
	w.record.Unlock()
	if err != nil {
		w.Close()
		return nil, err
	}
	w.suspects = make(chan suspect, 256)
	w.done.Add(2)
	go w.loop(lctx)
	go w.proofs(lctx)
	return w, nil
}

// newWatcher is a Watcher of eng with its state empty and its cache loaded
// from dir; o has its defaults.
func newWatcher(eng *replay.Engine, dir string, o Options) *Watcher {
	done := make(chan struct{})
	close(done)
	return &Watcher{o: o, eng: eng, dir: dir, cache: loadCache(filepath.Join(dir, "cache")), lastDone: done,
		dirty: map[string]*dirtyState{}, dirtyDirs: map[string]bool{}, watched: map[string]bool{}, wake: make(chan struct{}, 1),
		calls: map[string]*callState{}, hot: map[string]*hotState{}, deferred: map[string]time.Time{},
		said: map[string]bool{}, busyAt: map[string]time.Time{}, outside: map[string]bool{}}
}

// Dir is the directory of the watcher's lock, socket, cache and barriers.
func Dir(eng *replay.Engine) string {
	return filepath.Join(filepath.Dir(eng.Journal().Path()), "watch")
}

func (w *Watcher) closeEarly() {
	w.fw.Close()
	w.lock()
}

// Close stops watching, records what is still waiting, and lets go of the
// watch lock.
func (w *Watcher) Close() error {
	if w.srv != nil {
		w.srv.close()
	}
	var err error
	if w.stop != nil {
		w.stop()
		w.done.Wait()
		_, err = w.flush(context.Background(), nil, true)
	}
	w.fw.Close()
	w.record.Lock()
	<-w.lastDone
	w.cache.save(filepath.Join(w.dir, "cache"))
	w.record.Unlock()
	w.lock()
	return err
}

// addWatch watches directory d; w.mu is held. A watch that cannot be added
// (the kernel's limit reached) leaves the directory to rescans.
func (w *Watcher) addWatch(d string) {
	if w.watched[d] {
		return
	}
	if err := w.fw.Add(d); err != nil {
		if w.unwatched == 0 {
			w.o.Logf("journal watch: cannot watch %s (%v): such directories are rescanned every %s instead; raise fs.inotify.max_user_watches", d, err, rescanEvery)
		}
		w.unwatched++
		return
	}
	w.watched[d] = true
}

// rescanEvery is how often the whole tree is walked when some directory
// could not be watched.
const rescanEvery = 5 * time.Second

// events turns the file system's events into dirty paths.
func (w *Watcher) events(ctx context.Context) {
	defer w.done.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			w.mu.Lock()
			w.rescan = true
			w.touch()
			w.mu.Unlock()
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.o.Logf("journal watch: the kernel's event queue overflowed: rescanning the workspace")
			} else {
				w.o.Logf("journal watch: %v: rescanning the workspace", err)
			}
		}
	}
}

func (w *Watcher) event(ev fsnotify.Event) {
	if filepath.Dir(ev.Name) == w.dir {
		if ch, ok := w.barriers.Load(filepath.Base(ev.Name)); ok && ev.Has(fsnotify.Create) {
			close(ch.(chan struct{}))
			w.barriers.Delete(filepath.Base(ev.Name))
		}
		return
	}
	i, rel, k, ok := place(w.eng.Roots(), ev.Name)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	rules := rulesAt(w.rules, i)
	base := filepath.Base(ev.Name)
	if base == ".gitignore" || base == IgnoreFile {
		w.rescan, w.baseline = true, true // the rules change: walk again
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if w.watched[ev.Name] {
			if ev.Has(fsnotify.Rename) {
				w.unwatch(ev.Name) // its subdirectories send nothing
			} else {
				delete(w.watched, ev.Name) // each removed subdirectory sends its own
			}
			w.dirtyDirs[ev.Name] = true
		}
		if !rules.Ignored(rel, false) {
			w.mark(k)
		}
		w.touch()
		return
	}
	fi, err := os.Lstat(ev.Name)
	if err == nil && fi.IsDir() {
		if ev.Has(fsnotify.Create) && !rules.Ignored(rel, true) {
			w.addTree(ev.Name, i, nil)
		}
		return
	}
	if rules.Ignored(rel, false) {
		return
	}
	w.mark(k)
	w.suspect(k, ev.Name)
}

// suspect is a file written while calls are open.
type suspect struct{ k, abs string }

// suspect hands file k (at abs), just written, to proofs when a call that
// may claim it is open and its agent's process known; w.mu is held.
func (w *Watcher) suspect(k, abs string) {
	if w.suspects == nil {
		return
	}
	for _, s := range w.calls {
		if s.call.Proc != nil && !editTools[s.call.Tool] {
			select {
			case w.suspects <- suspect{k, abs}:
			default: // too many at once: left unproven, as before
			}
			return
		}
	}
}

// proofs looks, for each file written while calls are open, for the
// processes holding it open for writing (writersOf): one outside every
// open call's agent's tree of processes makes the change no call's
// (outside). A writer that closed the file before the look proves
// nothing either way.
func (w *Watcher) proofs(ctx context.Context) {
	defer w.done.Done()
	for {
		// every file waiting, looked for in one pass over /proc
		keys := map[string]string{} // abs → key
		select {
		case <-ctx.Done():
			return
		case s := <-w.suspects:
			keys[s.abs] = s.k
		}
		for more := true; more; {
			select {
			case s := <-w.suspects:
				keys[s.abs] = s.k
			default:
				more = false
			}
		}
		abs := make(map[string]bool, len(keys))
		for a := range keys {
			abs[a] = true
		}
		found := writersOf(abs)
		if len(found) == 0 {
			continue
		}
		w.mu.Lock()
		var agents []*Proc
		for _, c := range w.calls {
			if c.call.Proc != nil {
				agents = append(agents, c.call.Proc)
			}
		}
		w.mu.Unlock()
		var out []string
		for a, pids := range found {
			for _, pid := range pids {
				if pid == os.Getpid() { // the journal's own write
					continue
				}
				away := len(agents) > 0
				for _, p := range agents {
					away = away && p.outside(pid)
				}
				if away {
					out = append(out, keys[a])
					break
				}
			}
		}
		w.mu.Lock()
		for _, k := range out {
			if w.dirty[k] != nil {
				w.outside[k] = true
			}
		}
		w.mu.Unlock()
	}
}

// touch notes a change now (of a directory, or a rescan); w.mu is held.
func (w *Watcher) touch() {
	now := time.Now()
	if w.first.IsZero() {
		w.first = now
	}
	w.last = now
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// mark notes a change of file k now; w.mu is held.
func (w *Watcher) mark(k string) {
	now := time.Now()
	d := w.dirty[k]
	if d == nil {
		_, was := w.busyAt[k]
		d = &dirtyState{first: now, last: now, wasBusy: was && now.Sub(w.busyAt[k]) < busyMemory}
		w.dirty[k] = d
	} else {
		d.last = now
	}
	if !d.busy() {
		w.touch()
	} else if w.first.IsZero() {
		w.first = now
	}
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// unwatch forgets d and every watched directory under it (gone or moved:
// a moved directory's new name comes as a Create); w.mu is held.
func (w *Watcher) unwatch(d string) {
	for x := range w.watched {
		if x == d || strings.HasPrefix(x, d+string(filepath.Separator)) {
			w.fw.Remove(x)
			delete(w.watched, x)
		}
	}
}

// addTree watches a new directory d of root i and everything below it
// the rules keep, and marks its files dirty (in into, if not nil, else as
// changed now): they may have been made before the watch was (mkdir -p a/b
// && echo > a/b/f). w.mu is held.
func (w *Watcher) addTree(d string, i int, into map[string]bool) {
	roots := w.eng.Roots()
	walkDir(roots[i], i == 0, d, rulesAt(w.rules, i), filepath.Dir(w.dir), func(p string) error {
		w.addWatch(p)
		return nil
	}, func(k string, _ replay.Stamp) {
		if into != nil {
			into[k] = true
		} else {
			w.mark(k)
		}
	}, never)
	w.touch()
}

// loop records the dirty files once they settle: when every file but the
// busy ones has been quiet for Settle (a burst is one event), a busy file
// once it is quiet itself or has waited MaxDelay. It ticks only while
// something waits, so an idle watcher costs nothing.
func (w *Watcher) loop(ctx context.Context) {
	defer w.done.Done()
	tick := time.NewTicker(w.o.Settle / 4)
	defer tick.Stop()
	lastRescan := time.Now()
	for {
		w.mu.Lock()
		idle := !w.pending() && len(w.deferred) == 0 && w.unwatched == 0
		w.mu.Unlock()
		if idle {
			select {
			case <-ctx.Done():
				return
			case <-w.wake:
			}
		}
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			w.mu.Lock()
			if w.unwatched > 0 && now.Sub(lastRescan) >= rescanEvery {
				w.rescan = true
				w.touch()
				lastRescan = now
			}
			for k, t := range w.deferred {
				if now.After(t) {
					delete(w.deferred, k)
					w.mark(k)
				}
			}
			due := w.due(now) != nil || (w.pendingDirs() && now.Sub(w.last) >= w.o.Settle)
			var open []Call
			stale := false
			for _, c := range w.calls {
				if c.over(now) == "" {
					due = false // the call's End records them
				} else {
					stale = true
				}
				open = append(open, c.call)
			}
			w.mu.Unlock()
			if stale {
				// an after-hook that will never come: the call closes,
				// what changed since it began is tied to no one
				if err := w.reap(ctx); err != nil && ctx.Err() == nil {
					w.o.Logf("journal watch: recording changes: %v (tried again at the next change)", err)
				}
				continue
			}
			if due {
				if _, err := w.flush(ctx, open, false); err != nil && ctx.Err() == nil {
					w.o.Logf("journal watch: recording changes: %v (tried again at the next change)", err)
				}
			}
		}
	}
}

// due returns the files to record now (nil: none); w.mu is held.
func (w *Watcher) due(now time.Time) map[string]bool {
	var out map[string]bool
	add := func(k string) {
		if out == nil {
			out = map[string]bool{}
		}
		out[k] = true
	}
	quiet := now.Sub(w.last) >= w.o.Settle
	for k, d := range w.dirty {
		switch {
		case now.Sub(d.first) >= w.o.MaxDelay:
			add(k)
		case d.busy():
			// a file written again and again waits for a longer pause: one
			// of Settle may be a writer between two writes of one version
			if now.Sub(d.last) >= max(w.o.Settle, busyAfter) {
				add(k)
			}
		case quiet && now.Sub(d.last) >= w.o.Settle:
			add(k)
		}
	}
	return out
}

// pendingDirs: a directory's subtree or the whole tree waits; w.mu is held.
func (w *Watcher) pendingDirs() bool { return len(w.dirtyDirs) > 0 || w.rescan }

// pending reports whether anything waits to be recorded; w.mu is held.
func (w *Watcher) pending() bool {
	return len(w.dirty) > 0 || len(w.dirtyDirs) > 0 || w.rescan
}

// Sync returns once every change made before it was called has reached the
// watcher (a barrier through the same event queue), or ctx ends.
func (w *Watcher) Sync(ctx context.Context) error {
	name := "barrier-" + strconv.FormatUint(w.seq.Add(1), 10)
	ch := make(chan struct{})
	w.barriers.Store(name, ch)
	f := filepath.Join(w.dir, name)
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		w.barriers.Delete(name)
		return fmt.Errorf("watch: barrier: %w", err)
	}
	defer os.Remove(f)
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		w.barriers.Delete(name)
		return ctx.Err()
	}
}

// Flush records now, after a Sync, every change made before it was
// called, named for calls if any (else as the watcher's own).
func (w *Watcher) Flush(ctx context.Context, calls []Call) (*replay.Observed, error) {
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err := w.Sync(sctx)
	cancel()
	if err != nil && ctx.Err() != nil {
		return nil, err
	}
	return w.flush(ctx, calls, true)
}

// Begin records what changed before an agent's call (as the watcher's own
// changes) and opens the call: what changes until its End is named for it.
func (w *Watcher) Begin(ctx context.Context, c Call) (*replay.Observed, error) {
	rec, err := w.beginTake(ctx, c)
	if err != nil {
		return nil, err
	}
	return rec()
}

// beginTake is Begin up to the recording, as endTake: what changed before
// the call is taken (and read) and the call opened; rec stores it.
func (w *Watcher) beginTake(ctx context.Context, c Call) (func() (*replay.Observed, error), error) {
	return w.cut(ctx, nil, keep, &c)
}

// keep closes no open call (cut).
func keep(*callState) string { return "" }

// reap closes the calls whose agent's process is gone or whose time is
// up (callState.over), recording what changed meanwhile: tied to none of
// them.
func (w *Watcher) reap(ctx context.Context) error {
	now := time.Now()
	w.mu.Lock()
	any := false
	for _, s := range w.calls {
		any = any || s.over(now) != ""
	}
	w.mu.Unlock()
	if !any {
		return nil
	}
	rec, err := w.cut(ctx, nil, func(s *callState) string { return s.over(now) }, nil)
	if err == nil {
		_, err = rec()
	}
	return err
}

// Open lists the calls open now, oldest first, with how many changed
// files wait for them.
func (w *Watcher) Open() []OpenCall {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []OpenCall
	for _, s := range w.openCalls() {
		out = append(out, OpenCall{Call: s.call, Start: s.start, Limit: s.limit, Waiting: len(w.dirty)})
	}
	return out
}

// End records what changed since the call's Begin, named for it (and for
// any other call open meanwhile), and closes it. A call the watcher did
// not see begin (it started since) is named all the same.
func (w *Watcher) End(ctx context.Context, c Call) (*replay.Observed, error) {
	rec, err := w.endTake(ctx, c)
	if err != nil {
		return nil, err
	}
	return rec()
}

// endTake is End up to the recording: once every change made before it
// has reached the watcher (its barrier) and the recordings before it are
// done, it takes what changed and closes the call; rec records that, and
// until it has, no other Begin, End or recording goes (they wait for
// w.record). So a hook is answered before the contents are stored, and
// the agent's next call cannot change a file before it is read.
func (w *Watcher) endTake(ctx context.Context, c Call) (rec func() (*replay.Observed, error), err error) {
	w.mu.Lock()
	begun := w.calls[c.ID]
	if begun != nil {
		c.fill(begun.call)
	}
	claimed := begun == nil && len(c.Files) > 0 && w.claimedLocked(c)
	w.mu.Unlock()
	if claimed {
		// an open file-edit call of the session names these files (Cursor's
		// Write, hooked by preToolUse, then afterFileEdit inside it): its
		// own after-hook records them, named for it
		return func() (*replay.Observed, error) { return &replay.Observed{}, nil }, nil
	}
	if begun == nil && len(c.Files) > 0 {
		ob, err := w.endFiles(ctx, c)
		return func() (*replay.Observed, error) { return ob, err }, nil
	}
	return w.cut(ctx, &c, keep, nil)
}

// claimedLocked reports whether an open call of c's agent and session is
// a file-edit call whose input names every file c names (scopeOf). w.mu
// is held.
func (w *Watcher) claimedLocked(c Call) bool {
	roots := w.eng.Roots()
	for _, s := range w.calls {
		if s.call.Agent != c.Agent || s.call.Session != c.Session {
			continue
		}
		scope, ok := scopeOf(s.call, roots)
		if !ok {
			continue
		}
		all := true
		for _, p := range c.Files {
			_, _, k, in := place(roots, p)
			all = all && in && scope[k]
		}
		if all {
			return true
		}
	}
	return false
}

// cut takes, after a barrier, what changed until now, to be named for
// first (if any), the open calls pick gives a reason (closed, their About
// saying it), and the calls still open, as far as tie ties each file to
// them; first and the picked calls are closed, open (if any) opened. The
// files taken are read before cut
// returns (Engine.Capture); rec stores them, after every recording taken
// before (w.lastDone), and must be called once. So an answer given before
// rec runs lets the agent go on: whatever its next call does to a file,
// what was read is what this cut records. (A rescan or a directory's
// subtree is recorded before cut returns.)
func (w *Watcher) cut(ctx context.Context, first *Call, pick func(s *callState) string, open *Call) (rec func() (*replay.Observed, error), err error) {
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err = w.Sync(sctx)
	cancel()
	if err != nil && ctx.Err() != nil {
		return nil, err
	}
	w.record.Lock()
	defer w.record.Unlock()
	w.mu.Lock()
	var calls, still []Call
	if first != nil {
		calls = append(calls, *first)
		delete(w.calls, first.ID)
	}
	for _, s := range w.openCalls() {
		if reason := pick(s); reason != "" {
			c := s.call
			c.Closed = reason
			calls = append(calls, c)
			delete(w.calls, s.call.ID)
		} else {
			still = append(still, s.call)
		}
	}
	w.mu.Unlock()
	t := w.take(true)
	if open != nil {
		w.mu.Lock()
		now := time.Now()
		open.Start = now
		w.calls[open.ID] = &callState{call: *open, start: now, limit: limitOf(*open, w.o.CallMax)}
		w.mu.Unlock()
	}
	calls = append(calls, still...)
	prev, done := w.lastDone, make(chan struct{})
	w.lastDone = done
	if t.rescan || len(t.dirs) > 0 {
		<-prev
		ob, err := w.recordTaken(ctx, calls, t, true)
		close(done)
		return func() (*replay.Observed, error) { return ob, err }, nil
	}
	var capt *replay.Capture
	keys := slices.Collect(maps.Keys(t.dirty))
	if len(keys) > 0 {
		capt = w.eng.Capture(keys)
	}
	return func() (*replay.Observed, error) {
		defer close(done)
		<-prev
		return w.observeNamed(ctx, keys, false, journal.ToolWatch, calls, true, true, capt, t.outside)
	}, nil
}

// openCallList is the calls open now, oldest first.
func (w *Watcher) openCallList() []Call {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []Call
	for _, s := range w.openCalls() {
		out = append(out, s.call)
	}
	return out
}

// openCalls are the open calls, oldest first; w.mu is held.
func (w *Watcher) openCalls() []*callState {
	out := make([]*callState, 0, len(w.calls))
	for _, s := range w.calls {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start.Before(out[j].start) })
	return out
}

// Turn closes the calls of agent's session still open when the session
// says its turn ended or a new prompt came (reason "prompt", "stop",
// "session-end"): their after-hooks are not coming (the agent was killed,
// the call cut short). What changed since is recorded named for them (and
// for the other calls open), each closed call's About saying why.
func (w *Watcher) Turn(ctx context.Context, agent, session, reason string) (*replay.Observed, error) {
	rec, err := w.turnTake(ctx, agent, session, reason)
	if err != nil || rec == nil {
		return &replay.Observed{}, err
	}
	return rec()
}

func (w *Watcher) turnTake(ctx context.Context, agent, session, reason string) (func() (*replay.Observed, error), error) {
	pick := func(s *callState) string {
		if s.call.Agent == agent && s.call.Session == session {
			return reason
		}
		return ""
	}
	w.mu.Lock()
	any := false
	for _, s := range w.calls {
		any = any || pick(s) != ""
	}
	w.mu.Unlock()
	if !any {
		return nil, nil
	}
	return w.cut(ctx, nil, pick, nil)
}

// endFiles is End for a call the watcher never saw begin that names the
// files it changed (Cursor's afterFileEdit, which has no before-hook): only
// those files' waiting changes are recorded, named for c alone; whatever
// else waits is not the call's. A file already recorded (its change settled
// before the after-hook came) is not named again.
func (w *Watcher) endFiles(ctx context.Context, c Call) (*replay.Observed, error) {
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err := w.Sync(sctx)
	cancel()
	if err != nil && ctx.Err() != nil {
		return nil, err
	}
	w.record.Lock()
	defer w.record.Unlock()
	<-w.lastDone
	w.mu.Lock()
	dirty := map[string]bool{}
	for _, p := range c.Files {
		if _, _, k, ok := place(w.eng.Roots(), p); ok && w.dirty[k] != nil {
			dirty[k] = true
			delete(w.dirty, k)
			delete(w.deferred, k)
		}
	}
	w.mu.Unlock()
	tool, args, actor := attribution([]Call{c})
	return w.observe(ctx, slices.Collect(maps.Keys(dirty)), false, tool, args, actor, true, true)
}

// flush records what is dirty: the files, the subtrees of directories gone
// or moved, or (rescan) the whole tree. all records the hot files too.
func (w *Watcher) flush(ctx context.Context, calls []Call, all bool) (*replay.Observed, error) {
	w.record.Lock()
	defer w.record.Unlock()
	<-w.lastDone
	return w.recordTaken(ctx, calls, w.take(all), all)
}

// taken is what one recording takes from the dirty state.
type taken struct {
	dirty            map[string]bool
	dirs             map[string]bool
	rescan, baseline bool
	outside          map[string]bool // of dirty, no call's (Watcher.outside)
}

// take empties the dirty state into what one recording records (what is
// due, or everything if all or nothing is due); w.record is held, w.mu not.
func (w *Watcher) take(all bool) taken {
	w.mu.Lock()
	defer w.mu.Unlock()
	dirty := w.due(time.Now())
	if all || dirty == nil {
		dirty = map[string]bool{}
		for k := range w.dirty {
			dirty[k] = true
		}
	}
	now := time.Now()
	for k := range dirty {
		if d := w.dirty[k]; d != nil && d.busy() {
			w.busyAt[k] = now
		} else {
			delete(w.busyAt, k)
		}
		delete(w.dirty, k)
	}
	if len(w.busyAt) > 4096 {
		for k, t := range w.busyAt {
			if now.Sub(t) > busyMemory {
				delete(w.busyAt, k)
			}
		}
	}
	t := taken{dirty: dirty, dirs: w.dirtyDirs, rescan: w.rescan, baseline: w.baseline, outside: map[string]bool{}}
	for k := range dirty {
		if w.outside[k] {
			t.outside[k] = true
			delete(w.outside, k)
		}
	}
	w.dirtyDirs, w.rescan, w.baseline = map[string]bool{}, false, false
	w.first, w.last = time.Time{}, time.Time{}
	if all {
		for k := range w.deferred {
			dirty[k] = true
		}
		clear(w.deferred)
	}
	return t
}

// recordTaken records what take took, named for calls as far as tie
// ties it to them; w.record is held.
func (w *Watcher) recordTaken(ctx context.Context, calls []Call, t taken, all bool) (*replay.Observed, error) {
	if t.rescan {
		w.mu.Lock()
		tr, heads, err := w.walkKnown(func(d string) error { w.addWatch(d); return nil })
		if err == nil {
			w.rules = tr.rules
		}
		w.mu.Unlock()
		if err != nil {
			return nil, err
		}
		return w.catchUpHeads(ctx, tr, heads, t.baseline, journal.ToolWatch, calls, t.outside, t.dirty)
	}
	if len(t.dirs) > 0 {
		if err := w.subtrees(t.dirs, t.dirty); err != nil {
			return nil, err
		}
	}
	return w.observeNamed(ctx, slices.Collect(maps.Keys(t.dirty)), false, journal.ToolWatch, calls, all, true, nil, t.outside)
}

// named is the tool, arguments and actor of an event of g's files.
func named(g tied) (string, json.RawMessage, *journal.Actor) {
	if len(g.calls) > 0 {
		return attribution(g.calls)
	}
	return untied(g.unproven)
}

// observeNamed is observe of the files keys, each named for the calls tie
// ties it to (one event per set of calls; none for those in outside);
// with no calls, all named tool.
func (w *Watcher) observeNamed(ctx context.Context, keys []string, baseline bool, tool string, calls []Call, all, keep bool, capt *replay.Capture, outside map[string]bool) (*replay.Observed, error) {
	var cs []*replay.Capture
	if capt != nil {
		cs = append(cs, capt)
	}
	if len(calls) == 0 {
		return w.observe(ctx, keys, baseline, tool, nil, nil, all, keep, cs...)
	}
	out := &replay.Observed{}
	for _, g := range tie(keys, calls, w.eng.Roots(), outside) {
		tool, args, actor := named(g)
		ob, err := w.observe(ctx, g.keys, baseline, tool, args, actor, all, keep, cs...)
		if err != nil {
			return out, err
		}
		out.Events = append(out.Events, ob.Events...)
		out.Files = append(out.Files, ob.Files...)
		out.Count += ob.Count
		out.Skipped = append(out.Skipped, ob.Skipped...)
		out.Unsettled = append(out.Unsettled, ob.Unsettled...)
		out.Stamps = append(out.Stamps, ob.Stamps...)
	}
	return out, nil
}

// subtrees marks dirty every file the journal knows under the directories
// dirs (gone or moved) and every file there now: one pass over the heads,
// each checked against its own parent directories, so that removing a
// tree of thousands of directories costs one pass, not one per directory.
func (w *Watcher) subtrees(dirs map[string]bool, dirty map[string]bool) error {
	heads, err := w.eng.Known()
	if err != nil {
		return err
	}
	roots := w.eng.Roots()
	for k := range heads {
		i, _, _, ok := place(roots, absOf(roots, k))
		if !ok {
			continue
		}
		for a := filepath.Dir(absOf(roots, k)); len(a) > len(roots[i].Dir); a = filepath.Dir(a) {
			if dirs[a] {
				dirty[k] = true
				break
			}
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for d := range dirs {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			if i, _, _, ok := place(roots, d); ok {
				w.addTree(d, i, dirty) // a directory moved here: the same event
			}
		}
	}
	return nil
}

// catchUpHeads records what a walk finds changed against the journal's
// heads (files whose identity is not cached as their head's, heads not
// found), with the files in extra, named for calls as far as tie ties
// them (no calls: tool); files the journal never knew are a baseline when
// baseline is set. It takes
// t.files (nil once it returns): a first start's 100,000 keys are not
// kept while they are read.
func (w *Watcher) catchUpHeads(ctx context.Context, t *tree, heads map[string]journal.Head, baseline bool, tool string, calls []Call, outside map[string]bool, extra ...map[string]bool) (*replay.Observed, error) {
	keys := changes(w.eng, t, w.cache, heads)
	for _, m := range extra {
		for k := range m {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	// the walked files the journal knows that Observe may find equal to
	// their heads: cached once it has (cacheEqual); the others are cached
	// as recorded, or already are (changes found them clean)
	var cand []walked
	for _, k := range keys {
		if st, ok := t.files[k]; ok {
			if h, known := heads[k]; known && !h.ID.IsZero() {
				cand = append(cand, walked{k, st, h.ID})
			}
		}
	}
	t.files = nil
	// the files recorded are kept only if cacheEqual needs them
	ob, err := w.observeNamed(ctx, keys, baseline, tool, calls, true, len(cand) > 0, nil, outside)
	if err == nil {
		w.cacheEqual(cand, ob)
		w.cache.save(filepath.Join(w.dir, "cache"))
	}
	return ob, err
}

// walked is a file a walk found, with its identity and its head's content.
type walked struct {
	k  string
	st replay.Stamp
	id snapshot.ID
}

// cacheEqual caches the files a catch-up looked at that Observe found
// equal to their heads (not recorded, not unsettled nor skipped) and that
// still have the identity the walk saw — read in between, so that is the
// head's content. Without it a lost cache would never be rebuilt: every
// later walk would read every file again.
func (w *Watcher) cacheEqual(cand []walked, ob *replay.Observed) {
	if len(cand) == 0 {
		return
	}
	not := make(map[string]bool, len(ob.Files))
	for _, f := range ob.Files {
		not[f.Path] = true
	}
	for _, k := range ob.Unsettled {
		not[k] = true
	}
	for _, s := range ob.Skipped {
		not[s.Path] = true
	}
	roots := w.eng.Roots()
	for _, c := range cand {
		if not[c.k] {
			continue
		}
		fi, err := os.Lstat(absOf(roots, c.k))
		if err != nil {
			continue
		}
		now, ok := replay.StampOf(fi)
		if now.Size == 0 {
			now.Size = fi.Size()
		}
		if ok && now == c.st {
			w.cache.put(c.k, c.st, c.id)
		}
	}
}

// observe records the files keys name through the engine (as capt read
// them, if given); w.record is held, or the recording is a cut's (one at a
// time either way: see lastDone). keep: the Observed returned holds the
// files recorded (else only their count, and each event's files are
// cached as it is appended: a first start's 100,000 are never all held).
func (w *Watcher) observe(ctx context.Context, keys []string, baseline bool, tool string, args json.RawMessage, actor *journal.Actor, all, keep bool, capt ...*replay.Capture) (*replay.Observed, error) {
	if len(keys) == 0 {
		return &replay.Observed{}, nil
	}
	now := time.Now()
	paths := make([]string, 0, len(keys))
	w.mu.Lock()
	for _, k := range keys {
		if !all {
			if h := w.hot[k]; h != nil && len(h.times) >= w.o.HotLimit && now.Sub(h.times[len(h.times)-1]) < w.o.HotPace {
				w.deferred[k] = h.times[len(h.times)-1].Add(w.o.HotPace)
				continue
			}
		}
		paths = append(paths, k)
	}
	w.mu.Unlock()
	o := replay.Observation{Paths: paths, Tool: tool, Args: args, Actor: actor, Baseline: baseline, Watched: w.fw != nil || w.walked,
		MaxSize:  w.o.MaxSize,
		TooLarge: fmt.Sprintf("is larger than the watcher's limit (%d MiB): not journaled; journal watch --max-size raises it", w.o.MaxSize>>20)}
	if len(capt) > 0 {
		o.Captured = capt[0]
	}
	if !keep {
		o.Each = func(files []journal.FileChange, stamps []replay.Stamp) { w.took(now, baseline, files, stamps) }
	}
	ob, err := w.eng.Observe(ctx, o)
	if err != nil {
		w.mu.Lock()
		for _, k := range keys {
			w.mark(k)
		}
		w.mu.Unlock()
		return nil, err
	}
	w.mu.Lock()
	for _, k := range ob.Unsettled {
		w.mark(k)
	}
	w.mu.Unlock()
	if keep {
		w.took(now, baseline, ob.Files, ob.Stamps)
	}
	for _, s := range ob.Skipped {
		if !w.said[s.Path] { // once per file and run
			w.said[s.Path] = true
			w.o.Logf("journal watch: not recorded: %s %s", s.Path, s.Why)
		}
	}
	if w.o.Recorded != nil {
		w.o.Recorded(ob)
	}
	return ob, nil
}

// took notes files an observe recorded at now: their identities as read
// go to the cache, and (unless a catch-up's, found rather than changing
// under the watcher) their times to the hot-file state. Not with w.mu held.
func (w *Watcher) took(now time.Time, baseline bool, files []journal.FileChange, stamps []replay.Stamp) {
	if !baseline {
		w.mu.Lock()
		for _, f := range files {
			h := w.hot[f.Path]
			if h == nil {
				h = &hotState{}
				w.hot[f.Path] = h
			}
			h.times = append(h.times, now)
			for len(h.times) > 0 && now.Sub(h.times[0]) > time.Minute {
				h.times = h.times[1:]
			}
			if len(h.times) > w.o.HotLimit {
				h.times = h.times[len(h.times)-w.o.HotLimit:]
			}
		}
		if len(w.hot) > 4096 {
			for k, h := range w.hot {
				if now.Sub(h.times[len(h.times)-1]) > time.Minute {
					delete(w.hot, k)
				}
			}
		}
		w.mu.Unlock()
	}
	for i, f := range files {
		if st := stamps[i]; st != (replay.Stamp{}) {
			w.cache.put(f.Path, st, f.After) // the identity it had when read, not one it may have now
		} else {
			w.cache.drop(f.Path)
		}
	}
}
