package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote"
	"github.com/journalfs/journal/replay"
)

// teamSurvival finds, for team stats --survival, the lines each workspace's
// latest version of each of its files still holds, and calls count with
// the event that wrote each (blame by content: a line put back by a revert
// or a checkout stays its writer's), when it is an authored event f
// selects. A workspace is read through a clone holding its events and the
// contents of its files' versions (remote.CloneOptions.Paths), checked as a
// clone checks them; one that fails is a problem of tr, and nothing of it
// is counted.
func (a *app) teamSurvival(ctx context.Context, f *teamFlags, tr *teamRead, count func(te *teamEvent)) error {
	s := tr.store
	tmp, err := os.MkdirTemp("", "journal-team-survival-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var wss []string
	for ws := range tr.all {
		wss = append(wss, ws)
	}
	slices.Sort(wss)
	for i, ws := range wss {
		paths := map[string]bool{}
		selected := false
		for _, te := range tr.all[ws] {
			for _, fc := range te.e.Files {
				paths[fc.Path] = true
			}
			selected = selected || authored(te.e) && f.match(te)
		}
		if !selected {
			continue
		}
		keys := make([]string, 0, len(paths))
		for p := range paths {
			keys = append(keys, p)
		}
		slices.Sort(keys)
		dir := filepath.Join(tmp, strconv.Itoa(i))
		if _, err := remote.Clone(ctx, s, ws, dir, remote.CloneOptions{Paths: keys}); errors.Is(err, remote.ErrDamaged) || errors.Is(err, remote.ErrNotFound) {
			tr.problems = append(tr.problems, fmt.Sprintf("workspace %s, its files' versions (--survival): %v", ws, err))
			continue
		} else if err != nil {
			return remoteErr(err)
		}
		j, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{})
		if err != nil {
			return err
		}
		err = j.View(func(tx *journal.Tx) error {
			for _, key := range keys {
				b, err := replay.BlameTx(tx, key, 0)
				if errors.Is(err, journal.ErrNotFound) || errors.Is(err, replay.ErrBinary) {
					continue // gone, or no lines
				}
				if err != nil { // redacted, too large
					tr.notes = append(tr.notes, fmt.Sprintf("workspace %s: %s: %v: its lines are not counted as surviving", ws, key, err))
					continue
				}
				for _, l := range b.Lines {
					if te := tr.all[ws][l.Seq]; te != nil && authored(te.e) && f.match(te) {
						count(te)
					}
				}
			}
			return nil
		})
		j.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
