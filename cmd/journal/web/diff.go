package web

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"io"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/journalfs/journal/cmd/journal/web/hl"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/secrets"
	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/snapshot"
)

const (
	// maxLoad bounds a version a page loads to diff; larger files are
	// summarised.
	maxLoad = 256 << 20
	// maxDiffBytes bounds the changed part of a file (what lies between
	// its common first and last lines) a page diffs: a one-line edit of a
	// 50 MB file diffs a few lines; a rewrite of one is summarised.
	maxDiffBytes = 2 << 20
	// maxHighlight bounds the text of one hunk side that is highlighted;
	// larger hunks are shown plain.
	maxHighlight = 256 << 10
	// lazyBytes is the size from which an event page loads a file's diff
	// only when it is opened.
	lazyBytes = 256 << 10
	// contextLines is the number of unchanged lines shown around a change.
	contextLines = 3
)

// fileDiff is one file's diff on a page.
type fileDiff struct {
	journal.FileChange
	Seq     uint64 // the event, on an event page (for the file's actions)
	Rows    []diffRow
	Summary string // instead of rows: binary, too large, unchanged
	Lazy    string // instead of rows: the address of the diff, loaded when opened
	Open    bool   // shown unfolded (small diffs)
	Split   bool   // side by side
	Remote  bool   // read from a remote (the team page): no links to the workspace's pages
}

// diffRow is one row of a unified diff: a hunk header, a line as it was
// (del), as it is (add), or both (ctx), with its line numbers.
type diffRow struct {
	Kind     string // hunk, ctx, del, add, meta
	Old, New int
	HTML     template.HTML // the line, highlighted
	text     string        // the line as it is
}

// splitRow is one row of a side-by-side diff.
type splitRow struct {
	Hunk         template.HTML // a hunk header row
	Old, New     int
	L, R         template.HTML
	LKind, RKind string // ctx, del, add, or "" for an empty cell
}

// SplitRows pairs the diff's removed and added lines side by side.
func (d fileDiff) SplitRows() []splitRow {
	var out []splitRow
	var dels, adds []diffRow
	flush := func() {
		for i := 0; i < len(dels) || i < len(adds); i++ {
			var r splitRow
			if i < len(dels) {
				r.Old, r.L, r.LKind = dels[i].Old, dels[i].HTML, "del"
			}
			if i < len(adds) {
				r.New, r.R, r.RKind = adds[i].New, adds[i].HTML, "add"
			}
			out = append(out, r)
		}
		dels, adds = dels[:0], adds[:0]
	}
	for _, r := range d.Rows {
		switch r.Kind {
		case "del":
			dels = append(dels, r)
		case "add":
			adds = append(adds, r)
		default:
			flush()
			if r.Kind == "hunk" || r.Kind == "meta" {
				out = append(out, splitRow{Hunk: r.HTML})
				continue
			}
			out = append(out, splitRow{Old: r.Old, New: r.New, L: r.HTML, R: r.HTML, LKind: "ctx", RKind: "ctx"})
		}
	}
	flush()
	return out
}

// version loads a stored content to diff, or says why it is not shown.
func version(tx *journal.Tx, id snapshot.ID) ([]byte, string) {
	if id.IsZero() {
		return nil, ""
	}
	n, err := snapshot.Size(tx.Bolt(), id)
	if by, ok := tx.Redacted(id); err != nil && ok {
		return nil, fmt.Sprintf("redacted by event %d", by)
	}
	if err != nil {
		return nil, err.Error()
	}
	if n > maxLoad {
		return nil, fmt.Sprintf("%d bytes: too large to diff here (`journal diff` shows it)", n)
	}
	b, err := snapshot.Bytes(tx.Bolt(), id)
	if err != nil {
		return nil, err.Error()
	}
	return b, ""
}

// source reads a planned change's streamed content (a preview's "after").
func source(fn func(io.Writer) error) ([]byte, string) {
	var buf bytes.Buffer
	if err := fn(&limitWriter{w: &buf, n: maxLoad}); err != nil {
		return nil, "too large to diff here"
	}
	return buf.Bytes(), ""
}

// limitWriter fails once more than n bytes are written.
type limitWriter struct {
	w io.Writer
	n int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.n {
		return 0, io.ErrShortWrite
	}
	l.n -= int64(len(p))
	return l.w.Write(p)
}

// diffFile diffs one file change's stored before and after contents.
func (s *Server) diffFile(tx *journal.Tx, f journal.FileChange) fileDiff {
	a, why := version(tx, f.Before)
	if why != "" {
		return summarised(f, why)
	}
	b, why := version(tx, f.After)
	if why != "" {
		return summarised(f, why)
	}
	return s.makeDiff(f, a, b)
}

func summarised(f journal.FileChange, why string) fileDiff {
	return fileDiff{FileChange: f, Summary: why}
}

// makeDiff diffs a and b (nil: the file does not exist) as f's diff, the
// secrets of both masked first (unless Reveal), so the diff is as small as
// the change and holds no secret.
func (s *Server) makeDiff(f journal.FileChange, a, b []byte) fileDiff {
	d := fileDiff{FileChange: f}
	if bytes.IndexByte(a, 0) >= 0 || bytes.IndexByte(b, 0) >= 0 {
		d.Summary = fmt.Sprintf("binary: %d bytes before, %d after", len(a), len(b))
		return d
	}
	skipped := 0
	if !s.Reveal && a != nil && b != nil && len(a)+len(b) > maskWhole {
		a, b, skipped = changedPart(a, b)
	}
	ma, mb := s.mask().File(f.Path, a), s.mask().File(f.Path, b)
	d.Rows, d.Summary = lineDiff(f.Path, ma, mb, skipped)
	switch {
	case d.Summary != "" || len(d.Rows) > 0:
	case !bytes.Equal(a, b):
		// masked alike, the versions differ: the change is inside a secret
		d.Summary = "the change is inside a masked secret: its lines are not shown (--reveal shows them)"
	default:
		d.Summary = "no change in content (mode only, or recorded as is)"
	}
	d.Open = len(d.Rows) <= 400
	return d
}

// maskWhole is the size of two versions over which only their changed
// part (changedPart) is masked and diffed.
const maskWhole = 1 << 20

// changedPart cuts a and b down to the part between their common first and
// last lines with secrets.MaxSpan bytes (in whole lines) on each side, and
// says how many lines it cut from the start. Masked, the part shows what
// the whole versions masked show of the change: a secret that reaches into
// the changed lines or their context lies wholly inside. So a one-line
// edit of a 50 MB file is scanned for secrets over a few hundred KB, not
// twice over 50 MB.
func changedPart(a, b []byte) (pa, pb []byte, skipped int) {
	p := snapshot.CommonPrefix(a, b)
	s := snapshot.CommonSuffix(a[p:], b[p:])
	start := 0
	if p > secrets.MaxSpan {
		start = bytes.LastIndexByte(a[:p-secrets.MaxSpan], '\n') + 1
	}
	tail := 0 // bytes of the common last part left out, whole lines
	if s > secrets.MaxSpan {
		cut := len(a) - s + secrets.MaxSpan
		if i := bytes.IndexByte(a[cut:], '\n'); i >= 0 {
			tail = len(a) - (cut + i + 1)
		}
	}
	return a[start : len(a)-tail], b[start : len(b)-tail], bytes.Count(a[:start], []byte{'\n'})
}

// lineDiff is the unified diff of a and b with line numbers and
// highlighting, skipped lines before a and b (changedPart) counted in the
// numbers. Only the part between their common first and last lines is
// diffed (with context lines around it), so a small edit of a huge file
// costs what the edit costs.
func lineDiff(path string, a, b []byte, skipped int) ([]diffRow, string) {
	p := snapshot.CommonPrefix(a, b)
	p = bytes.LastIndexByte(a[:p], '\n') + 1 // a line start in both
	s := snapshot.CommonSuffix(a[p:], b[p:])
	lineStart := func(x []byte, i int) bool { return i == p || x[i-1] == '\n' }
	if s > 0 && (!lineStart(a, len(a)-s) || !lineStart(b, len(b)-s)) {
		if i := bytes.IndexByte(a[len(a)-s:], '\n'); i < 0 {
			s = 0
		} else {
			s -= i + 1 // the common tail from its first whole line
		}
	}
	if p == len(a) && p == len(b) {
		return nil, ""
	}
	// context lines before and after the changed part
	p0 := p
	for k := 0; k < contextLines && p0 > 0; k++ {
		p0 = bytes.LastIndexByte(a[:p0-1], '\n') + 1
	}
	e := 0
	for k := 0; k < contextLines && e < s; k++ {
		if i := bytes.IndexByte(a[len(a)-s+e:], '\n'); i < 0 {
			e = s
		} else {
			e += i + 1
		}
	}
	midA, midB := a[p0:len(a)-s+e], b[p0:len(b)-s+e]
	if len(midA)+len(midB) > maxDiffBytes {
		return nil, fmt.Sprintf("%d bytes changed: too large to diff here (`journal diff` shows it)", len(midA)+len(midB))
	}
	off := skipped + bytes.Count(a[:p0], []byte{'\n'})
	text := ops.Unified("a/"+path, "b/"+path, string(midA), string(midB))
	if text == "" {
		return nil, ""
	}
	var rows []diffRow
	old, nw := 0, 0
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "---"), strings.HasPrefix(l, "+++"):
			continue
		case strings.HasPrefix(l, "@@"):
			var oc, nc int
			old, oc, nw, nc, _ = ops.ParseHunk(l)
			old += off
			nw += off
			rows = append(rows, diffRow{Kind: "hunk", text: "@@ " + ops.HunkSide('-', old, oc) + " " + ops.HunkSide('+', nw, nc) + " @@"})
			if oc == 0 {
				old++ // an empty side names the line before
			}
			if nc == 0 {
				nw++
			}
		case strings.HasPrefix(l, "\\"):
			rows = append(rows, diffRow{Kind: "meta", text: l})
		case strings.HasPrefix(l, "+"):
			rows = append(rows, diffRow{Kind: "add", New: nw, text: trimCR(l[1:])})
			nw++
		case strings.HasPrefix(l, "-"):
			rows = append(rows, diffRow{Kind: "del", Old: old, text: trimCR(l[1:])})
			old++
		default:
			rows = append(rows, diffRow{Kind: "ctx", Old: old, New: nw, text: trimCR(strings.TrimPrefix(l, " "))})
			old++
			nw++
		}
	}
	highlightRows(path, rows)
	return rows, ""
}

func trimCR(s string) string { return strings.TrimSuffix(s, "\r") }

// highlightRows sets every row's HTML: each hunk's old side (its context
// and removed lines) and new side (context and added lines) highlighted
// with the lexer of the file's name, or the plain text where there is none,
// where a side is too large, or where the lexer would not give the text
// back exactly.
func highlightRows(path string, rows []diffRow) {
	for i := range rows {
		rows[i].HTML = template.HTML(html.EscapeString(rows[i].text))
	}
	lx := hl.Match(path)
	if lx == nil {
		return
	}
	for start := 0; start < len(rows); {
		end := start + 1
		for end < len(rows) && rows[end].Kind != "hunk" {
			end++
		}
		for _, side := range []string{"del", "add"} {
			var idx []int
			var lines []string
			for i := start; i < end; i++ {
				if k := rows[i].Kind; k == "ctx" || k == side {
					idx = append(idx, i)
					lines = append(lines, rows[i].text)
				}
			}
			out := highlight(lx, lines)
			for j, i := range idx {
				if out == nil {
					break
				}
				if rows[i].Kind == "ctx" && side == "add" {
					continue // the old side's highlighting stands
				}
				rows[i].HTML = out[j]
			}
		}
		start = end
	}
}

// highlight returns lines highlighted by lx (one HTML string per line), or
// nil when it cannot be done faithfully.
func highlight(lx chroma.Lexer, lines []string) (out []template.HTML) {
	defer func() {
		if recover() != nil { // a lexer's bug: the lines stay plain
			out = nil
		}
	}()
	text := strings.Join(lines, "\n") + "\n"
	if len(lines) == 0 || len(text) > maxHighlight {
		return nil
	}
	it, err := lx.Tokenise(nil, text)
	if err != nil {
		return nil
	}
	out = make([]template.HTML, 0, len(lines))
	var cur, seen strings.Builder
	for t := it(); t != chroma.EOF; t = it() {
		seen.WriteString(t.Value)
		cls := tokenClass(t.Type)
		for i, part := range strings.Split(t.Value, "\n") {
			if i > 0 {
				out = append(out, template.HTML(cur.String()))
				cur.Reset()
			}
			if part == "" {
				continue
			}
			if cls == "" {
				cur.WriteString(html.EscapeString(part))
			} else {
				fmt.Fprintf(&cur, `<span class="%s">%s</span>`, cls, html.EscapeString(part))
			}
		}
	}
	if seen.String() != text || len(out) != len(lines) {
		return nil // the lexer changed the text: show it plain
	}
	return out
}

// tokenClass is chroma's short CSS class of a token type ("" for text).
func tokenClass(t chroma.TokenType) string {
	for _, tt := range []chroma.TokenType{t, t.SubCategory(), t.Category()} {
		if c, ok := chroma.StandardTypes[tt]; ok && c != "" && tt != chroma.Text {
			return c
		}
	}
	return ""
}
