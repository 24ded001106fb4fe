package mcp

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/syntax"
)

// Diagnostic is one problem in a file. Without a language server the
// diagnostics are tree-sitter syntax errors.
type Diagnostic struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Message  string `json:"message"`
	Severity string `json:"severity"` // "error" or "warning"
	Source   string `json:"source"`   // "tree-sitter"
	New      bool   `json:"new,omitempty"`
}

// region is the lines an edit replaced: from..to before it, and delta more
// lines after it (negative when it removed lines).
type region struct{ from, to, delta int }

// syntaxCheck compares the syntax errors of a file before and after an edit
// of r. An error after the edit is new unless the same error was there
// before: outside r at the shifted line, inside r with the same message.
// ok is false when the language has no parser.
func syntaxCheck(file, name, before, after string, r region) (was, now []Diagnostic, ok bool) {
	b, ok, _ := syntax.SyntaxErrors(name, []byte(before))
	if !ok {
		return nil, nil, false
	}
	a, _, _ := syntax.SyntaxErrors(name, []byte(after))
	old := map[string]int{}
	for _, e := range b {
		was = append(was, diag(file, e))
		switch {
		case e.Line < r.from:
			old[fmt.Sprint(e.Line, e.Message)]++
		case e.Line > r.to:
			old[fmt.Sprint(e.Line+r.delta, e.Message)]++
		default:
			old["in:"+e.Message]++
		}
	}
	for _, e := range a {
		d := diag(file, e)
		key := fmt.Sprint(e.Line, e.Message)
		inKey := "in:" + e.Message
		switch {
		case old[key] > 0:
			old[key]--
		case e.Line >= r.from && e.Line <= r.to+r.delta && old[inKey] > 0:
			old[inKey]--
		default:
			d.New = true
		}
		now = append(now, d)
	}
	return was, now, true
}

func diag(file string, e syntax.SyntaxError) Diagnostic {
	return Diagnostic{File: file, Line: e.Line, Column: e.Column, Message: e.Message, Severity: "error", Source: "tree-sitter"}
}

// newOnly returns the diagnostics marked new.
func newOnly(ds []Diagnostic) []Diagnostic {
	var out []Diagnostic
	for _, d := range ds {
		if d.New {
			out = append(out, d)
		}
	}
	return out
}

// syntaxRefusal is the SYNTAX_ERROR an edit gets when it introduces errors.
func syntaxRefusal(file string, introduced []Diagnostic) error {
	var where []string
	var cands []ops.Candidate
	for _, d := range introduced {
		where = append(where, fmt.Sprintf("line %d:%d %s", d.Line, d.Column+1, d.Message))
		cands = append(cands, ops.Candidate{Line: d.Line, Text: d.Message})
	}
	return &ops.Error{Op: "syntax_check", Index: -1, Path: file, Err: ops.ErrSyntax,
		Msg: fmt.Sprintf("the edit would introduce %d syntax error(s), so nothing was written: %s (lines as they would be after the edit)",
			len(introduced), strings.Join(where, "; ")),
		Hint:       "fix the code and retry, or pass allowSyntaxErrors: true to write it anyway",
		Candidates: cands}
}

// ImpactFile is one file that mentions a renamed or deleted symbol.
type ImpactFile struct {
	File  string `json:"file"`
	Lines []int  `json:"lines"`
}

// Impact is the impact scope of one rename or delete: the files that still
// mention the old name as an identifier (tree-sitter, not substrings).
type Impact struct {
	Symbol string       `json:"symbol"` // the old name
	Intent string       `json:"intent"` // rename or delete
	Files  []ImpactFile `json:"files"`
	// Truncated says the workspace scan stopped at its limit.
	Truncated bool `json:"truncated,omitempty"`
}

// Limits of the impact scan.
const (
	impactMaxFiles = 20000   // files visited per scan
	impactMaxSize  = 1 << 20 // larger files are skipped
)

// skipDir names directories the impact scan does not enter.
func skipDir(name string) bool {
	switch name {
	case "node_modules", "vendor", "target", "dist", "build", "__pycache__":
		return true
	}
	return strings.HasPrefix(name, ".") && name != "."
}

// impactScope scans the workspace for identifier mentions of each name. The
// edited file is scanned in its new text (after) and listed first, the
// others are read from disk in path order.
func (s *Server) impactScope(ctx context.Context, editedKey, editedName, after string, names map[string]string) []Impact {
	var out []Impact
	for _, name := range sortedKeys(names) {
		imp := Impact{Symbol: name, Intent: names[name], Files: []ImpactFile{}}
		if lines, ok, _ := syntax.Mentions(editedName, []byte(after), name); ok && len(lines) > 0 {
			imp.Files = append(imp.Files, ImpactFile{File: editedKey, Lines: lines})
		}
		out = append(out, imp)
	}
	if len(out) == 0 {
		return nil
	}
	visited := 0
	s.walkWorkspace(ctx, func(w wsFile) error {
		if syntax.Detect(w.rel, nil) == "" {
			return nil
		}
		if visited++; visited > impactMaxFiles {
			for i := range out {
				out[i].Truncated = true
			}
			return fs.SkipAll
		}
		if w.key == editedKey {
			return nil
		}
		if info, err := w.d.Info(); err != nil || info.Size() > impactMaxSize {
			return nil
		}
		data, err := fs.ReadFile(w.fsys, w.rel)
		if err != nil {
			return nil
		}
		for i := range out {
			if lines, ok, _ := syntax.Mentions(w.rel, data, out[i].Symbol); ok && len(lines) > 0 {
				out[i].Files = append(out[i].Files, ImpactFile{File: w.key, Lines: lines})
			}
		}
		return nil
	})
	return out
}

// wsFile is one regular file of the workspace, as walkWorkspace visits it.
type wsFile struct {
	fsys fs.FS  // its root, confined (os.Root)
	rel  string // slash path inside the root
	key  string // the journal's name for it
	abs  string
	d    fs.DirEntry
}

// walkWorkspace visits the regular files of every root in path order,
// skipping hidden, dependency and build directories (skipDir); fn returning
// fs.SkipAll stops the walk.
func (s *Server) walkWorkspace(ctx context.Context, fn func(w wsFile) error) {
	for ri, root := range s.eng.Roots() {
		r, err := os.OpenRoot(root.Dir)
		if err != nil {
			continue
		}
		stop := false
		fs.WalkDir(r.FS(), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || ctx.Err() != nil {
				return fs.SkipDir
			}
			if d.IsDir() {
				if skipDir(d.Name()) {
					return fs.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			w := wsFile{fsys: r.FS(), rel: p, key: p, abs: filepath.Join(root.Dir, filepath.FromSlash(p)), d: d}
			if ri > 0 {
				w.key = filepath.ToSlash(w.abs)
			}
			err = fn(w)
			stop = err == fs.SkipAll
			return err
		})
		r.Close()
		if stop {
			return
		}
	}
}
