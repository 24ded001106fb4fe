package ops_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops"
)

func TestApplyBatch_CopyPaste(t *testing.T) {
	src := "@decorator\ndef f():\n    return 1\n"
	tests := []struct {
		name   string
		target string
		op     ops.CopyPasteOp
		want   string
		lines  [2]int
		err    error
	}{
		{name: "line only", target: "a\nb\n", op: ops.CopyPasteOp{SourceStartLine: 1, SourceEndLine: 1, TargetLine: 2},
			want: "a\n@decorator\nb\n", lines: [2]int{2, 2}},
		{name: "line only at eof", target: "a\nb\n", op: ops.CopyPasteOp{SourceStartLine: 2, SourceEndLine: 3, TargetLine: -1},
			want: "a\nb\ndef f():\n    return 1\n", lines: [2]int{3, 4}},
		{name: "line only to crlf", target: "a\r\nb", op: ops.CopyPasteOp{SourceStartLine: 2, SourceEndLine: 3, TargetLine: -1},
			want: "a\r\nb\r\ndef f():\r\n    return 1", lines: [2]int{3, 4}},
		{name: "line only N+1", target: "a\n", op: ops.CopyPasteOp{SourceStartLine: 1, SourceEndLine: 1, TargetLine: 2},
			want: "a\n@decorator\n", lines: [2]int{2, 2}},
		{name: "into empty file", target: "", op: ops.CopyPasteOp{SourceStartLine: 1, SourceEndLine: 1, TargetLine: 1},
			want: "@decorator\n", lines: [2]int{1, 1}},
		{name: "char precise", target: "x = 0\n", op: ops.CopyPasteOp{SourceStartLine: 3, SourceStartCol: ip(4), SourceEndLine: 3, SourceEndCol: ip(10), TargetLine: 1, TargetCol: ip(-1)},
			want: "x = 0return\n", lines: [2]int{1, 1}},
		{name: "char precise default cols", target: "x\n", op: ops.CopyPasteOp{SourceStartLine: 1, SourceEndLine: 2, TargetLine: 1, TargetCol: ip(0)},
			want: "@decorator\ndef f():x\n", lines: [2]int{1, 2}},
		{name: "char target -1 line", target: "a\nb", op: ops.CopyPasteOp{SourceStartLine: 1, SourceStartCol: ip(0), SourceEndLine: 1, SourceEndCol: ip(1), TargetLine: -1, TargetCol: ip(-1)},
			want: "a\nb@", lines: [2]int{2, 2}},
		{name: "target line out of range", target: "a\n", op: ops.CopyPasteOp{SourceStartLine: 1, SourceEndLine: 1, TargetLine: 3}, err: ops.ErrInvalidInput},
		{name: "target line 0", target: "a\n", op: ops.CopyPasteOp{SourceStartLine: 1, SourceEndLine: 1, TargetLine: 0}, err: ops.ErrInvalidInput},
		{name: "source end before start", target: "a\n", op: ops.CopyPasteOp{SourceStartLine: 2, SourceEndLine: 1, TargetLine: 1}, err: ops.ErrInvalidInput},
		{name: "source past end", target: "a\n", op: ops.CopyPasteOp{SourceStartLine: 1, SourceEndLine: 4, TargetLine: 1}, err: ops.ErrInvalidInput},
		{name: "source col past end", target: "a\n", op: ops.CopyPasteOp{SourceStartLine: 1, SourceStartCol: ip(99), SourceEndLine: 1, TargetLine: 1}, err: ops.ErrInvalidInput},
		{name: "target col past end", target: "a\n", op: ops.CopyPasteOp{SourceStartLine: 1, SourceEndLine: 1, TargetLine: 1, TargetCol: ip(5)}, err: ops.ErrInvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.op.SourcePath, tt.op.TargetPath = "src.py", "dst.py"
			f := files{"src.py": src, "dst.py": tt.target}
			if tt.err != nil {
				refuse(t, f, tt.err, tt.op)
				return
			}
			out := apply(t, f, tt.op)
			if got := newText(t, out, "dst.py"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if _, touched := out.Files["src.py"]; touched {
				t.Error("the source was modified")
			}
			a := out.Applied[0]
			if a.Path != "dst.py" || a.SourcePath != "src.py" || a.StartLine != tt.lines[0] || a.EndLine != tt.lines[1] {
				t.Errorf("applied %+v", a)
			}
		})
	}
	f := files{"src.py": src, "dst.py": ""}
	refuse(t, f, ops.ErrFileNotFound, ops.CopyPasteOp{SourcePath: "src.py", SourceStartLine: 1, SourceEndLine: 1, TargetPath: "nope", TargetLine: 1})
	refuse(t, f, ops.ErrFileNotFound, ops.CopyPasteOp{SourcePath: "nope", SourceStartLine: 1, SourceEndLine: 1, TargetPath: "dst.py", TargetLine: 1})
	refuse(t, f, ops.ErrInvalidInput, ops.CopyPasteOp{SourcePath: "dst.py", SourceStartLine: 1, SourceEndLine: 1, TargetPath: "src.py", TargetLine: 1})
	refuse(t, f, ops.ErrInvalidInput, ops.CopyPasteOp{SourcePath: "src.py", SourceStartLine: 1, SourceEndLine: 1, TargetLine: 1})
}

// TestApplyBatch_StampDecorator copies one line to 50 places in 10 files
// (and 5 places of the source file itself) in one batch, loading each file once.
func TestApplyBatch_StampDecorator(t *testing.T) {
	f := files{"deco.py": "@traced\n"}
	var batch []ops.Op
	for i := range 10 {
		path := fmt.Sprintf("svc%d.py", i)
		f[path] = strings.Repeat("def f():\n    pass\n", 5)
		for fn := range 5 {
			batch = append(batch, ops.CopyPasteOp{SourcePath: "deco.py", SourceStartLine: 1, SourceEndLine: 1,
				TargetPath: path, TargetLine: 1 + 2*fn})
		}
	}
	loads := map[string]int{}
	out, err := ops.ApplyBatch(batch, func(p string) ([]byte, bool, error) {
		loads[p]++
		return f.load(p)
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, n := range loads {
		if n != 1 {
			t.Errorf("%s loaded %d times", p, n)
		}
	}
	want := strings.Repeat("@traced\ndef f():\n    pass\n", 5)
	for i := range 10 {
		if got := newText(t, out, fmt.Sprintf("svc%d.py", i)); got != want {
			t.Fatalf("svc%d.py = %q", i, got)
		}
	}
	if len(out.Applied) != 50 || out.Applied[49].StartLine != 13 {
		t.Errorf("applied %d, last at line %d", len(out.Applied), out.Applied[49].StartLine)
	}
}

func TestApplyBatch_Move(t *testing.T) {
	main := "import x\n\ndef a():\n    pass\n\ndef b():\n    pass\n"
	f := files{"main.py": main, "utils.py": "# utils\n"}

	// To an existing file.
	out := apply(t, f, ops.MoveOp{SourcePath: "main.py", SourceStartLine: 3, SourceEndLine: 5, TargetPath: "utils.py", TargetLine: -1})
	if got := newText(t, out, "main.py"); got != "import x\n\ndef b():\n    pass\n" {
		t.Errorf("source %q", got)
	}
	if got := newText(t, out, "utils.py"); got != "# utils\ndef a():\n    pass\n\n" {
		t.Errorf("target %q", got)
	}
	a := out.Applied[0]
	if a.TargetCreated || len(a.Warnings) != 0 || a.StartLine != 2 || a.EndLine != 4 || a.SourceLine != 3 || a.Path != "main.py" || a.TargetPath != "utils.py" {
		t.Errorf("applied %+v", a)
	}

	// To new files, two moves into one of them.
	out = apply(t, f,
		ops.MoveOp{SourcePath: "main.py", SourceStartLine: 3, SourceEndLine: 4, TargetPath: "pkg/a.py", TargetLine: 1},
		ops.MoveOp{SourcePath: "main.py", SourceStartLine: 6, SourceEndLine: 7, TargetPath: "pkg/b.py", TargetLine: 1},
		ops.MoveOp{SourcePath: "main.py", SourceStartLine: 1, SourceEndLine: 1, TargetPath: "pkg/a.py", TargetLine: -1},
	)
	if got := newText(t, out, "main.py"); got != "\n\n" {
		t.Errorf("source %q", got)
	}
	if got := newText(t, out, "pkg/a.py"); got != "def a():\n    pass\nimport x\n" {
		t.Errorf("a.py %q", got)
	}
	if r := out.Files["pkg/b.py"]; !r.Created || r.Old != nil || string(r.New) != "def b():\n    pass\n" {
		t.Errorf("b.py %+v", r)
	}
	for i, created := range []bool{true, true, false} {
		a := out.Applied[i]
		if a.TargetCreated != created || (len(a.Warnings) == 1) != created {
			t.Errorf("op %d: created %v warnings %v", i, a.TargetCreated, a.Warnings)
		}
	}
	if w := out.Applied[0].Warnings; len(w) != 1 || w[0] != "Created new file: pkg/a.py" {
		t.Errorf("warning %v", w)
	}

	// Within a file, down and up, and char-precise.
	out = apply(t, files{"f": "1\n2\n3\n4\n"}, ops.MoveOp{SourcePath: "f", SourceStartLine: 1, SourceEndLine: 2, TargetPath: "f", TargetLine: -1})
	if got := newText(t, out, "f"); got != "3\n4\n1\n2\n" {
		t.Errorf("down %q", got)
	}
	out = apply(t, files{"f": "1\n2\n3\n4"}, ops.MoveOp{SourcePath: "f", SourceStartLine: 4, SourceEndLine: 4, TargetPath: "f", TargetLine: 1})
	if got := newText(t, out, "f"); got != "4\n1\n2\n3" {
		t.Errorf("up, no final newline %q", got)
	}
	out = apply(t, files{"f": "ab cd\nef\n"}, ops.MoveOp{SourcePath: "f", SourceStartLine: 1, SourceStartCol: ip(0), SourceEndLine: 1, SourceEndCol: ip(3), TargetPath: "f", TargetLine: 2, TargetCol: ip(-1)})
	if got := newText(t, out, "f"); got != "cd\nefab \n" {
		t.Errorf("chars %q", got)
	}

	refuse(t, f, ops.ErrFileNotFound, ops.MoveOp{SourcePath: "nope", SourceStartLine: 1, SourceEndLine: 1, TargetPath: "x", TargetLine: 1})
	refuse(t, f, ops.ErrOverlap, ops.CreateOp{Path: "new.py"}, ops.MoveOp{SourcePath: "main.py", SourceStartLine: 1, SourceEndLine: 1, TargetPath: "new.py", TargetLine: 1})
	refuse(t, f, ops.ErrInvalidInput, ops.MoveOp{SourcePath: "main.py", SourceStartLine: 1, SourceEndLine: 1, TargetPath: "new.py", TargetLine: 3})
}
