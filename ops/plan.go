package ops

import (
	"sort"
	"strings"
)

// planner turns the ops of one batch into edits per file, loading each file
// once, and tracks what each op will report.
type planner struct {
	load    Loader
	files   map[string]*fileState
	order   []string   // paths in first-touch order
	results []OpResult // one per op, filled as ops are planned and files built
}

// fileState is one file of a batch: its original content and the edits and
// whole-file writes the ops ask of it.
type fileState struct {
	path    string
	orig    []byte
	exists  bool
	doc     *Doc  // decoded original (empty for a file a move creates)
	decErr  error // why the original does not decode
	created bool  // the batch creates the file
	mutated bool
	whole   *wholeWrite // create or whole-file replace
	edits   []edit
	owner   int // first op that mutated the file
}

// wholeWrite is a create or whole-file replace: the file's new text.
type wholeWrite struct {
	op     int
	text   string
	create bool
}

// edit replaces bytes [start,end) of the original decoded text with text.
type edit struct {
	start, end int
	text       string
	op         int
	source     bool // the removal half of a move
	lead       int  // bytes at the start of text not reported as changed (a joining line ending)
	newStart   int  // filled by build: where text landed in the new text
	newEnd     int
}

func (p *planner) file(path string) (*fileState, error) {
	if fs, ok := p.files[path]; ok {
		return fs, nil
	}
	data, exists, err := p.load(path)
	if err != nil {
		return nil, err
	}
	fs := &fileState{path: path, orig: data, exists: exists}
	if exists {
		fs.doc, fs.decErr = decode(data, true)
	}
	p.files[path] = fs
	p.order = append(p.order, path)
	return fs, nil
}

// source returns the decoded original of a file an op reads.
func (p *planner) source(path string) (*Doc, error) {
	fs, err := p.file(path)
	if err != nil {
		return nil, err
	}
	return fs.readable()
}

func (fs *fileState) readable() (*Doc, error) {
	if !fs.exists {
		return nil, &Error{Path: fs.path, Err: ErrFileNotFound, Msg: "file does not exist",
			Hint: "check the path; file_create_new creates files"}
	}
	if fs.decErr != nil {
		return nil, withPath(fs.path, fs.decErr)
	}
	return fs.doc, nil
}

// target returns a file op i edits in place. A missing file is created empty
// when create is set (edit_move_text), otherwise it is ErrFileNotFound.
func (p *planner) target(i int, path string, create bool) (*fileState, error) {
	fs, err := p.file(path)
	if err != nil {
		return nil, err
	}
	if fs.whole != nil {
		return nil, p.overlapWhole(fs, i)
	}
	if !fs.exists && create && !fs.created {
		fs.created = true
		fs.doc = NewDoc("", UTF8, false)
		p.results[i].TargetCreated = true
		p.results[i].Warnings = append(p.results[i].Warnings, "Created new file: "+path)
	}
	if !fs.created {
		if _, err := fs.readable(); err != nil {
			return nil, err
		}
	}
	fs.mark(i)
	return fs, nil
}

func (fs *fileState) mark(i int) {
	if !fs.mutated {
		fs.mutated, fs.owner = true, i
	}
}

func (p *planner) overlapWhole(fs *fileState, i int) error {
	return &Error{Path: fs.path, Err: ErrOverlap,
		Msg:  sprintf("op %d also writes this file, which op %d already writes or edits in this batch", i, fs.owner),
		Hint: "a file created or replaced whole may not be edited by another op of the same batch; merge the ops"}
}

// setWhole records a create or whole-file replace by op i.
func (p *planner) setWhole(fs *fileState, i int, text string, create bool) error {
	if fs.mutated {
		return p.overlapWhole(fs, i)
	}
	fs.mark(i)
	fs.whole = &wholeWrite{op: i, text: text, create: create}
	fs.created = create
	return nil
}

// add records an edit after checking the file's encoding can hold its text.
func (fs *fileState) add(e edit) error {
	if err := fs.checkText(e.text); err != nil {
		return err
	}
	fs.edits = append(fs.edits, e)
	return nil
}

// checkText refuses text the file's encoding cannot hold.
func (fs *fileState) checkText(text string) error {
	if !fs.doc.representable(text) {
		return &Error{Path: fs.path, Err: ErrInvalidInput,
			Msg:  "the content has characters a Latin-1 file cannot hold",
			Hint: "the file is Latin-1 encoded and is kept so: use only characters U+0000..U+00FF"}
	}
	return nil
}

// sorted orders edits by position; at one offset, inserts come before a
// replacement and ops keep batch order.
func (fs *fileState) sorted() {
	sort.SliceStable(fs.edits, func(a, b int) bool {
		x, y := fs.edits[a], fs.edits[b]
		if x.start != y.start {
			return x.start < y.start
		}
		return x.end < y.end
	})
}

// checkOverlaps refuses edits whose original ranges intersect. Touching
// ranges and several inserts at one point are fine.
func (fs *fileState) checkOverlaps(p *planner) []*Error {
	fs.sorted()
	var out []*Error
	maxEnd, holder := -1, -1
	for _, e := range fs.edits {
		if e.start < maxEnd {
			a := fs.doc.LineAt(e.start)
			b := fs.doc.LineAt(max(e.start, e.end-1))
			msg := sprintf("op %d overlaps op %d at %s of the original file", e.op, holder, lines(a, b))
			if e.op == holder {
				msg = sprintf("the target position (%s) lies inside the moved range", lines(a, a))
			}
			out = append(out, &Error{Op: p.results[e.op].Kind, Index: e.op, Path: fs.path, Err: ErrOverlap, Msg: msg,
				Hint: "ops of one batch must touch disjoint ranges; all coordinates refer to the original file, so merge overlapping ops into one"})
		}
		if e.end > maxEnd {
			maxEnd, holder = e.end, e.op
		}
	}
	return out
}

// finish applies the file's edits bottom to top (as one forward pass over the
// sorted, disjoint edits), fills the op results and returns the new file.
func (fs *fileState) finish(p *planner) *FileResult {
	var nd *Doc
	var raw []byte
	switch {
	case fs.whole != nil && fs.whole.create:
		nd = NewDoc(fs.whole.text, UTF8, false)
		raw = nd.encode(true)
	case fs.whole != nil:
		nd = fs.doc.with(fs.whole.text)
		raw = nd.encode(true)
	default:
		var b strings.Builder
		old := fs.doc.Text()
		cur := 0
		for k := range fs.edits {
			e := &fs.edits[k]
			b.WriteString(old[cur:e.start])
			e.newStart = b.Len() + e.lead
			b.WriteString(e.text)
			e.newEnd = b.Len()
			cur = e.end
		}
		b.WriteString(old[cur:])
		nd = fs.doc.with(b.String())
		raw = nd.encode(true)
	}
	fr := &FileResult{Path: fs.path, New: raw, Created: fs.created && !fs.exists,
		LinesTotal: nd.LineCount(), BytesWritten: len(raw)}
	if fs.exists {
		fr.Old = fs.orig
	}
	if w := fs.whole; w != nil {
		r := &p.results[w.op]
		r.StartLine, r.EndLine = min(1, nd.LineCount()), nd.LineCount()
		r.BytesWritten, r.LinesTotal = len(raw), nd.LineCount()
		if w.create {
			r.Context = headTail(nd, CreateContextLines, 0)
		} else {
			r.Context = headTail(nd, ContextLines, ContextLines)
		}
	}
	for _, e := range fs.edits {
		a := nd.LineAt(e.newStart)
		b := nd.LineAt(max(e.newStart, e.newEnd-1))
		r := &p.results[e.op]
		if e.source {
			r.SourceLine, r.SourceContext = a, Context(nd, a, a, ContextLines)
			continue
		}
		r.StartLine, r.EndLine, r.Context = a, b, Context(nd, a, b, ContextLines)
	}
	return fr
}
