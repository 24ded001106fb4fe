package watch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// Without a watcher no process keeps an agent's open call between its
// before- and after-hook: the after-hook's walk names for the call what
// changed since. A git commit made inside the call (a `git commit` in a
// Bash call) runs the post-commit hook before that, which records the
// committed files the journal has not yet seen (gitai's fail-closed
// Flush) — as an outside change, untracked, and the after-hook then finds
// nothing left. So Begin without a watcher leaves a note of the open call
// under open/ in the watcher's directory (one small file, as OpenMCP
// does), End and the session's next prompt or end of turn or session
// take it away (CloseOpen, CloseOpenSessions), and ObserveOpen — the git
// hooks' record without a watcher — names what it records for the calls
// still open, as a watcher's flush names what changed during an open call.
// A call whose agent's process is gone, or older than its tool's limit
// (limitOf, CallMax by default), is not open.

// openNote is what Begin leaves of an open call without a watcher.
type openNote struct {
	Call Call      `json:"call"`
	Time time.Time `json:"time"`
}

// callNotePath is the note of call c under dir/sub (mcp/, open/): named
// by the first 12 bytes of SHA-256(agent NUL session NUL call id) in hex.
func callNotePath(dir, sub string, c Call) string {
	sum := sha256.Sum256([]byte(c.Agent + "\x00" + c.Session + "\x00" + c.ID))
	return filepath.Join(dir, sub, hex.EncodeToString(sum[:12])+".json")
}

// writeNote writes v's JSON at p whole (a reader sees the old note or the
// new one, never part of one).
func writeNote(p string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	tmp := p + "." + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// removeNote removes the note at p; one already gone is no error.
func removeNote(p string) error {
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// noteOpen leaves the note of c, opened now without a watcher.
func noteOpen(dir string, c Call, now time.Time) error {
	if c.ID == "" {
		return nil
	}
	return writeNote(callNotePath(dir, "open", c), openNote{Call: c, Time: now.UTC()})
}

// openedAt is when c's note says it opened (zero: no note).
func openedAt(dir string, c Call) time.Time {
	b, err := os.ReadFile(callNotePath(dir, "open", c))
	var n openNote
	if err != nil || json.Unmarshal(b, &n) != nil {
		return time.Time{}
	}
	return n.Time
}

// CloseOpen removes the note of c's open call (its after-hook came).
func CloseOpen(dir string, c Call) error {
	return removeNote(callNotePath(dir, "open", c))
}

// CloseOpenSessions removes the notes of the open calls of agent's session
// (its next prompt came, or its turn or session ended).
func CloseOpenSessions(dir, agent, session string) error {
	var errs []error
	for p, n := range readOpen(dir) {
		if n.Call.Agent == agent && n.Call.Session == session {
			if err := removeNote(p); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// readOpen reads the notes of open calls, by their paths.
func readOpen(dir string) map[string]openNote {
	es, err := os.ReadDir(filepath.Join(dir, "open"))
	if err != nil {
		return nil
	}
	out := map[string]openNote{}
	for _, e := range es {
		if filepath.Ext(e.Name()) != ".json" {
			continue
		}
		p := filepath.Join(dir, "open", e.Name())
		b, err := os.ReadFile(p)
		var n openNote
		if err == nil && json.Unmarshal(b, &n) == nil {
			out[p] = n
		}
	}
	return out
}

// openCalls are the calls whose notes say they are open at now, oldest
// first; the notes of calls over (their agent gone, past their limit) are
// removed.
func openCalls(dir string, now time.Time) []Call {
	o := Options{}
	o.defaults()
	var notes []openNote
	for p, n := range readOpen(dir) {
		if n.Call.Proc.Gone() || now.Sub(n.Time) >= limitOf(n.Call, o.CallMax) {
			os.Remove(p)
			continue
		}
		notes = append(notes, n)
	}
	sort.Slice(notes, func(i, j int) bool { return notes[i].Time.Before(notes[j].Time) })
	calls := make([]Call, len(notes))
	for i, n := range notes {
		calls[i] = n.Call
	}
	return calls
}

// ObserveOpen records, without a watcher, what the files keys hold that
// the journal has not yet seen: named for the calls open now (their
// notes), as a watcher records a change made during an open call — the
// files a file-edit call names for it alone, a shell call's all of them —
// and the rest as an outside change (files the journal never knew as a
// baseline). What it records is what an after-hook's walk would have.
func ObserveOpen(ctx context.Context, eng *replay.Engine, keys []string) error {
	calls := openCalls(Dir(eng), time.Now())
	var named, outside []string
	if len(calls) == 0 {
		outside = keys
	} else {
		all := false
		scope := map[string]bool{}
		for _, c := range calls {
			s, ok := scopeOf(c, eng.Roots())
			if !ok {
				all = true
			}
			for k := range s {
				scope[k] = true
			}
		}
		for _, k := range keys {
			if all || scope[k] {
				named = append(named, k)
			} else {
				outside = append(outside, k)
			}
		}
	}
	if len(named) > 0 {
		tool, args, actor := attribution(calls)
		if _, err := eng.Observe(ctx, replay.Observation{Paths: named, Tool: tool, Args: args, Actor: actor}); err != nil {
			return err
		}
	}
	if len(outside) > 0 {
		_, err := eng.Observe(ctx, replay.Observation{Paths: outside, Tool: journal.ToolWatch, Baseline: true})
		return err
	}
	return nil
}
