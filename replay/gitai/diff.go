package gitai

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// fileDiff is one file a commit changed, as `git diff-tree -p -U0` against
// its first parent says: its path in the commit, the path it was renamed
// from, its blob, and the commit's line numbers it adds (1-based).
type fileDiff struct {
	Path    string
	OldPath string // a rename's (or copy's) source; "" otherwise
	Blob    string // the file's blob in the commit (full object name)
	Mode    string // "100644", "100755"; links and submodules are left out
	Added   []int
}

// commitDiff is the files one commit adds lines to.
type commitDiff struct {
	Commit string
	Files  []fileDiff
}

// diffCommits diffs every commit against its first parent (a root commit
// against the empty tree), with rename detection, in one `git diff-tree
// --stdin`. Deleted, binary, link and submodule files and those adding no
// line are left out. A merge adds only the lines new against every parent
// (a conflict's resolution, an evil merge's own edits): its diffs against
// its other parents, one `diff-tree` per parent index, narrow the first.
func (r *Repo) diffCommits(ctx context.Context, commits []commitInfo) (map[string]*commitDiff, error) {
	res, err := r.diffAgainst(ctx, commits, 0)
	if err != nil {
		return nil, err
	}
	for i := 1; ; i++ {
		var merges []commitInfo
		for _, c := range commits {
			if len(c.Parents) > i {
				merges = append(merges, c)
			}
		}
		if len(merges) == 0 {
			return res, nil
		}
		other, err := r.diffAgainst(ctx, merges, i)
		if err != nil {
			return nil, err
		}
		for _, c := range merges {
			if d := newAgainstBoth(res[c.ID], other[c.ID]); d != nil {
				res[c.ID] = d
			} else {
				delete(res, c.ID)
			}
		}
	}
}

// diffAgainst diffs each commit against its parent number i (a root
// commit, given i 0, against the empty tree).
func (r *Repo) diffAgainst(ctx context.Context, commits []commitInfo, i int) (map[string]*commitDiff, error) {
	var in bytes.Buffer
	for _, c := range commits {
		in.WriteString(c.ID)
		if len(c.Parents) > i {
			in.WriteString(" " + c.Parents[i])
		}
		in.WriteString("\n")
	}
	out, err := r.git(ctx, in.Bytes(), "-c", "core.quotePath=true", "diff-tree", "--stdin", "--root", "-r", "-M", "-U0",
		"--full-index", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", "-p")
	if err != nil {
		return nil, err
	}
	return parseDiff(out)
}

// newAgainstBoth is a merge's diff against two parents narrowed to what
// both say it adds: per file (its path in the merge), the lines added
// against each; nil if none is left. A file one diff does not name is the
// same as that parent's: it adds nothing.
func newAgainstBoth(a, b *commitDiff) *commitDiff {
	if a == nil || b == nil {
		return nil
	}
	out := &commitDiff{Commit: a.Commit}
	for _, f := range a.Files {
		for _, g := range b.Files {
			if g.Path != f.Path {
				continue
			}
			in := map[int]bool{}
			for _, l := range g.Added {
				in[l] = true
			}
			h := f
			h.Added = nil
			for _, l := range f.Added {
				if in[l] {
					h.Added = append(h.Added, l)
				}
			}
			if h.OldPath == "" {
				h.OldPath = g.OldPath
			}
			if len(h.Added) > 0 {
				out.Files = append(out.Files, h)
			}
		}
	}
	if len(out.Files) == 0 {
		return nil
	}
	return out
}

// parseDiff reads diff-tree's output: for each commit its name on a line
// of its own, then its patch.
func parseDiff(out []byte) (map[string]*commitDiff, error) {
	res := map[string]*commitDiff{}
	var cur *commitDiff
	var f *fileDiff
	keep := func() {
		if cur != nil && f != nil && f.Path != "" && len(f.Added) > 0 && (f.Mode == "100644" || f.Mode == "100755") {
			cur.Files = append(cur.Files, *f)
		}
		f = nil
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	minus, plus := 0, 0 // lines of the current hunk still to skip
	for sc.Scan() {
		l := sc.Text()
		if minus > 0 || plus > 0 {
			switch {
			case strings.HasPrefix(l, "-"):
				minus--
				continue
			case strings.HasPrefix(l, "+"):
				plus--
				continue
			case strings.HasPrefix(l, `\`):
				continue
			}
			return nil, fmt.Errorf("gitai: diff-tree: a hunk ends early at %q", l)
		}
		switch {
		case isObjectName(l):
			keep()
			cur = &commitDiff{Commit: l}
			res[l] = cur
		case strings.HasPrefix(l, `\`):
		case strings.HasPrefix(l, "diff --git "):
			keep()
			f = &fileDiff{}
		case f == nil:
			return nil, fmt.Errorf("gitai: diff-tree: unexpected line %q", l)
		case strings.HasPrefix(l, "rename from "), strings.HasPrefix(l, "copy from "):
			_, p, _ := strings.Cut(l, " from ")
			f.OldPath = unquotePath(p)
		case strings.HasPrefix(l, "index "):
			ids, mode, _ := strings.Cut(strings.TrimPrefix(l, "index "), " ")
			_, f.Blob, _ = strings.Cut(ids, "..")
			if mode != "" {
				f.Mode = mode
			}
		case strings.HasPrefix(l, "new file mode "):
			f.Mode = strings.TrimPrefix(l, "new file mode ")
		case strings.HasPrefix(l, "new mode "):
			f.Mode = strings.TrimPrefix(l, "new mode ")
		case strings.HasPrefix(l, "+++ "):
			// git ends a path holding a space with a tab
			p := unquotePath(strings.TrimSuffix(strings.TrimPrefix(l, "+++ "), "\t"))
			if p != "/dev/null" {
				f.Path = strings.TrimPrefix(p, "b/")
			}
		case strings.HasPrefix(l, "@@ "):
			old, nw, err := hunkHeader(l)
			if err != nil {
				return nil, err
			}
			minus, plus = old, nw[1]
			for i := 0; i < nw[1]; i++ {
				f.Added = append(f.Added, nw[0]+i)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("gitai: diff-tree: %w", err)
	}
	keep()
	return res, nil
}

// hunkHeader reads "@@ -a,b +c,d @@": the old count b, and the new start c
// and count d.
func hunkHeader(l string) (old int, nw [2]int, err error) {
	f := strings.Fields(l)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, nw, fmt.Errorf("gitai: diff-tree: hunk header %q", l)
	}
	rng := func(s string) (int, int, error) {
		a, b, ok := strings.Cut(s[1:], ",")
		start, err := strconv.Atoi(a)
		if err != nil {
			return 0, 0, fmt.Errorf("gitai: diff-tree: hunk header %q", l)
		}
		n := 1
		if ok {
			if n, err = strconv.Atoi(b); err != nil {
				return 0, 0, fmt.Errorf("gitai: diff-tree: hunk header %q", l)
			}
		}
		return start, n, nil
	}
	_, o, err := rng(f[1])
	if err != nil {
		return 0, nw, err
	}
	s, n, err := rng(f[2])
	return o, [2]int{s, n}, err
}

// isObjectName reports whether l is a full object name (SHA-1 or SHA-256).
func isObjectName(l string) bool {
	if len(l) != 40 && len(l) != 64 {
		return false
	}
	for i := 0; i < len(l); i++ {
		if c := l[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// unquotePath undoes git's C-style quoting of an unusual path.
func unquotePath(p string) string {
	if len(p) >= 2 && p[0] == '"' {
		if u, err := strconv.Unquote(p); err == nil {
			return u
		}
	}
	return p
}
