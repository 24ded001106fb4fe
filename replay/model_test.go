package replay_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/ops/merge"
	"github.com/journalfs/journal/replay"
)

// model is a simple in-memory account of the workspace and its events,
// independent of the engine's storage and indexes.
type model struct {
	disk   map[string]*string // nil: absent
	heads  map[string]*string
	known  map[string]bool
	events []mevent // events[i] has seq i+1
}

type mevent struct {
	kind           journal.Kind
	session        string
	files          map[string][2]*string // before, after
	order          []string              // files in the engine's order (the batch's)
	reverts, revBy uint64
}

func str(s string) *string { return &s }

func eq(a, b *string) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }

func (m *model) live(seq uint64) bool {
	by := m.events[seq-1].revBy
	return by == 0 || !m.live(by)
}

// commit records an event that changes files to their new contents, preceded
// by observe events for files changed outside; it returns the event's seq.
func (m *model) commit(kind journal.Kind, session string, reverts uint64, changes map[string]*string, order []string) uint64 {
	ev := mevent{kind: kind, session: session, files: map[string][2]*string{}, reverts: reverts}
	var keep []string
	for _, p := range order {
		if after, ok := changes[p]; ok && !eq(after, m.disk[p]) { // the engine skips files that do not change
			keep = append(keep, p)
		}
	}
	if len(keep) == 0 {
		return 0
	}
	for _, p := range keep {
		if m.known[p] && !eq(m.heads[p], m.disk[p]) {
			m.events = append(m.events, mevent{kind: journal.KindObserve, files: map[string][2]*string{p: {m.heads[p], m.disk[p]}}, order: []string{p}})
		}
		ev.files[p] = [2]*string{m.disk[p], changes[p]}
		ev.order = append(ev.order, p)
	}
	changes = map[string]*string{}
	for _, p := range keep {
		changes[p] = ev.files[p][1]
	}
	for p, after := range changes {
		m.disk[p], m.heads[p], m.known[p] = after, after, true
	}
	m.events = append(m.events, ev)
	seq := uint64(len(m.events))
	if reverts != 0 {
		m.events[reverts-1].revBy = seq
	}
	return seq
}

var errModelConflict = errors.New("model: conflict")

// planRevert predicts the changes of reverting seq.
func (m *model) planRevert(seq uint64) (map[string]*string, error) {
	ev := m.events[seq-1]
	if ev.revBy != 0 && m.live(ev.revBy) {
		return nil, replay.ErrNothing
	}
	out := map[string]*string{}
	for _, p := range ev.order {
		ba := ev.files[p]
		before, after, cur := ba[0], ba[1], m.disk[p]
		switch {
		case eq(cur, before):
		case eq(cur, after):
			out[p] = before
		case before == nil || after == nil || cur == nil:
			return nil, errModelConflict
		default:
			merged, err := merge.Merge3([]byte(*after), []byte(*cur), []byte(*before))
			if err != nil {
				return nil, errModelConflict
			}
			out[p] = str(string(merged))
		}
	}
	if len(out) == 0 {
		return nil, replay.ErrNothing
	}
	return out, nil
}

func (m *model) findUndo() uint64 {
	for s := len(m.events); s > 0; s-- {
		ev := m.events[s-1]
		if ev.kind == journal.KindObserve || ev.kind == journal.KindUndo || !m.live(uint64(s)) {
			continue
		}
		return uint64(s)
	}
	return 0
}

func (m *model) findRedo() uint64 {
	for s := len(m.events); s > 0; s-- {
		ev := m.events[s-1]
		switch {
		case ev.kind == journal.KindObserve || ev.kind == journal.KindRedo:
		case ev.kind == journal.KindUndo && m.live(uint64(s)):
			return uint64(s)
		case ev.kind == journal.KindUndo:
		default:
			return 0
		}
	}
	return 0
}

func mutate(r *rand.Rand, cur *string) *string {
	if cur == nil || r.IntN(15) == 0 {
		if cur != nil && r.IntN(2) == 0 {
			return nil // delete
		}
		var b strings.Builder
		for i := 0; i < 3+r.IntN(12); i++ {
			fmt.Fprintf(&b, "line %d\n", r.IntN(100))
		}
		return str(b.String())
	}
	lines := strings.SplitAfter(*cur, "\n")
	i := r.IntN(len(lines))
	switch r.IntN(3) {
	case 0:
		lines[i] = fmt.Sprintf("changed %d\n", r.IntN(1000))
	case 1:
		lines = append(lines[:i], append([]string{fmt.Sprintf("inserted %d\n", r.IntN(1000))}, lines[i:]...)...)
	default:
		if len(lines) > 1 {
			lines = append(lines[:i], lines[i+1:]...)
		}
	}
	return str(strings.Join(lines, ""))
}

// TestModel runs random applies, reverts, undos, redos, restores and outside
// edits against the engine and the model: zero divergence allowed.
// JOURNAL_MODEL_STEPS sets the number of steps (default 1500).
func TestModel(t *testing.T) {
	steps := 1500
	if s := os.Getenv("JOURNAL_MODEL_STEPS"); s != "" {
		steps, _ = strconv.Atoi(s)
	}
	dir := t.TempDir()
	e := open(t, dir)
	m := &model{disk: map[string]*string{}, heads: map[string]*string{}, known: map[string]bool{}}
	r := rand.New(rand.NewPCG(1, 1))
	paths := []string{"a.txt", "b.txt", "dir/c.txt", "dir/sub/d.txt", "e.txt"}
	counts := map[string]int{}
	for step := 0; step < steps; step++ {
		var err error
		var res *replay.Result
		var want map[string]*string
		var order []string
		var wantErr error
		var kind journal.Kind
		var target uint64
		op := r.IntN(10)
		switch {
		case op < 4 || len(m.events) == 0: // apply
			kind, want = journal.KindApply, map[string]*string{}
			b := &replay.Batch{Tool: "model"}
			for _, i := range r.Perm(len(paths))[:1+r.IntN(3)] {
				p := paths[i]
				nc := mutate(r, m.disk[p])
				if nc == nil && m.disk[p] == nil {
					continue
				}
				want[p] = nc
				order = append(order, p)
				if nc == nil {
					b.Changes = append(b.Changes, replay.Change{Path: p, Delete: true})
				} else {
					b.Changes = append(b.Changes, replay.Change{Path: p, Data: []byte(*nc)})
				}
			}
			if len(b.Changes) == 0 {
				continue
			}
			res, err = e.Apply(ctx, b)
		case op == 4: // outside edit
			p := paths[r.IntN(len(paths))]
			nc := mutate(r, m.disk[p])
			if nc == nil {
				os.Remove(filepath.Join(dir, p))
			} else {
				write(t, dir, p, *nc)
			}
			m.disk[p] = nc
			counts["outside"]++
			continue
		case op <= 6: // revert a random event
			kind = journal.KindRevert
			target = uint64(1 + r.IntN(len(m.events)))
			want, wantErr = m.planRevert(target)
			order = m.events[target-1].order
			res, err = e.Revert(ctx, target, replay.RevertOptions{})
		case op == 7:
			kind = journal.KindUndo
			if target = m.findUndo(); target == 0 {
				wantErr = replay.ErrNothing
			} else {
				want, wantErr = m.planRevert(target)
				order = m.events[target-1].order
			}
			res, err = e.Undo(ctx, replay.RevertOptions{})
		case op == 8:
			kind = journal.KindRedo
			if target = m.findRedo(); target == 0 {
				wantErr = replay.ErrNothing
			} else {
				want, wantErr = m.planRevert(target)
				order = m.events[target-1].order
			}
			res, err = e.Redo(ctx, replay.RevertOptions{})
		default: // restore
			kind = journal.KindRestore
			p := paths[r.IntN(len(paths))]
			at := uint64(1 + r.IntN(len(m.events)))
			var found *[2]*string
			for s := at; s > 0; s-- {
				if f, ok := m.events[s-1].files[p]; ok {
					found = &f
					break
				}
			}
			switch {
			case found == nil:
				wantErr = replay.ErrBadEvent
			case eq(found[1], m.disk[p]):
				wantErr = replay.ErrNothing
			default:
				want, order = map[string]*string{p: found[1]}, []string{p}
			}
			res, err = e.Restore(ctx, p, at, replay.RevertOptions{})
		}
		counts[string(kind)]++
		switch {
		case wantErr == errModelConflict:
			if !errors.Is(err, replay.ErrRevertConflict) {
				t.Fatalf("step %d %s %d: model predicts a conflict, engine says %v", step, kind, target, err)
			}
			counts["conflict"]++
		case wantErr != nil:
			if !errors.Is(err, wantErr) {
				t.Fatalf("step %d %s %d: want %v, engine says %v", step, kind, target, wantErr, err)
			}
			counts["refused"]++
		case err != nil:
			t.Fatalf("step %d %s %d: %v", step, kind, target, err)
		default:
			seq := m.commit(kind, "s1", target, want, order)
			if res.Seq != seq {
				t.Fatalf("step %d %s: engine event %d, model %d", step, kind, res.Seq, seq)
			}
		}
		got := snapshotDir(t, dir)
		for _, p := range paths {
			g, ok := got[p]
			if ok != (m.disk[p] != nil) || (ok && g != *m.disk[p]) {
				t.Fatalf("step %d (%s %d): %s diverged: disk %q, model %v", step, kind, target, p, short(g), m.disk[p] != nil)
			}
		}
	}
	verifyChain(t, e)
	t.Logf("steps by kind: %v", counts)
	if counts["revert"] < 100 || counts["undo"] < 50 || counts["restore"] < 50 {
		t.Fatalf("too few of some kind: %v", counts)
	}
}

// TestRevertOfRevert reproduces the after-state exactly.
func TestRevertOfRevert(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "f.txt", "base\n")
	e := open(t, dir)
	n := apply(t, e, "f.txt", "after\n", "g.txt", "created\n")
	after := snapshotDir(t, dir)
	rv, err := e.Revert(ctx, n, replay.RevertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Revert(ctx, rv.Seq, replay.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	if k, ok := equalMaps(after, snapshotDir(t, dir)); !ok {
		t.Fatalf("revert of revert differs at %s", k)
	}
}
