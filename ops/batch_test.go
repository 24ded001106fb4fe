package ops_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops"
)

// files is an in-memory workspace: path → content.
type files map[string]string

func (f files) load(path string) ([]byte, bool, error) {
	s, ok := f[path]
	if !ok {
		return nil, false, nil
	}
	return []byte(s), true, nil
}

func apply(t *testing.T, f files, batch ...ops.Op) *ops.Outcome {
	t.Helper()
	out, err := ops.ApplyBatch(batch, f.load)
	if err != nil {
		t.Fatalf("ApplyBatch: %v", err)
	}
	return out
}

func refuse(t *testing.T, f files, want error, batch ...ops.Op) *ops.BatchError {
	t.Helper()
	out, err := ops.ApplyBatch(batch, f.load)
	if out != nil {
		t.Errorf("got an outcome with an error")
	}
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	var be *ops.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err %T is not a *BatchError", err)
	}
	return be
}

func newText(t *testing.T, out *ops.Outcome, path string) string {
	t.Helper()
	f, ok := out.Files[path]
	if !ok {
		t.Fatalf("no result for %s", path)
	}
	return string(f.New)
}

var ip = ops.Int

func TestApplyBatch_Create(t *testing.T) {
	f := files{"exists.go": "x\n"}
	out := apply(t, f,
		ops.CreateOp{Path: "svc/new.go", Content: "package svc\n\nfunc main() {}\n"},
		ops.CreateOp{Path: "empty.txt"},
	)
	if got := newText(t, out, "svc/new.go"); got != "package svc\n\nfunc main() {}\n" {
		t.Errorf("content %q", got)
	}
	r := out.Files["svc/new.go"]
	if !r.Created || r.Old != nil || r.LinesTotal != 3 || r.BytesWritten != 28 {
		t.Errorf("file result %+v", r)
	}
	a := out.Applied[0]
	if a.StartLine != 1 || a.EndLine != 3 || a.BytesWritten != 28 || strings.Join(a.Context, "|") != "1: package svc|2: |3: func main() {}" {
		t.Errorf("applied %+v", a)
	}
	if e := out.Files["empty.txt"]; len(e.New) != 0 || !e.Created || out.Applied[1].Context != nil {
		t.Errorf("empty file %+v %+v", e, out.Applied[1])
	}
	be := refuse(t, f, ops.ErrFileExists, ops.CreateOp{Path: "a"}, ops.CreateOp{Path: "exists.go"})
	if be.Failed[0].Index != 1 || be.Failed[0].Path != "exists.go" || be.Failed[0].Op != ops.KindCreate {
		t.Errorf("failure %+v", be.Failed[0])
	}
	refuse(t, f, ops.ErrOverlap, ops.CreateOp{Path: "a"}, ops.CreateOp{Path: "a"})
	refuse(t, f, ops.ErrInvalidInput, ops.CreateOp{Path: " "})
}

func TestApplyBatch_CreateContextCapped(t *testing.T) {
	out := apply(t, files{}, ops.CreateOp{Path: "big", Content: strings.Repeat("x\n", 100)})
	c := out.Applied[0].Context
	if len(c) != ops.CreateContextLines+1 || c[len(c)-1] != "..." {
		t.Errorf("context has %d lines, last %q", len(c), c[len(c)-1])
	}
}

func TestApplyBatch_ReplaceWhole(t *testing.T) {
	f := files{
		"crlf.txt": "\xEF\xBB\xBFold\r\nold\r\n",
		"long.txt": "1\n2\n3\n4\n5\n6\n",
		"latin":    "caf\xe9\n",
	}
	out := apply(t, f,
		ops.ReplaceOp{Path: "crlf.txt", Content: "new\nnew\n"},
		ops.ReplaceOp{Path: "long.txt", Content: "a\nb\nc\nd\ne\n"},
	)
	if got := newText(t, out, "crlf.txt"); got != "\xEF\xBB\xBFnew\r\nnew\r\n" {
		t.Errorf("crlf+bom kept: %q", got)
	}
	a := out.Applied[1]
	if a.LinesTotal != 5 || a.BytesWritten != 10 || strings.Join(a.Context, "|") != "1: a|2: b|...|4: d|5: e" {
		t.Errorf("head/tail context %+v", a)
	}
	out = apply(t, files{"one": "x"}, ops.ReplaceOp{Path: "one", Content: "a\r\nb\r\n"})
	if got := newText(t, out, "one"); got != "a\r\nb\r\n" {
		t.Errorf("no ending to keep, content's kept: %q", got)
	}
	out = apply(t, f, ops.ReplaceOp{Path: "latin", Content: "naïve"})
	if got := newText(t, out, "latin"); got != "na\xefve" {
		t.Errorf("latin-1 kept: %q", got)
	}
	refuse(t, f, ops.ErrInvalidInput, ops.ReplaceOp{Path: "latin", Content: "€"})
	refuse(t, f, ops.ErrFileNotFound, ops.ReplaceOp{Path: "missing", Content: "x"})
	refuse(t, f, ops.ErrInvalidInput, ops.ReplaceOp{Path: "long.txt", EndLine: ip(2)})
	refuse(t, f, ops.ErrOverlap, ops.ReplaceOp{Path: "long.txt"}, ops.InsertOp{Path: "long.txt", At: ops.AtBOF})
	refuse(t, f, ops.ErrOverlap, ops.InsertOp{Path: "long.txt", At: ops.AtBOF}, ops.ReplaceOp{Path: "long.txt"})
}

func TestApplyBatch_ReplaceRange(t *testing.T) {
	src := "l1\nl2\nl3\nl4\nl5\n"
	tests := []struct {
		name string
		op   ops.ReplaceOp
		want string
		warn bool
		err  error
	}{
		{"one line", ops.ReplaceOp{StartLine: ip(2), Content: "X"}, "l1\nX\nl3\nl4\nl5\n", false, nil},
		{"lines to more lines", ops.ReplaceOp{StartLine: ip(2), EndLine: ip(3), Content: "A\nB\nC\n"}, "l1\nA\nB\nC\nl4\nl5\n", false, nil},
		{"delete lines", ops.ReplaceOp{StartLine: ip(4), EndLine: ip(5)}, "l1\nl2\nl3\n", false, nil},
		{"chars", ops.ReplaceOp{StartLine: ip(2), StartCol: ip(1), EndLine: ip(3), EndCol: ip(1), Content: "-"}, "l1\nl-3\nl4\nl5\n", false, nil},
		{"chars to eol", ops.ReplaceOp{StartLine: ip(1), StartCol: ip(1), Content: "ine"}, "line\nl2\nl3\nl4\nl5\n", false, nil},
		{"target text exact", ops.ReplaceOp{StartLine: ip(3), TargetLineText: " l3 ", Content: "Z"}, "l1\nl2\nZ\nl4\nl5\n", false, nil},
		{"target text shifts", ops.ReplaceOp{StartLine: ip(2), EndLine: ip(3), TargetLineText: "l4", Content: "Z"}, "l1\nl2\nl3\nZ\n", true, nil},
		{"target text missing", ops.ReplaceOp{StartLine: ip(1), TargetLineText: "l5"}, "", false, ops.ErrNoMatch},
		{"line out of range", ops.ReplaceOp{StartLine: ip(6)}, "", false, ops.ErrInvalidInput},
		{"end before start", ops.ReplaceOp{StartLine: ip(3), EndLine: ip(2)}, "", false, ops.ErrInvalidInput},
		{"col out of range", ops.ReplaceOp{StartLine: ip(1), StartCol: ip(3)}, "", false, ops.ErrInvalidInput},
		{"char range backwards", ops.ReplaceOp{StartLine: ip(1), StartCol: ip(2), EndLine: ip(1), EndCol: ip(1)}, "", false, ops.ErrInvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.op.Path = "f"
			f := files{"f": src}
			if tt.err != nil {
				refuse(t, f, tt.err, tt.op)
				return
			}
			out := apply(t, f, tt.op)
			if got := newText(t, out, "f"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if w := len(out.Applied[0].Warnings) > 0; w != tt.warn {
				t.Errorf("warnings %v", out.Applied[0].Warnings)
			}
		})
	}
}

func TestApplyBatch_ReplaceKeepsNoFinalNewline(t *testing.T) {
	out := apply(t, files{"f": "a\r\nb\r\nc"},
		ops.ReplaceOp{Path: "f", StartLine: ip(3), Content: "C\n"},
		ops.ReplaceOp{Path: "f", StartLine: ip(1), Content: "A\nA2"},
	)
	if got := newText(t, out, "f"); got != "A\r\nA2\r\nb\r\nC" {
		t.Errorf("got %q", got)
	}
	out = apply(t, files{"f": "a\nb\nc"}, ops.ReplaceOp{Path: "f", StartLine: ip(2), EndLine: ip(3)})
	if got := newText(t, out, "f"); got != "a" {
		t.Errorf("delete tail: %q", got)
	}
}

func TestApplyBatch_Errors(t *testing.T) {
	f := files{"bin": "\x00\x01\x02", "t": "x\n"}
	refuse(t, f, ops.ErrInvalidInput) // no ops
	refuse(t, f, ops.ErrInvalidInput, nil)
	refuse(t, f, ops.ErrBinary, ops.InsertOp{Path: "bin", At: ops.AtEOF, Content: "y"})
	refuse(t, f, ops.ErrBinary, ops.CopyPasteOp{SourcePath: "bin", SourceStartLine: 1, SourceEndLine: 1, TargetPath: "t", TargetLine: 1})

	boom := errors.New("disk on fire")
	_, err := ops.ApplyBatch([]ops.Op{ops.InsertOp{Path: "t", At: ops.AtEOF}}, func(string) ([]byte, bool, error) {
		return nil, false, boom
	})
	if err != boom {
		t.Errorf("loader error = %v, want it unchanged", err)
	}
}

func TestApplyBatch_AllOrNothing(t *testing.T) {
	f := files{"a": "a\n", "b": "b\n"}
	be := refuse(t, f, ops.ErrFileNotFound,
		ops.InsertOp{Path: "a", At: ops.AtEOF, Content: "fine"},
		ops.InsertOp{Path: "missing", At: ops.AtEOF, Content: "x"},
		ops.InsertOp{Path: "b", At: ops.AtBeforeLine, Line: ip(9), Content: "x"},
		ops.CreateOp{Path: "b"},
	)
	if len(be.Failed) != 3 {
		t.Fatalf("failed %d ops, want 3: %v", len(be.Failed), be)
	}
	for k, want := range []struct {
		idx int
		err error
	}{{1, ops.ErrFileNotFound}, {2, ops.ErrInvalidInput}, {3, ops.ErrFileExists}} {
		if be.Failed[k].Index != want.idx || !errors.Is(be.Failed[k], want.err) {
			t.Errorf("failure %d = %+v, want index %d %v", k, be.Failed[k], want.idx, want.err)
		}
	}
	var e *ops.Error
	if !errors.As(be, &e) || e.Index != 1 {
		t.Errorf("errors.As gives %+v, want op 1", e)
	}
	if !strings.Contains(be.Error(), "and 2 more") {
		t.Errorf("message %q", be.Error())
	}
}

func TestOutcome_Paths(t *testing.T) {
	out := apply(t, files{"a": "1\n", "b": "2\n"},
		ops.CopyPasteOp{SourcePath: "a", SourceStartLine: 1, SourceEndLine: 1, TargetPath: "b", TargetLine: 1},
		ops.MoveOp{SourcePath: "a", SourceStartLine: 1, SourceEndLine: 1, TargetPath: "c", TargetLine: 1},
	)
	if got := strings.Join(out.Paths(), ","); got != "b,a,c" {
		t.Errorf("paths %s", got)
	}
}

func TestFileResult_Diff(t *testing.T) {
	out := apply(t, files{"a": "1\n"},
		ops.InsertOp{Path: "a", At: "eof", Content: "2"},
		ops.CreateOp{Path: "b", Content: "new\n"},
		ops.ReplaceOp{Path: "a", StartLine: ip(1), Content: "one"},
	)
	if d := out.Files["a"].Diff(); !strings.Contains(d, "--- a/a\n+++ b/a\n") || !strings.Contains(d, "+one\n+2\n") {
		t.Errorf("edit diff:\n%s", d)
	}
	if d := out.Files["b"].Diff(); !strings.Contains(d, "--- /dev/null\n+++ b/b\n") || !strings.Contains(d, "+new") {
		t.Errorf("create diff:\n%s", d)
	}
}
