package gitai

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MergeNotes merges two notes of one commit (two machines', or ours and a
// remote's): the union of their entries; a line the two give different keys
// is claimed by neither (untracked: conflicting evidence proves nothing).
// The records the kept keys name are kept; a's base_commit_sha wins.
func MergeNotes(a, b *Note) *Note {
	type claim struct {
		key      string
		conflict bool
	}
	files := map[string]map[int]*claim{}
	add := func(n *Note) {
		for _, f := range n.Files {
			lines := files[f.Path]
			if lines == nil {
				lines = map[int]*claim{}
				files[f.Path] = lines
			}
			for _, e := range f.Entries {
				for _, l := range e.Lines {
					switch c := lines[l]; {
					case c == nil:
						lines[l] = &claim{key: e.Key}
					case c.key != e.Key:
						c.conflict = true
					}
				}
			}
		}
	}
	add(a)
	add(b)
	out := &Note{Meta: a.Meta}
	out.Meta.Prompts, out.Meta.Sessions, out.Meta.Humans = nil, nil, nil
	used := map[string]bool{}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		byKey := map[string][]int{}
		for l, c := range files[p] {
			if !c.conflict {
				byKey[c.key] = append(byKey[c.key], l)
			}
		}
		f := FileNote{Path: p}
		for _, k := range slices.Sorted(maps.Keys(byKey)) {
			ls := byKey[k]
			slices.Sort(ls)
			f.Entries = append(f.Entries, Entry{Key: k, Lines: ls})
			used[k] = true
		}
		if len(f.Entries) > 0 {
			out.Files = append(out.Files, f)
		}
	}
	for k := range used {
		switch {
		case strings.HasPrefix(k, "s_"):
			s, _, _ := strings.Cut(k, "::")
			carry(&out.Meta.Sessions, a.Meta.Sessions, b.Meta.Sessions, s)
		case strings.HasPrefix(k, "h_"):
			carry(&out.Meta.Humans, a.Meta.Humans, b.Meta.Humans, k)
		default:
			carry(&out.Meta.Prompts, a.Meta.Prompts, b.Meta.Prompts, k)
		}
	}
	return out
}

// carry copies record k into *out from a, else from b, where either has it.
func carry[V any](out *map[string]V, a, b map[string]V, k string) {
	rec, ok := a[k]
	if !ok {
		rec, ok = b[k]
	}
	if !ok {
		return
	}
	if *out == nil {
		*out = map[string]V{}
	}
	(*out)[k] = rec
}

// mergedFile records, per remote, the tracking ref's commit last merged,
// so a hook with nothing new to merge spends no git command on it.
func mergedFile(r *Repo, remote string) string {
	return filepath.Join(r.StateDir(), "merged", strings.ReplaceAll(remote, "/", "%"))
}

// MergeRemotes merges every remote's fetched notes (RemoteNotesPrefix) into
// NotesRef: notes only they have are taken as they are, notes both have
// are merged by MergeNotes; the notes commit has the remote's as a second
// parent. It returns the commits whose note changed.
func MergeRemotes(ctx context.Context, r *Repo) ([]string, error) {
	refs, err := r.notesRefs(ctx)
	if err != nil {
		return nil, err
	}
	var changed []string
	for name, theirs := range refs {
		if !strings.HasPrefix(name, RemoteNotesPrefix) {
			continue
		}
		remote := strings.TrimPrefix(name, RemoteNotesPrefix)
		if last, err := os.ReadFile(mergedFile(r, remote)); err == nil && strings.TrimSpace(string(last)) == theirs {
			continue
		}
		c, err := r.mergeRemote(ctx, theirs)
		if err != nil {
			return changed, err
		}
		changed = append(changed, c...)
		os.MkdirAll(filepath.Dir(mergedFile(r, remote)), 0o755)
		os.WriteFile(mergedFile(r, remote), []byte(theirs+"\n"), 0o644)
	}
	return changed, nil
}

// mergeRemote merges the notes commit theirs into NotesRef.
func (r *Repo) mergeRemote(ctx context.Context, theirs string) ([]string, error) {
	tn, err := r.treeNotes(ctx, theirs, nil)
	if err != nil {
		return nil, err
	}
	return r.updateNotes(ctx, NotesRef, func(old string) (*notesUpdate, error) {
		if old == theirs {
			return nil, nil
		}
		if old == "" {
			return &notesUpdate{ff: theirs}, nil
		}
		if _, err := r.git(ctx, nil, "merge-base", "--is-ancestor", theirs, old); err == nil {
			return nil, nil // already merged
		}
		if _, err := r.git(ctx, nil, "merge-base", "--is-ancestor", old, theirs); err == nil {
			return &notesUpdate{ff: theirs}, nil
		}
		ours := map[string][2]string{}
		if old != "" {
			var err error
			if ours, err = r.treeNotes(ctx, old, nil); err != nil {
				return nil, err
			}
		}
		set := map[string][]byte{}
		var both []string
		for c, b := range tn {
			switch o, ok := ours[c]; {
			case !ok:
				set[c] = nil // theirs, as it is (read below)
			case o[0] != b[0]:
				both = append(both, c)
			}
		}
		var ids []string
		for c := range set {
			ids = append(ids, tn[c][0])
		}
		for _, c := range both {
			ids = append(ids, tn[c][0], ours[c][0])
		}
		data, err := r.readBlobs(ctx, ids)
		if err != nil {
			return nil, err
		}
		for c := range set {
			set[c] = data[tn[c][0]]
		}
		for _, c := range both {
			on, err1 := Parse(data[ours[c][0]])
			tn2, err2 := Parse(data[tn[c][0]])
			switch {
			case err1 != nil && err2 != nil:
				continue
			case err1 != nil:
				set[c] = data[tn[c][0]]
				continue
			case err2 != nil:
				continue
			}
			b, err := Format(MergeNotes(on, tn2))
			if err != nil {
				return nil, err
			}
			set[c] = b
		}
		return &notesUpdate{set: set, parents: []string{theirs}, message: "Notes merged by 'journal git' from " + theirs}, nil
	})
}
