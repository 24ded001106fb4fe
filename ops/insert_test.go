package ops_test

import (
	"strings"
	"testing"

	"github.com/journalfs/journal/ops"
)

func TestApplyBatch_Insert(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		op        ops.InsertOp
		want      string
		lines     [2]int // post-edit start/end line
		err       error
		wantCtxIn string // a line the context must contain
	}{
		{name: "bof", src: "a\nb\n", op: ops.InsertOp{At: "bof", Content: "x"}, want: "x\na\nb\n", lines: [2]int{1, 1}},
		{name: "eof", src: "a\nb\n", op: ops.InsertOp{At: "eof", Content: "x\ny\n"}, want: "a\nb\nx\ny\n", lines: [2]int{3, 4}},
		{name: "eof no final newline", src: "a\nb", op: ops.InsertOp{At: "eof", Content: "x\n"}, want: "a\nb\nx", lines: [2]int{3, 3}},
		{name: "eof empty file", src: "", op: ops.InsertOp{At: "eof", Content: "x"}, want: "x\n", lines: [2]int{1, 1}},
		{name: "bof empty file", src: "", op: ops.InsertOp{At: "bof", Content: "x"}, want: "x\n", lines: [2]int{1, 1}},
		{name: "before line", src: "a\nb\nc\n", op: ops.InsertOp{At: "before_line", Line: ip(2), Content: "x"}, want: "a\nx\nb\nc\n", lines: [2]int{2, 2}, wantCtxIn: "4: c"},
		{name: "after line", src: "a\nb\nc\n", op: ops.InsertOp{At: "after_line", Line: ip(2), Content: "x"}, want: "a\nb\nx\nc\n", lines: [2]int{3, 3}},
		{name: "after last line no newline", src: "a\nb", op: ops.InsertOp{At: "after_line", Line: ip(2), Content: "x"}, want: "a\nb\nx", lines: [2]int{3, 3}},
		{name: "crlf new lines", src: "a\r\nb\r\n", op: ops.InsertOp{At: "after_line", Line: ip(1), Content: "x\ny"}, want: "a\r\nx\r\ny\r\nb\r\n", lines: [2]int{2, 3}},
		{name: "col 0", src: "abc\n", op: ops.InsertOp{At: "before_line", Line: ip(1), Col: ip(0), Content: "@"}, want: "@abc\n", lines: [2]int{1, 1}},
		{name: "col -1", src: "abc\r\n", op: ops.InsertOp{At: "after_line", Line: ip(1), Col: ip(-1), Content: ";"}, want: "abc;\r\n", lines: [2]int{1, 1}},
		{name: "col N runes", src: "héllo\n", op: ops.InsertOp{At: "before_line", Line: ip(1), Col: ip(2), Content: "_"}, want: "hé_llo\n", lines: [2]int{1, 1}},
		{name: "col after tab", src: "\tx\n", op: ops.InsertOp{At: "before_line", Line: ip(1), Col: ip(1), Content: "y"}, want: "\tyx\n", lines: [2]int{1, 1}},
		{name: "col multi-line content", src: "ab\n", op: ops.InsertOp{At: "before_line", Line: ip(1), Col: ip(1), Content: "1\n2"}, want: "a1\n2b\n", lines: [2]int{1, 2}},
		{name: "bof with col", src: "ab", op: ops.InsertOp{At: "bof", Col: ip(0), Content: "x"}, want: "xab", lines: [2]int{1, 1}},
		{name: "eof with col", src: "ab", op: ops.InsertOp{At: "eof", Col: ip(-1), Content: "x"}, want: "abx", lines: [2]int{1, 1}},
		{name: "empty content line mode", src: "a\n", op: ops.InsertOp{At: "bof"}, want: "\na\n", lines: [2]int{1, 1}},
		{name: "missing line", src: "a\n", op: ops.InsertOp{At: "before_line"}, err: ops.ErrInvalidInput},
		{name: "bad at", src: "a\n", op: ops.InsertOp{At: "middle"}, err: ops.ErrInvalidInput},
		{name: "line 0", src: "a\n", op: ops.InsertOp{At: "after_line", Line: ip(0)}, err: ops.ErrInvalidInput},
		{name: "line past end", src: "a\n", op: ops.InsertOp{At: "after_line", Line: ip(2)}, err: ops.ErrInvalidInput},
		{name: "line in empty file", src: "", op: ops.InsertOp{At: "before_line", Line: ip(1)}, err: ops.ErrInvalidInput},
		{name: "col past end", src: "ab\n", op: ops.InsertOp{At: "before_line", Line: ip(1), Col: ip(3)}, err: ops.ErrInvalidInput},
		{name: "col -2", src: "ab\n", op: ops.InsertOp{At: "before_line", Line: ip(1), Col: ip(-2)}, err: ops.ErrInvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.op.Path = "f"
			f := files{"f": tt.src}
			if tt.err != nil {
				refuse(t, f, tt.err, tt.op)
				return
			}
			out := apply(t, f, tt.op)
			if got := newText(t, out, "f"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			a := out.Applied[0]
			if a.StartLine != tt.lines[0] || a.EndLine != tt.lines[1] {
				t.Errorf("changed lines %d-%d, want %d-%d", a.StartLine, a.EndLine, tt.lines[0], tt.lines[1])
			}
			if tt.wantCtxIn != "" && !strings.Contains(strings.Join(a.Context, "\n"), tt.wantCtxIn) {
				t.Errorf("context %q lacks %q", a.Context, tt.wantCtxIn)
			}
		})
	}
}

// TestApplyBatch_OriginalCoordinates: several inserts into one file name
// lines of the original; applying them bottom to top keeps every one where
// it was meant, whatever order the batch lists them in, and the results
// report post-edit lines.
func TestApplyBatch_OriginalCoordinates(t *testing.T) {
	f := files{"f": "l1\nl2\nl3\nl4\n"}
	out := apply(t, f,
		ops.InsertOp{Path: "f", At: "before_line", Line: ip(2), Content: "A1\nA2"},
		ops.InsertOp{Path: "f", At: "after_line", Line: ip(4), Content: "Z"},
		ops.InsertOp{Path: "f", At: "bof", Content: "TOP"},
		ops.ReplaceOp{Path: "f", StartLine: ip(3), Content: "L3"},
		ops.InsertOp{Path: "f", At: "before_line", Line: ip(2), Content: "B"},
	)
	want := "TOP\nl1\nA1\nA2\nB\nl2\nL3\nl4\nZ\n"
	if got := newText(t, out, "f"); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i, w := range [][2]int{{3, 4}, {9, 9}, {1, 1}, {7, 7}, {5, 5}} {
		if a := out.Applied[i]; a.StartLine != w[0] || a.EndLine != w[1] {
			t.Errorf("op %d at %d-%d, want %d-%d", i, a.StartLine, a.EndLine, w[0], w[1])
		}
	}
	if got := strings.Join(out.Applied[3].Context, "|"); got != "5: B|6: l2|7: L3|8: l4|9: Z" {
		t.Errorf("context %s", got)
	}
}

func TestApplyBatch_Overlap(t *testing.T) {
	f := files{"f": "l1\nl2\nl3\nl4\nl5\n"}
	tests := []struct {
		name  string
		batch []ops.Op
		bad   int // index of the op reported
	}{
		{"same lines", []ops.Op{
			ops.ReplaceOp{Path: "f", StartLine: ip(2), EndLine: ip(3), Content: "x"},
			ops.ReplaceOp{Path: "f", StartLine: ip(3), Content: "y"},
		}, 1},
		{"insert inside replaced range", []ops.Op{
			ops.ReplaceOp{Path: "f", StartLine: ip(2), EndLine: ip(4), Content: "x"},
			ops.InsertOp{Path: "f", At: "before_line", Line: ip(3), Content: "y"},
		}, 1},
		{"chars", []ops.Op{
			ops.ReplaceOp{Path: "f", StartLine: ip(1), StartCol: ip(0), EndLine: ip(1), EndCol: ip(2), Content: "x"},
			ops.ReplaceOp{Path: "f", StartLine: ip(1), StartCol: ip(1), EndLine: ip(1), EndCol: ip(2), Content: "y"},
		}, 1},
		{"move into own range", []ops.Op{
			ops.MoveOp{SourcePath: "f", SourceStartLine: 1, SourceEndLine: 3, TargetPath: "f", TargetLine: 2},
		}, 0},
		{"move source vs replace", []ops.Op{
			ops.ReplaceOp{Path: "f", StartLine: ip(4), Content: "x"},
			ops.MoveOp{SourcePath: "f", SourceStartLine: 3, SourceEndLine: 4, TargetPath: "g", TargetLine: 1},
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			be := refuse(t, f, ops.ErrOverlap, tt.batch...)
			if be.Failed[0].Index != tt.bad || be.Failed[0].Path != "f" {
				t.Errorf("failure %+v", be.Failed[0])
			}
		})
	}
	// Touching ranges and inserts at one point are not overlaps.
	out := apply(t, f,
		ops.ReplaceOp{Path: "f", StartLine: ip(2), Content: "X"},
		ops.ReplaceOp{Path: "f", StartLine: ip(3), Content: "Y"},
		ops.InsertOp{Path: "f", At: "before_line", Line: ip(2), Content: "i1"},
		ops.InsertOp{Path: "f", At: "before_line", Line: ip(2), Content: "i2"},
	)
	if got := newText(t, out, "f"); got != "l1\ni1\ni2\nX\nY\nl4\nl5\n" {
		t.Errorf("got %q", got)
	}
}

func TestApplyBatch_InsertLatin1AndUTF16(t *testing.T) {
	f := files{"l": "caf\xe9\n", "u": string(utf16le("a\r\nb\r\n", true))}
	out := apply(t, f,
		ops.InsertOp{Path: "l", At: "eof", Content: "thé"},
		ops.InsertOp{Path: "u", At: "after_line", Line: ip(1), Content: "ü€"},
	)
	if got := newText(t, out, "l"); got != "caf\xe9\nth\xe9\n" {
		t.Errorf("latin-1: %q", got)
	}
	if got := newText(t, out, "u"); got != string(utf16le("a\r\nü€\r\nb\r\n", true)) {
		t.Errorf("utf-16: %q", got)
	}
	refuse(t, f, ops.ErrInvalidInput, ops.InsertOp{Path: "l", At: "eof", Content: "€"})
}

func TestApplyBatch_HugeLine(t *testing.T) {
	long := strings.Repeat("é", 1<<19) // 1 MiB of UTF-8
	f := files{"f": "a\n" + long + "\nz\n"}
	out := apply(t, f,
		ops.InsertOp{Path: "f", At: "before_line", Line: ip(2), Col: ip(1<<19 - 1), Content: "|"},
		ops.InsertOp{Path: "f", At: "after_line", Line: ip(3), Content: "end"},
	)
	want := "a\n" + strings.Repeat("é", 1<<19-1) + "|é\nz\nend\n"
	if got := newText(t, out, "f"); got != want {
		t.Errorf("huge line edit wrong (len %d, want %d)", len(got), len(want))
	}
}
