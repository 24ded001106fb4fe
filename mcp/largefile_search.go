package mcp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/journalfs/journal/ops/match"
	"github.com/journalfs/journal/ops/syntax"
)

// searchOpts is one line search over a text.
type searchOpts struct {
	max, context, startLine int
	fuzzy, regex            bool
	threshold               float64
}

// search runs a line search over the text from startLine on: in place over
// memory or a mapping, streamed otherwise.
func (t *ltext) search(pattern string, o searchOpts) (match.Results, error) {
	mo := match.SearchOptions{Regex: o.regex, Fuzzy: o.fuzzy, Threshold: o.threshold, MaxResults: o.max, ContextLines: o.context}
	var off int64
	if o.startLine > 1 {
		li, err := t.index()
		if err != nil {
			return match.Results{}, err
		}
		if o.startLine > li.lines {
			return match.Results{Hits: []match.Hit{}}, nil
		}
		if off, err = t.offsetOf(li, o.startLine); err != nil {
			return match.Results{}, err
		}
	}
	if t.progress != nil {
		mo.Progress = t.progress.scan(t.size - off)
	}
	var res match.Results
	var err error
	if t.data != nil {
		res, err = match.Search(t.data[off:], pattern, mo)
	} else {
		res, err = match.SearchReader(io.NewSectionReader(t.body, off, t.size-off), pattern, mo)
	}
	if err != nil {
		return res, err
	}
	for i := range res.Hits {
		res.Hits[i].Line += max(o.startLine, 1) - 1
		res.Hits[i].Offset += off
	}
	return res, nil
}

// offsetOf returns the byte offset of line n (1 ≤ n ≤ li.lines).
func (t *ltext) offsetOf(li *lineIdx, n int) (int64, error) {
	k := (n - 1) / markEvery
	off := li.marks[k]
	br := bufio.NewReaderSize(io.NewSectionReader(t.body, off, t.size-off), 64<<10)
	for l := k*markEvery + 1; l < n; l++ {
		for {
			frag, err := br.ReadSlice('\n')
			off += int64(len(frag))
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err != nil {
				return off, err
			}
			break
		}
	}
	return off, nil
}

func (s *Server) searchContent(c *call, in *SearchIn) (*SearchOut, string, error) {
	t, err := s.openLarge(c, in.AbsoluteFilePath)
	if err != nil {
		return nil, "", err
	}
	defer t.v.Close()
	o := searchOpts{max: 20, context: 2, regex: in.Regex, threshold: in.Threshold, startLine: in.StartLine}
	if in.MaxResults != nil {
		o.max = *in.MaxResults
		if o.max < 1 || o.max > 500 {
			return nil, "", invalid("max_results is between 1 and 500", "max_results %d", o.max)
		}
	}
	if in.ContextLines != nil {
		o.context = *in.ContextLines
		if o.context < 0 || o.context > 50 {
			return nil, "", invalid("context_lines is between 0 and 50", "context_lines %d", o.context)
		}
	}
	fuzzy := in.Fuzzy == nil || *in.Fuzzy
	out := &SearchOut{FilePath: t.v.Path.Key, Version: version(t.v.ID), Mode: "exact", Results: []SearchResult{}}
	if in.Regex {
		out.Mode = "regex"
	}
	res, err := t.search(in.Pattern, o)
	if err != nil {
		return nil, "", err
	}
	if len(res.Hits) == 0 && fuzzy && !in.Regex {
		if t.data != nil {
			o.fuzzy = true
			if res, err = t.search(in.Pattern, o); err != nil {
				return nil, "", err
			}
			out.Mode = "fuzzy"
		} else {
			out.Note = fmt.Sprintf("no exact match; fuzzy search is not run on streamed files (over %s)", mib(mmapLimitOrDefault()))
		}
	}
	ol := t.outline()
	var b strings.Builder
	budget := s.opts.ResultCap - 600
	full := false // the answer is full: more results would not fit, whatever max_results
	for i, h := range res.Hits {
		r := SearchResult{LineNumber: h.Line, Match: h.Text, ContextBefore: orEmpty(h.Before), ContextAfter: orEmpty(h.After),
			SimilarityScore: h.Similarity, Truncated: h.Truncated, Column: h.Col, Submatches: h.Submatches}
		if r.Submatches == nil {
			r.Submatches = []match.Span{}
		}
		if sym := syntax.Enclosing(ol, h.Line); sym != nil {
			r.SemanticContext = string(sym.Kind) + " " + sym.Path
		}
		entry := resultText(r, out.Mode)
		if b.Len()+len(entry) > budget && i > 0 {
			out.More, res.More, full = true, false, true
			if out.Mode != "fuzzy" {
				out.NextStartLine = h.Line
			}
			break
		}
		b.WriteString(entry)
		out.Results = append(out.Results, r)
	}
	if res.More {
		out.More = true
		if out.Mode != "fuzzy" && len(out.Results) > 0 {
			out.NextStartLine = out.Results[len(out.Results)-1].LineNumber + 1
		}
	}
	head := fmt.Sprintf("%s (version %s): %d %s result(s) for %q\n", out.FilePath, out.Version, len(out.Results), out.Mode, in.Pattern)
	if out.Note != "" {
		head += out.Note + "\n"
	}
	if out.More {
		if out.NextStartLine > 0 {
			b.WriteString(fmt.Sprintf("[more results: call again with start_line=%d]\n", out.NextStartLine))
		} else if full {
			b.WriteString("[more results than fit in one answer: narrow the pattern, or ask fewer context_lines]\n")
		} else {
			b.WriteString("[more results: raise max_results or narrow the pattern]\n")
		}
	}
	return out, head + b.String(), nil
}

func resultText(r SearchResult, mode string) string {
	var b strings.Builder
	b.WriteString("--\n")
	for i, l := range r.ContextBefore {
		fmt.Fprintf(&b, "%d  %s\n", r.LineNumber-len(r.ContextBefore)+i, l)
	}
	fmt.Fprintf(&b, "%d: %s", r.LineNumber, r.Match)
	if r.Truncated {
		fmt.Fprintf(&b, " [line cut, from byte %d]", r.Column)
	}
	if mode == "fuzzy" {
		fmt.Fprintf(&b, " [similarity %.2f]", r.SimilarityScore)
	}
	if r.SemanticContext != "" {
		fmt.Fprintf(&b, " [in %s]", r.SemanticContext)
	}
	b.WriteByte('\n')
	for i, l := range r.ContextAfter {
		fmt.Fprintf(&b, "%d  %s\n", r.LineNumber+1+i, l)
	}
	return b.String()
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
