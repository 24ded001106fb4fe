package ops_test

import (
	"fmt"

	"github.com/journalfs/journal/ops"
)

// Stamp a decorator above two functions and extract a helper to a new file,
// in one atomic batch whose coordinates all refer to the original files.
func ExampleApplyBatch() {
	disk := map[string]string{
		"deco.py": "@traced\n",
		"main.py": "def a():\n    pass\n\ndef helper():\n    pass\n\ndef b():\n    pass\n",
	}
	load := func(p string) ([]byte, bool, error) {
		s, ok := disk[p]
		return []byte(s), ok, nil
	}
	out, err := ops.ApplyBatch([]ops.Op{
		ops.CopyPasteOp{SourcePath: "deco.py", SourceStartLine: 1, SourceEndLine: 1, TargetPath: "main.py", TargetLine: 1},
		ops.CopyPasteOp{SourcePath: "deco.py", SourceStartLine: 1, SourceEndLine: 1, TargetPath: "main.py", TargetLine: 7},
		ops.MoveOp{SourcePath: "main.py", SourceStartLine: 4, SourceEndLine: 6, TargetPath: "util.py", TargetLine: 1},
	}, load)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out.Files["main.py"].New))
	fmt.Println("--- util.py created:", out.Files["util.py"].Created)
	fmt.Print(string(out.Files["util.py"].New))
	fmt.Println(out.Applied[2].Warnings)
	// Output:
	// @traced
	// def a():
	//     pass
	//
	// @traced
	// def b():
	//     pass
	// --- util.py created: true
	// def helper():
	//     pass
	//
	// [Created new file: util.py]
}

func ExampleDecode() {
	d, _ := ops.Decode([]byte("\xEF\xBB\xBFone\r\ntwo"))
	fmt.Println(d.Encoding, d.BOM, d.LineCount(), d.DominantEOL() == ops.CRLF, d.HasFinalNewline())
	fmt.Println(ops.Context(d, 2, 2, ops.ContextLines))
	// Output:
	// utf-8 true 2 true false
	// [1: one 2: two]
}

func ExampleEditFile() {
	code := "    return a + b"
	res, _ := ops.EditFile(ops.EditFileOp{
		TargetFile: "calc.py", EditInstruction: "fix the sum",
		StartLine: ops.Int(2), CodeBlock: &code,
	}, []byte("def add(a, b):\n    return a - b\n"))
	fmt.Print(res.Diff)
	// Output:
	// --- a/calc.py
	// +++ b/calc.py
	// @@ -1,2 +1,2 @@
	//  def add(a, b):
	// -    return a - b
	// +    return a + b
}
