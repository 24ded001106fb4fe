package gitai

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ShowResult is a commit's note, resolved for reading: per file the line
// ranges and who wrote them, and the lines the commit adds that no entry
// names (untracked).
type ShowResult struct {
	Commit  string `json:"commit"`
	Summary string `json:"summary"`
	// Raw is the note as stored.
	Raw   []byte     `json:"-"`
	Files []ShowFile `json:"files"`
	Meta  Meta       `json:"metadata"`
	LineCounts
}

// LineCounts are a commit's (or file's) added lines by who wrote them.
// Untracked is Added less the lines the note names; a merge commit's Added
// is what its note names (git shows no diff for a merge).
type LineCounts struct {
	Added     int `json:"added"`
	Agent     int `json:"agent"`
	Human     int `json:"human"`
	Untracked int `json:"untracked"`
}

// ShowFile is one file of a shown note.
type ShowFile struct {
	Path   string      `json:"path"`
	Ranges []ShowRange `json:"ranges"`
	LineCounts
}

// ShowRange is consecutive lines of one attestation key.
type ShowRange struct {
	Start  int    `json:"start"`
	End    int    `json:"end"`
	Author Author `json:"author"`
}

// Show reads rev's note (ErrNoNote when it has none) and lays it out per
// file, with the commit's added lines from `git diff-tree --numstat` (renames
// followed) to count what the note leaves untracked.
func (r Reader) Show(ctx context.Context, rev string) (*ShowResult, error) {
	commit, err := r.Resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	idx, err := r.rdNoteIndex(ctx)
	if err != nil {
		return nil, err
	}
	if _, ok := idx[commit]; !ok {
		return nil, fmt.Errorf("%s (%s): %w under %s", rev, commit[:min(12, len(commit))], ErrNoNote, r.ref())
	}
	notes, err := r.rdOpenNotes(ctx, idx)
	if err != nil {
		return nil, err
	}
	defer notes.close()
	n, err := notes.note(commit)
	if err != nil {
		return nil, err
	}
	out, err := r.rdOutput(ctx, "log", "-1", "-z", "--numstat", "-M", "--format=%x01%H %P%x02%ct%x02%s", commit)
	if err != nil {
		return nil, err
	}
	logs, err := parseLogZ(out)
	if err != nil {
		return nil, err
	}
	if len(logs) != 1 {
		return nil, errors.New("gitai: git log -1 named no commit")
	}
	if err := r.mergesAdd(ctx, logs); err != nil {
		return nil, err
	}
	res := &ShowResult{Commit: commit, Summary: logs[0].summary, Raw: notes.raw[commit], Meta: n.Meta}
	files := map[string]*ShowFile{}
	file := func(p string) *ShowFile {
		f, ok := files[p]
		if !ok {
			f = &ShowFile{Path: p}
			files[p] = f
		}
		return f
	}
	for _, a := range logs[0].files {
		file(a.path).Added += a.added
	}
	for p, c := range countNote(n, logs[0].addedBy()) {
		f := file(p)
		f.LineCounts = c.LineCounts
	}
	for _, fn := range n.Files {
		f := file(fn.Path)
		for _, e := range fn.Entries {
			a := AuthorOf(n, e.Key)
			for _, rg := range runs(e.Lines) {
				f.Ranges = append(f.Ranges, ShowRange{Start: rg[0], End: rg[1], Author: a})
			}
		}
	}
	for _, f := range files {
		if f.Agent+f.Human == 0 {
			f.Untracked = f.Added
		}
		slices.SortFunc(f.Ranges, func(x, y ShowRange) int { return cmp.Compare(x.Start, y.Start) })
		res.Files = append(res.Files, *f)
		res.Added += f.Added
		res.Agent += f.Agent
		res.Human += f.Human
		res.Untracked += f.Untracked
	}
	slices.SortFunc(res.Files, func(x, y ShowFile) int { return strings.Compare(x.Path, y.Path) })
	return res, nil
}

// runs splits ascending line numbers into [first, last] runs.
func runs(lines []int) [][2]int {
	var out [][2]int
	for i := 0; i < len(lines); {
		j := i
		for j+1 < len(lines) && lines[j+1] == lines[j]+1 {
			j++
		}
		out = append(out, [2]int{lines[i], lines[j]})
		i = j + 1
	}
	return out
}
