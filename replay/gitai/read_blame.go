package gitai

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// BlameLine is one line of a blamed file: the commit that last changed it
// (git blame's answer), where the line was in that commit, and who wrote it
// according to that commit's note.
type BlameLine struct {
	// Line is the line's number in the blamed revision (1-based).
	Line int `json:"line"`
	// Commit last changed the line; Path and OrigLine are the file and the
	// line's number in that commit, which the note's line numbers refer to.
	Commit   string `json:"commit"`
	Path     string `json:"path"`
	OrigLine int    `json:"orig_line"`
	// Noted says Commit has a note; without one the line is untracked.
	Noted  bool   `json:"noted"`
	Author Author `json:"author"`
	Text   string `json:"text"`
}

// BlameCommit is what git blame says of a commit it names.
type BlameCommit struct {
	Author   string `json:"author"`
	Mail     string `json:"author_mail"`
	Time     int64  `json:"author_time"`
	Summary  string `json:"summary"`
	Boundary bool   `json:"boundary,omitempty"`
}

// BlameResult is a file's blame at one revision.
type BlameResult struct {
	Path    string                 `json:"path"`
	Rev     string                 `json:"rev"`
	Lines   []BlameLine            `json:"lines"`
	Commits map[string]BlameCommit `json:"commits"`
	// Unreadable names the commits whose note is not a Git AI log (their
	// lines are untracked) and why.
	Unreadable map[string]string `json:"unreadable,omitempty"`
}

// Blame blames path at rev (HEAD when empty) with `git blame --porcelain`
// and reads, for each line, the note of the commit that last changed it:
// the note's entry for the line's number in that commit's version of the
// file (so a line moved by later commits, or a file renamed since, still
// finds its entry). All notes are read through one cat-file process, while
// git blame runs.
func (r Reader) Blame(ctx context.Context, path, rev string) (*BlameResult, error) {
	if rev == "" {
		rev = "HEAD"
	}
	// git blame is the long pole: the revision, the notes' index and the
	// cat-file process are made ready beside it.
	type resolved struct {
		commit string
		err    error
	}
	rc := make(chan resolved, 1)
	go func() {
		c, err := r.Resolve(ctx, rev)
		rc <- resolved{c, err}
	}()
	type opened struct {
		notes *rdNotes
		err   error
	}
	nc := make(chan opened, 1)
	go func() {
		idx, err := r.rdNoteIndex(ctx)
		if err != nil {
			nc <- opened{nil, err}
			return
		}
		n, err := r.rdOpenNotes(ctx, idx)
		nc <- opened{n, err}
	}()
	res, err := r.rdBlame(ctx, rev, path, nil)
	rv, op := <-rc, <-nc
	if op.notes != nil {
		defer op.notes.close()
	}
	switch {
	case rv.err != nil:
		return nil, rv.err
	case err != nil:
		return nil, err
	case op.err != nil:
		return nil, op.err
	}
	res.Path, res.Rev = path, rv.commit
	notes := op.notes
	var commits []string
	for c := range res.Commits {
		commits = append(commits, c)
	}
	notes.prefetch(commits)
	keys := map[string]map[int]string{} // commit + "\x00" + path → line → key
	for i := range res.Lines {
		l := &res.Lines[i]
		n, err := notes.note(l.Commit)
		if err != nil {
			if res.Unreadable == nil {
				res.Unreadable = map[string]string{}
			}
			res.Unreadable[l.Commit] = err.Error()
			l.Author = Author{Kind: KindUntracked}
			continue
		}
		l.Noted = n != nil
		k := l.Commit + "\x00" + l.Path
		lk, ok := keys[k]
		if !ok {
			lk = LineKeys(n, l.Path)
			keys[k] = lk
		}
		l.Author = AuthorOf(n, lk[l.OrigLine])
	}
	return res, nil
}

// rdBlame runs git blame --porcelain on path at rev (extra arguments,
// such as ^boundaries, after it) and parses its answer.
func (r Reader) rdBlame(ctx context.Context, rev, path string, extra []string) (*BlameResult, error) {
	args := append([]string{"blame", "--porcelain", rev}, extra...)
	args = append(args, "--", path)
	cmd := r.rdGit(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, &GitError{Args: args, Err: err}
	}
	res, perr := parsePorcelain(stdout)
	if perr != nil {
		io.Copy(io.Discard, stdout)
	}
	if err := cmd.Wait(); err != nil {
		return nil, &GitError{Args: args, Stderr: stderr.String(), Err: err}
	}
	if perr != nil {
		return nil, perr
	}
	return res, nil
}

// parsePorcelain reads git blame --porcelain: for each line a header
// "<commit> <orig> <final> [<n>]", the commit's details the first time it
// appears, "filename <path>" (repeated whenever the commit's path may
// differ), and the line itself after a tab.
func parsePorcelain(rd io.Reader) (*BlameResult, error) {
	res := &BlameResult{Commits: map[string]BlameCommit{}}
	br := bufio.NewReaderSize(rd, 64<<10)
	files := map[string]string{}
	var cur BlameLine
	var info BlameCommit
	inHeader := false
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF && line == "" {
			break
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		line = strings.TrimSuffix(line, "\n")
		if !inHeader {
			f := strings.Fields(line)
			if len(f) < 3 || len(f[0]) < 40 {
				return nil, fmt.Errorf("gitai: git blame --porcelain: unexpected line %q", line)
			}
			orig, err1 := strconv.Atoi(f[1])
			final, err2 := strconv.Atoi(f[2])
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("gitai: git blame --porcelain: unexpected line %q", line)
			}
			cur = BlameLine{Commit: f[0], OrigLine: orig, Line: final}
			info = res.Commits[cur.Commit]
			inHeader = true
			continue
		}
		if strings.HasPrefix(line, "\t") {
			cur.Text = line[1:]
			cur.Path = files[cur.Commit]
			res.Commits[cur.Commit] = info
			res.Lines = append(res.Lines, cur)
			inHeader = false
			continue
		}
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "author":
			info.Author = val
		case "author-mail":
			info.Mail = strings.TrimSuffix(strings.TrimPrefix(val, "<"), ">")
		case "author-time":
			info.Time, _ = strconv.ParseInt(val, 10, 64)
		case "summary":
			info.Summary = val
		case "boundary":
			info.Boundary = true
		case "filename":
			files[cur.Commit] = unquoteGitPath(val)
		}
	}
	if inHeader {
		return nil, fmt.Errorf("gitai: git blame --porcelain ended inside a line's header")
	}
	return res, nil
}
