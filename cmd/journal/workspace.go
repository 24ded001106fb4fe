package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/replay/watch"
	"github.com/journalfs/journal/snapshot"
	"github.com/spf13/cobra"
)

// errNoJournal means no journal was found.
var errNoJournal = errors.New("no journal found")

// setup checks the global flags; the journal itself is located lazily, by the commands that need it.
func (a *app) setup(cmd *cobra.Command) error {
	switch a.color {
	case "auto", "always", "never":
	default:
		return usageError{fmt.Errorf("--color %q: want auto, always or never", a.color)}
	}
	a.initColor()
	return nil
}

// locate finds the journal file and the workspace root.
func (a *app) locate() error {
	if a.jpath != "" {
		return nil
	}
	p := a.journalFlag
	if p == "" {
		p = os.Getenv("JOURNAL_PATH")
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	if p != "" {
		if p, err = filepath.Abs(p); err != nil {
			return err
		}
		if _, err := os.Stat(p); err != nil {
			return withHint(fmt.Errorf("%s: %w", p, errNoJournal), "check --journal or $JOURNAL_PATH")
		}
		a.wsDir = cwd
		if filepath.Base(filepath.Dir(p)) == journal.DirName {
			a.wsDir = filepath.Dir(filepath.Dir(p))
		}
	} else {
		for dir := cwd; ; {
			cand := filepath.Join(dir, journal.DirName, journal.FileName)
			if fi, err := os.Stat(cand); err == nil && fi.Mode().IsRegular() {
				p, a.wsDir = cand, dir
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return withHint(fmt.Errorf("%w in %s or any parent directory", errNoJournal, cwd),
					"run `journal serve` in the workspace first, or pass --journal PATH")
			}
			dir = parent
		}
	}
	a.jpath = p
	a.rootD = a.roots
	if len(a.rootD) == 0 {
		a.rootD = []string{a.wsDir}
	}
	return nil
}

// view runs fn in a read transaction on the journal (shared lock, never
// creates it). A batch still pending is finished first, as any writer would
// (replay.Open recovers): one a running server completed less than 20 ms ago
// (its seal is deferred, replay/doc.go) is sealed committed, one a crashed
// process left is rolled back, and batches committed by the write-ahead log
// but not yet in the bbolt file (a running server's last few, or a crashed
// one's) are moved into it. Where that is impossible (a read-only journal),
// a pending batch is shown pending and a logged one is not shown.
func (a *app) view(fn func(tx *journal.Tx) error) error {
	a.waitWatcher()
	j, err := a.journal()
	if err != nil {
		return err
	}
	pending := false
	err = j.View(func(tx *journal.Tx) error {
		if pending = len(tx.Pending()) > 0 || j.LogAhead(tx.Last()); pending {
			return nil
		}
		return fn(tx)
	})
	if err != nil || !pending {
		return err
	}
	if e, err := a.engine(); err == nil {
		e.Close()
	}
	return j.View(fn)
}

// journal opens the located journal as it is (never creating it, finishing
// nothing: see view).
func (a *app) journal() (*journal.Journal, error) {
	if err := a.locate(); err != nil {
		return nil, err
	}
	return journal.Open(a.jpath, journal.Options{Waiting: a.sayWaiting})
}

// sayWaiting tells the user, once a command has waited a second for the
// journal's lock, why it does not answer yet.
func (a *app) sayWaiting() {
	fmt.Fprintln(os.Stderr, "journal: waiting for another process using this journal (a journal serve or another command) to finish its change; it goes next")
}

// engine opens the replay engine on the located journal (recovering any crashed batch).
func (a *app) engine() (*replay.Engine, error) {
	if err := a.locate(); err != nil {
		return nil, err
	}
	a.waitWatcher()
	return replay.Open(replay.Options{Roots: a.rootD, JournalPath: a.jpath, Actor: replay.CLIActor(), LockWaiting: a.sayWaiting})
}

// key maps a path given on the command line (relative to the current
// directory, or absolute) to the journal's name for it: relative to the first
// root, or absolute for a file under another root.
func (a *app) key(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	} else if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(d, filepath.Base(abs))
	}
	root := a.rootD[0]
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// knownPath reports whether the journal has a head for key, or for a file under it.
func knownPath(tx *journal.Tx, key string) bool {
	if _, ok := tx.Head(key); ok || key == "." {
		return ok || key == "."
	}
	found := false
	tx.Heads(func(p string, _ journal.Head) error {
		if strings.HasPrefix(p, key+"/") {
			found = true
			return journal.ErrStop
		}
		return nil
	})
	return found
}

// errNeverJournaled is the error for a path the journal has never seen.
func errNeverJournaled(p string) error {
	return withHint(fmt.Errorf("%s: never journaled", p), "`journal status` and `journal log` list the files the journal knows")
}

// now is the current time, or $JOURNAL_NOW.
func now() time.Time {
	if s := os.Getenv("JOURNAL_NOW"); s != "" {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			return t
		}
	}
	return time.Now()
}

// zone is where times are shown: $JOURNAL_TZ, else local.
func zone() *time.Location {
	if s := os.Getenv("JOURNAL_TZ"); s != "" {
		if l, err := time.LoadLocation(s); err == nil {
			return l
		}
	}
	return time.Local
}

// parseDuration accepts Go durations plus days (d) and weeks (w): "90d", "2w", "36h".
func parseDuration(s string) (time.Duration, error) {
	d, err := journal.ParseDuration(s)
	if err != nil {
		return 0, usageError{err}
	}
	return d, nil
}

// parseTime accepts RFC 3339, "2006-01-02", "2006-01-02 15:04", or a duration ago ("2h", "3d").
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, zone()); err == nil {
			return t, nil
		}
	}
	if d, err := parseDuration(s); err == nil {
		return now().Add(-d), nil
	}
	return time.Time{}, usageError{fmt.Errorf("time %q: want RFC 3339, YYYY-MM-DD[ HH:MM], or a duration ago such as 2h or 3d", s)}
}

// parseSeq parses an event number.
func parseSeq(s string) (uint64, error) {
	n, err := strconv.ParseUint(strings.TrimPrefix(s, "#"), 10, 64)
	if err != nil || n == 0 {
		return 0, usageError{fmt.Errorf("%q is not an event number (want 1, 2, …)", s)}
	}
	return n, nil
}

// hintFor returns a hint for well-known errors.
func hintFor(err error) string {
	var h *hinted
	var pe *replay.PathError
	switch {
	case errors.As(err, &h):
		return h.hint
	case errors.As(err, &pe) && pe.Hint != "":
		return pe.Hint
	case errors.Is(err, journal.ErrBusy):
		return "a process holds the journal's lock and has made no progress for seconds: if it is stuck (a hung journal serve), stop it and run the command again"
	case errors.Is(err, journal.ErrRedacted):
		return "a content this needs was redacted: nothing was changed; `journal show EVENT` of the redact event lists what it took out — revert or restore the other files one by one (journal revert EVENT --path P), or edit the file by hand"
	case errors.Is(err, journal.ErrDamaged):
		return journal.DamageHint
	case errors.Is(err, journal.ErrFormat):
		return journal.FormatHint
	case errors.Is(err, journal.ErrCorrupt):
		return "run `journal verify` to find the first damaged record, `journal repair` to see what can be salvaged"
	case errors.Is(err, snapshot.ErrCorrupt):
		return "a stored content is damaged: `journal verify` names the event that needs it, `journal repair` salvages the rest"
	case errors.Is(err, fs.ErrPermission):
		return "check the permissions of the file or directory"
	case strings.HasPrefix(err.Error(), "unknown command"):
		return "`journal --help` lists the commands"
	}
	return ""
}

// waitWatcher lets the recordings a running watcher was handed (a hook
// returns before its call's event is stored, replay/watch HandEnd) finish
// first, so that a command run right after a hook sees its event. No
// watcher: nothing to wait for.
func (a *app) waitWatcher() {
	if a.locate() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	watch.WaitRunning(ctx, a.jpath)
}
