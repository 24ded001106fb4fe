package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// source is a text file as a semantic or form tool reads it.
type source struct {
	file *replay.File
	doc  *ops.Doc
	text string
}

// name is the file's path relative to its root (language detection, messages).
func (src *source) name() string { return src.file.Path.Rel }

// loadSource checks that a read file exists and is small text, and decodes it.
func loadSource(f *replay.File, err error) (*source, error) {
	if err != nil {
		return nil, err
	}
	if !f.Exists {
		return nil, &replay.PathError{Path: f.Path.Rel, Err: replay.ErrNotFound, Msg: "does not exist",
			Hint: "check the path; to create a file use file_create_new"}
	}
	if f.Data == nil {
		return nil, fmt.Errorf("%s is %d bytes: %w", f.Path.Rel, f.Size, ErrTooLarge)
	}
	d, err := ops.Decode(f.Data)
	if err != nil {
		return nil, err
	}
	return &source{file: f, doc: d, text: d.Text()}, nil
}

// textEdit is one single-file edit whose new text is computed under the
// journal's lock from the file as it is then.
type textEdit struct {
	path      string
	expected  string // expected_version, "" for none
	lineBased bool   // refuse a session that has not seen the current version
	dryRun    bool
	// plan returns the new text of the file.
	plan func(src *source) (string, error)
}

// textEdited is what editText did.
type textEdited struct {
	src     *source // the file before the edit
	after   string  // its new text
	key     string
	event   uint64
	version string // the new version ("" for a dry run: the file is unchanged)
	same    bool   // the edit changed nothing, so no event was recorded
}

// errSame stops a plan whose edit changes nothing.
var errSame = errors.New("mcp: edit changes nothing")

// editText runs one single-file edit as one journal event.
func (s *Server) editText(ctx context.Context, c *call, te textEdit) (*textEdited, error) {
	if s.opts.ReadOnly {
		return nil, ErrReadOnly
	}
	rp, err := s.eng.Resolve(te.path)
	if err != nil {
		return nil, err
	}
	out := &textEdited{key: rp.Key}
	var data []byte
	res, err := s.eng.Edit(ctx, func(r *replay.Reader) (*replay.Batch, error) {
		src, err := loadSource(r.Read(rp.Key))
		if err != nil {
			return nil, err
		}
		f := src.file
		if te.expected != "" && !matchesVersion(te.expected, f.ID) {
			return nil, &replay.PathError{Path: f.Path.Rel, Err: replay.ErrConflict,
				Msg:  fmt.Sprintf("is version %s, not the expected %s", version(f.ID), te.expected),
				Hint: "read the file again and redo the edit against its current version"}
		}
		if seen, stale := s.stale(c.session, rp.Key, f.ID); te.lineBased && stale {
			return nil, &replay.PathError{Path: f.Path.Rel, Err: replay.ErrConflict,
				Msg:  fmt.Sprintf("changed since this session last saw it (version %s, now %s); line numbers may be stale", seen.Short(), f.ID.Short()),
				Hint: "read the file again and use the current line numbers"}
		}
		out.src = src
		if out.after, err = te.plan(src); err != nil {
			return nil, err
		}
		if out.after == src.text {
			return nil, errSame
		}
		if src.doc.Encoding == ops.Latin1 && strings.ContainsFunc(out.after, func(r rune) bool { return r > 0xFF }) {
			return nil, invalid("use characters Latin-1 can hold, or convert the file to UTF-8 first", "%s is Latin-1 and the new text has characters it cannot hold", f.Path.Rel)
		}
		data = ops.NewDoc(out.after, src.doc.Encoding, src.doc.BOM).Encode()
		id := f.ID
		return &replay.Batch{Tool: c.tool, Args: c.args, Actor: &c.actor, DryRun: te.dryRun,
			Changes: []replay.Change{{Path: rp.Key, Data: data, Expect: &id}}}, nil
	})
	if errors.Is(err, errSame) {
		out.same, out.after = true, out.src.text
		s.saw(c.session, rp.Key, out.src.file.ID)
		out.version = version(out.src.file.ID)
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	if !te.dryRun {
		id := snapshot.Sum(data)
		out.event, out.version = res.Seq, version(id)
		s.saw(c.session, rp.Key, id)
	}
	return out, nil
}

// withEOL rewrites the line endings of s (LF, CRLF or lone CR) as eol.
func withEOL(s, eol string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	if eol != "\n" {
		s = strings.ReplaceAll(s, "\n", eol)
	}
	return s
}

// trimOneEOL removes one final line ending.
func trimOneEOL(s string) string {
	s, _ = strings.CutSuffix(s, "\n")
	s, _ = strings.CutSuffix(s, "\r")
	return s
}

// lineSpan returns the byte range of lines a..b (1-based, inclusive) in d's
// text: from the start of line a to the end of line b's text, before its
// ending; next is the start of line b+1 (or the end of the text).
func lineSpan(d *ops.Doc, a, b int) (start, end, next int) {
	text := d.Text()
	if d.LineCount() == 0 {
		return 0, 0, 0
	}
	start, _ = d.Offset(a, 0)
	end, _ = d.Offset(b, -1)
	next = len(text)
	if b < d.LineCount() {
		next, _ = d.Offset(b+1, 0)
	}
	return start, end, next
}

// indentOf is the leading whitespace of s.
func indentOf(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// reindent prefixes every non-blank line of code with indent when code's
// first non-blank line has no indentation of its own (the agent sent a
// nested symbol dedented).
func reindent(code, indent string) string {
	if indent == "" {
		return code
	}
	lines := strings.Split(code, "\n")
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if indentOf(l) != "" {
			return code
		}
		break
	}
	for i, l := range lines {
		if strings.TrimSpace(strings.TrimSuffix(l, "\r")) != "" {
			lines[i] = indent + l
		}
	}
	return strings.Join(lines, "\n")
}

// lineCount counts the lines of s as ops.Doc does.
func lineCount(s string) int { return ops.NewDoc(s, ops.UTF8, false).LineCount() }
