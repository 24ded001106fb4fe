package ops_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops"
)

func sp(s string) *string { return &s }

func TestEditFile(t *testing.T) {
	src := "def a():\n    return 1\n\ndef b():\n    return 2\n"
	tests := []struct {
		name string
		op   ops.EditFileOp
		want string
		err  error
	}{
		{"insert default appends", ops.EditFileOp{CodeBlock: sp("def c():\n  pass")},
			src + "def c():\n  pass\n", nil},
		{"insert before line", ops.EditFileOp{EditType: "insert", StartLine: ip(1), CodeBlock: sp("import os\n")},
			"import os\n" + src, nil},
		{"replace default with lines", ops.EditFileOp{StartLine: ip(2), CodeBlock: sp("    return 10")},
			"def a():\n    return 10\n\ndef b():\n    return 2\n", nil},
		{"replace range", ops.EditFileOp{StartLine: ip(4), EndLine: ip(5), CodeBlock: sp("def b(): return 2\n")},
			"def a():\n    return 1\n\ndef b(): return 2\n", nil},
		{"delete", ops.EditFileOp{EditType: "delete", StartLine: ip(3), EndLine: ip(5)},
			"def a():\n    return 1\n", nil},
		{"no instruction", ops.EditFileOp{EditInstruction: " ", CodeBlock: sp("x")}, "", ops.ErrInvalidInput},
		{"no code for insert", ops.EditFileOp{}, "", ops.ErrInvalidInput},
		{"no code for replace", ops.EditFileOp{StartLine: ip(1)}, "", ops.ErrInvalidInput},
		{"code for delete", ops.EditFileOp{EditType: "delete", StartLine: ip(1), CodeBlock: sp("x")}, "", ops.ErrInvalidInput},
		{"delete without lines", ops.EditFileOp{EditType: "delete"}, "", ops.ErrInvalidInput},
		{"bad type", ops.EditFileOp{EditType: "rewrite", CodeBlock: sp("x")}, "", ops.ErrInvalidInput},
		{"insert with end_line", ops.EditFileOp{EditType: "insert", EndLine: ip(2), CodeBlock: sp("x")}, "", ops.ErrInvalidInput},
		{"insert past end", ops.EditFileOp{EditType: "insert", StartLine: ip(7), CodeBlock: sp("x")}, "", ops.ErrInvalidInput},
		{"replace past end", ops.EditFileOp{StartLine: ip(5), EndLine: ip(6), CodeBlock: sp("x")}, "", ops.ErrInvalidInput},
		{"end before start", ops.EditFileOp{StartLine: ip(3), EndLine: ip(2), CodeBlock: sp("x")}, "", ops.ErrInvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.op.TargetFile = "m.py"
			if tt.op.EditInstruction == "" {
				tt.op.EditInstruction = "do it"
			}
			res, err := ops.EditFile(tt.op, []byte(src))
			if tt.err != nil {
				var e *ops.Error
				if !errors.Is(err, tt.err) || !errors.As(err, &e) || e.Op != ops.KindEditFile || e.Path != "m.py" {
					t.Fatalf("err = %v, want %v from edit_file on m.py", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(res.New) != tt.want {
				t.Errorf("got %q, want %q", res.New, tt.want)
			}
			if !strings.HasPrefix(res.Diff, "--- a/m.py\n+++ b/m.py\n") || res.Message == "" || len(res.Context) == 0 {
				t.Errorf("result %+v", res)
			}
		})
	}
}

func TestEditFile_PreservesFormat(t *testing.T) {
	src := []byte("\xEF\xBB\xBFa\r\nb\r\nc")
	res, err := ops.EditFile(ops.EditFileOp{TargetFile: "f", EditInstruction: "x", StartLine: ip(2), CodeBlock: sp("B\nB2\n")}, src)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.New); got != "\xEF\xBB\xBFa\r\nB\r\nB2\r\nc" {
		t.Errorf("got %q", got)
	}
	if res.StartLine != 2 || res.EndLine != 3 {
		t.Errorf("lines %d-%d", res.StartLine, res.EndLine)
	}
	if _, err := ops.EditFile(ops.EditFileOp{TargetFile: "f", EditInstruction: "x", StartLine: ip(1), CodeBlock: sp("y")}, []byte{0, 1, 2}); !errors.Is(err, ops.ErrBinary) {
		t.Errorf("binary: %v", err)
	}
	if _, err := ops.EditFile(ops.EditFileOp{TargetFile: "f", EditInstruction: "x", StartLine: ip(1), CodeBlock: sp("")}, nil); !errors.Is(err, ops.ErrInvalidInput) {
		t.Errorf("empty file replace: %v", err)
	}
}

func TestEditFileOp_InBatch(t *testing.T) {
	out := apply(t, files{"a": "1\n2\n"},
		ops.EditFileOp{TargetFile: "a", EditInstruction: "x", EditType: "delete", StartLine: ip(1)},
		ops.InsertOp{Path: "a", At: "eof", Content: "3"},
	)
	if got := newText(t, out, "a"); got != "2\n3\n" {
		t.Errorf("got %q", got)
	}
	refuse(t, files{}, ops.ErrFileNotFound, ops.EditFileOp{TargetFile: "a", EditInstruction: "x", CodeBlock: sp("y")})
}
