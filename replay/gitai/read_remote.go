package gitai

import (
	"context"
)

// ComputeAll computes the notes of commits from several journals — the
// workspaces of a remote, cloned — and merges what they say (MergeNotes):
// a line one journal attributes and the others do not know is attributed,
// a line two journals give different keys is untracked (conflicting
// evidence proves nothing). Any journal's error fails the whole
// computation, as Compute's does: no partial note is written.
func ComputeAll(ctx context.Context, r *Repo, js []Journal, commits []string) (map[string]*Note, error) {
	out := map[string]*Note{}
	for _, j := range js {
		notes, err := Compute(ctx, r, j, commits)
		if err != nil {
			return nil, err
		}
		for c, n := range notes {
			if n == nil {
				continue
			}
			if prev, ok := out[c]; ok && prev != nil {
				out[c] = MergeNotes(prev, n)
			} else {
				out[c] = n
			}
		}
	}
	return out, nil
}
