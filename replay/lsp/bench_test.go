package lsp_test

import (
	"path/filepath"
	"testing"

	"github.com/journalfs/journal/replay/lsp"
)

// renameCase is a workspace and a rename in it, per server.
type renameCase struct {
	lang, bin    string
	project      func(testing.TB) string
	file, marker string
	skip         int
	newName      string
	files        int // files the rename must touch
}

var renameCases = []renameCase{
	{"go", "gopls", goModule, "greet/greet.go", "func Greet", len("func "), "Salute", 4},
	{"python", "pyright-langserver", pyProject, "pkg/greet.py", "def greet", len("def "), "salute", 4},
	{"typescript", "typescript-language-server", tsProject, "src/shape.ts", "class Shape", len("class "), "Figure", 4},
}

// setup writes the case's workspace and finds the symbol to rename.
func (c renameCase) setup(b *testing.B) (dir, path string, line, col int) {
	need(b, c.bin)
	dir = c.project(b)
	path = filepath.Join(dir, c.file)
	line, col = pos(b, read(b, path), c.marker, c.skip)
	return dir, path, line, col
}

// BenchmarkRename_First measures a cold rename: server start, initialize,
// project load and the first textDocument/rename (the manager is closed
// after each, outside the timer).
func BenchmarkRename_First(b *testing.B) {
	for _, c := range renameCases {
		b.Run(c.lang, func(b *testing.B) {
			dir, path, line, col := c.setup(b)
			ctx := testCtx(b)
			for b.Loop() {
				m := lsp.NewManager(lsp.DefaultConfig(), []string{dir})
				edits, err := m.Rename(ctx, path, line, col, c.newName)
				b.StopTimer()
				m.Close()
				if err != nil || len(edits) != c.files {
					b.Fatalf("rename: %d files, %v", len(edits), err)
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkRename_Warm measures a rename on a running server whose project
// is loaded.
func BenchmarkRename_Warm(b *testing.B) {
	for _, c := range renameCases {
		b.Run(c.lang, func(b *testing.B) {
			dir, path, line, col := c.setup(b)
			ctx := testCtx(b)
			m := manager(b, dir)
			if _, err := m.Rename(ctx, path, line, col, c.newName); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				edits, err := m.Rename(ctx, path, line, col, c.newName)
				if err != nil || len(edits) != c.files {
					b.Fatalf("rename: %d files, %v", len(edits), err)
				}
			}
		})
	}
}

// BenchmarkDiagnostics_Overlay measures a settled Diagnostics call after an
// overlay that changes a signature (what an edit's safety check costs).
func BenchmarkDiagnostics_Overlay(b *testing.B) {
	for _, c := range renameCases {
		b.Run(c.lang, func(b *testing.B) {
			dir, path, _, _ := c.setup(b)
			ctx := testCtx(b)
			m := manager(b, dir)
			orig := read(b, path)
			if _, err := m.Diagnostics(ctx, path); err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				i++
				text := orig
				if i%2 == 1 {
					text = orig + "\n" + map[string]string{"go": "var _ = 1 +\n", "python": "x = (\n", "typescript": "let x = (;\n"}[c.lang]
				}
				if err := m.Overlay(ctx, path, []byte(text)); err != nil {
					b.Fatal(err)
				}
				if _, err := m.Diagnostics(ctx, path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
