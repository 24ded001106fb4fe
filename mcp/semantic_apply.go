package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/syntax"
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
	// rebase, when set, maps the request's line numbers from the session's
	// last read to now (rebase.go) instead of refusing a changed file.
	rebase *rebaser
	// plan returns the new text of the file.
	plan func(src *source) (string, error)
	// safety, when set, consults the file's language server before anything
	// is written (semantic_lsp.go); nil for tools without a safety layer.
	safety *safetyReq
}

// safetyReq asks editText for the language-server half of the safety layer,
// and carries back what it did.
type safetyReq struct {
	autoFix bool
	// intents returns the plan's detected intents after it ran; nil: they
	// are computed here from the text before and after.
	intents func() []syntax.Intent
	// renames returns explicit renames (rename_symbol).
	renames func(src *source) ([]renameReq, error)

	report  *lspReport // what the language server did; nil when not consulted
	skipped string     // why it was not consulted
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
	if te.safety != nil {
		if done, err, ok := s.editTextLSP(ctx, c, te, rp); ok {
			return done, err
		}
	}
	out := &textEdited{key: rp.Key}
	var data []byte
	res, err := s.eng.Edit(ctx, func(r *replay.Reader) (*replay.Batch, error) {
		src, err := loadSource(r.Read(rp.Key))
		if err != nil {
			return nil, err
		}
		f := src.file
		if err := s.checkEdit(c, te, f); err != nil {
			return nil, err
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
		b := c.batch(te.dryRun)
		b.Changes = []replay.Change{{Path: rp.Key, Data: data, Expect: &id}}
		return b, nil
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
		s.wrote(c.session, rp.Key, id, true)
		s.synced(ctx, res)
	}
	return out, nil
}

// checkEdit refuses an edit of f made against another version than the
// caller's expected_version, or a line-based edit from a session whose last
// seen version of f is stale.
func (s *Server) checkEdit(c *call, te textEdit, f *replay.File) error {
	if te.expected != "" && !matchesVersion(te.expected, f.ID) {
		if te.lineBased && te.rebase.pinnedTo([]ops.Op{nil}, f.Path.Key) {
			// line numbers of the expected version, mapped to now
			_, err := te.rebase.applyInPlace(f.Path.Key, f)
			return err
		}
		return &replay.PathError{Path: f.Path.Rel, Err: replay.ErrConflict,
			Msg:  fmt.Sprintf("is version %s, not the expected %s", version(f.ID), te.expected),
			Hint: "read the file again and redo the edit against its current version"}
	}
	if te.lineBased && te.rebase != nil && te.expected == "" {
		if handled, err := te.rebase.applyInPlace(f.Path.Key, f); handled {
			return err
		}
	}
	if seen, stale := s.stale(c.session, f.Path.Key, f.ID); te.lineBased && stale {
		return &replay.PathError{Path: f.Path.Rel, Err: replay.ErrConflict,
			Msg:  fmt.Sprintf("changed since this session last saw it (version %s, now %s); line numbers may be stale", seen.Short(), f.ID.Short()),
			Hint: "read the file again and use the current line numbers"}
	}
	return nil
}

// editTextLSP is editText with the file's language server consulted first
// (semantic_lsp.go). ok is false when the server cannot be consulted — none
// handles the file, it is not UTF-8 without a BOM, or the server failed —
// and te.safety.skipped says why; the caller then edits without it.
func (s *Server) editTextLSP(ctx context.Context, c *call, te textEdit, rp replay.Path) (done *textEdited, err error, ok bool) {
	sr := te.safety
	if ok, why := s.lspFor(rp); !ok {
		sr.skipped = why
		return nil, nil, false
	}
	src, err := loadSource(s.eng.Read(rp.Key))
	if err != nil {
		return nil, err, true
	}
	if src.doc.Encoding != ops.UTF8 || src.doc.BOM {
		sr.skipped = "the language server was not consulted: the file is not UTF-8 without a BOM"
		return nil, nil, false
	}
	if err := s.checkEdit(c, te, src.file); err != nil {
		return nil, err, true
	}
	after, err := te.plan(src)
	if err != nil {
		return nil, err, true
	}
	job := &lspJob{primary: rp, src: src, after: after, autoFix: sr.autoFix}
	if sr.intents != nil {
		job.intents = sr.intents()
	} else {
		job.intents = changedIntents(src.name(), src.text, after)
	}
	if sr.renames != nil {
		if job.renames, err = sr.renames(src); err != nil {
			return nil, err, true
		}
	}
	out := &textEdited{key: rp.Key, src: src, after: after}
	if after == src.text && len(job.renames) == 0 {
		out.same, out.version = true, version(src.file.ID)
		s.saw(c.session, rp.Key, src.file.ID)
		return out, nil, true
	}
	s.lspMu.Lock()
	defer s.lspMu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, s.opts.LSPTimeout)
	stop := c.progress.waiting("the language server")
	rep, err := s.consult(cctx, job)
	stop()
	cancel()
	if err != nil {
		s.finish(ctx, rep, false)
		if ctx.Err() != nil {
			return nil, ctx.Err(), true
		}
		sr.skipped = fmt.Sprintf("the language server failed, so nothing was propagated or type-checked: %v", err)
		if cctx.Err() != nil {
			sr.skipped = fmt.Sprintf("the language server did not answer within %v (still starting or loading the workspace?), so nothing was propagated or type-checked", s.opts.LSPTimeout)
		}
		return nil, nil, false
	}
	sr.report = rep
	if len(rep.changedFiles()) == 0 {
		s.finish(ctx, rep, false)
		out.same, out.version = true, version(src.file.ID)
		return out, nil, true
	}
	res, err := s.applyConsulted(ctx, c, rep, te.dryRun)
	s.finish(ctx, rep, err == nil && !te.dryRun)
	if err != nil {
		return nil, err, true
	}
	out.after = rep.primary().text
	if te.dryRun {
		return out, nil, true
	}
	out.event = res.Seq
	for _, f := range rep.changedFiles() {
		id := snapshot.Sum([]byte(f.text))
		s.saw(c.session, f.path.Key, id)
		if f.path.Key == rp.Key {
			out.version = version(id)
		}
	}
	if out.version == "" {
		out.version = version(src.file.ID)
	}
	return out, nil, true
}

// synced tells the language servers which files a batch changed on disk.
func (s *Server) synced(ctx context.Context, res *replay.Result) {
	if s.opts.LSP == nil || res == nil || len(res.Paths) == 0 {
		return
	}
	paths := make([]string, len(res.Paths))
	for i, p := range res.Paths {
		paths[i] = p.Abs()
	}
	s.opts.LSP.Changed(context.WithoutCancel(ctx), paths...)
}

// changedIntents diffs the symbols around the text an edit changed.
func changedIntents(name, before, after string) []syntax.Intent {
	ob, _ := syntax.Outline(name, []byte(before))
	if ob == nil || !ob.Supported {
		return nil
	}
	oa, _ := syntax.Outline(name, []byte(after))
	if oa == nil {
		return nil
	}
	pre, suf := commonEnds(before, after)
	from := 1 + strings.Count(before[:pre], "\n")
	to := 1 + strings.Count(before[:len(before)-suf], "\n")
	toAfter := 1 + strings.Count(after[:len(after)-suf], "\n")
	return syntax.DiffSymbols(inScope(ob.Symbols, from, to), inScope(oa.Symbols, from, toAfter))
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
