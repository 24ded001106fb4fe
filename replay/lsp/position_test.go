package lsp

import (
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// TestText_Positions converts between byte offsets and LSP positions in
// UTF-16 (surrogate pairs count two), UTF-8 and UTF-32, with CRLF lines.
func TestText_Positions(t *testing.T) {
	src := "a😀b\r\nxé𝄞y\nend"
	tx := newText([]byte(src))
	for _, c := range []struct {
		off        int
		line, char uint32
		enc        encoding
	}{
		{0, 0, 0, utf16},
		{1, 0, 1, utf16},  // before 😀
		{5, 0, 3, utf16},  // after 😀: two UTF-16 units
		{6, 0, 4, utf16},  // after b
		{8, 1, 0, utf16},  // after \r\n
		{9, 1, 1, utf16},  // after x
		{11, 1, 2, utf16}, // after é: one unit, two bytes
		{15, 1, 4, utf16}, // after 𝄞: a surrogate pair
		{16, 1, 5, utf16},
		{17, 2, 0, utf16},
		{20, 2, 3, utf16}, // end of file
		{5, 0, 5, utf8e},
		{15, 1, 7, utf8e},
		{5, 0, 2, utf32},
		{15, 1, 3, utf32},
	} {
		p, err := tx.position(c.off, c.enc)
		if err != nil || p.Line != c.line || p.Character != c.char {
			t.Errorf("position(%d, %s) = %v, %v; want %d:%d", c.off, c.enc, p, err, c.line, c.char)
		}
		off, err := tx.offset(protocol.Position{Line: c.line, Character: c.char}, c.enc)
		if err != nil || off != c.off {
			t.Errorf("offset(%d:%d, %s) = %d, %v; want %d", c.line, c.char, c.enc, off, err, c.off)
		}
	}
	// Clamping: past the line's end stops before its \r\n; inside a
	// surrogate pair stays before the rune.
	for _, c := range []struct {
		p    protocol.Position
		want int
	}{
		{protocol.Position{Line: 0, Character: 99}, 6},
		{protocol.Position{Line: 0, Character: 2}, 1},
		{protocol.Position{Line: 3, Character: 0}, len(src)},
	} {
		if got, err := tx.offset(c.p, utf16); err != nil || got != c.want {
			t.Errorf("offset(%v) = %d, %v; want %d", c.p, got, err, c.want)
		}
	}
	if _, err := tx.offset(protocol.Position{Line: 4}, utf16); err == nil {
		t.Error("offset past the last line accepted")
	}
	if l, col := tx.lineCol(15); l != 2 || col != 7 {
		t.Errorf("lineCol(15) = %d:%d, want 2:7", l, col)
	}
	if off, err := tx.byteOffset(2, 7); err != nil || off != 15 {
		t.Errorf("byteOffset(2, 7) = %d, %v", off, err)
	}
	if _, err := tx.byteOffset(1, 9); err == nil {
		t.Error("byteOffset past the line accepted")
	}
}

// TestEntry_FileEdits reads both forms of WorkspaceEdit and refuses
// resource operations.
func TestEntry_FileEdits(t *testing.T) {
	e := &entry{docs: map[string]*doc{
		"/w/a.go": {version: 1, text: []byte("x := \"😀\"; foo()\n")},
		"/w/b.go": {version: 1, text: []byte("foo()\n")},
	}}
	changes := `{"changes": {"file:///w/a.go": [{"range": {"start": {"line": 0, "character": 10}, "end": {"line": 0, "character": 13}}, "newText": "bar"}],
		"file:///w/b.go": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}, "newText": "bar"}]}}`
	docChanges := `{"documentChanges": [
		{"textDocument": {"uri": "file:///w/b.go", "version": 1}, "edits": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}, "newText": "bar"}]},
		{"textDocument": {"uri": "file:///w/a.go", "version": 1}, "edits": [{"range": {"start": {"line": 0, "character": 10}, "end": {"line": 0, "character": 13}}, "newText": "bar", "annotationId": "x"}]}]}`
	for name, raw := range map[string]string{"changes": changes, "documentChanges": docChanges} {
		got, err := e.fileEdits([]byte(raw), utf16)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != 2 || got[0].Path != "/w/a.go" || got[1].Path != "/w/b.go" {
			t.Fatalf("%s: %+v", name, got)
		}
		if a := got[0].Edits; len(a) != 1 || a[0] != (TextEdit{Start: 12, End: 15, NewText: "bar"}) {
			t.Errorf("%s: a.go edits %+v, want bytes 12-15 (😀 is 4 bytes, 2 units)", name, a)
		}
	}
	for _, op := range []string{
		`{"kind": "create", "uri": "file:///w/c.go"}`,
		`{"kind": "rename", "oldUri": "file:///w/a.go", "newUri": "file:///w/c.go"}`,
		`{"kind": "delete", "uri": "file:///w/b.go"}`,
	} {
		_, err := e.fileEdits([]byte(`{"documentChanges": [`+op+`]}`), utf16)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "file:///w/") {
			t.Errorf("resource operation %s: %v, want ErrUnsupported naming the file", op, err)
		}
	}
	overlap := `{"changes": {"file:///w/b.go": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}, "newText": "x"},
		{"range": {"start": {"line": 0, "character": 2}, "end": {"line": 0, "character": 4}}, "newText": "y"}]}}`
	if _, err := e.fileEdits([]byte(overlap), utf16); err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("overlapping edits: %v", err)
	}
}

func TestURIPath(t *testing.T) {
	for u, want := range map[string]string{
		"file:///w/a%20b/c.go":  "/w/a b/c.go",
		"file:///w/a b/c.go":    "/w/a b/c.go",
		"file:///w/%40scope/x":  "/w/@scope/x",
		"file:///w/x/../y.ts":   "/w/y.ts",
		string(pathURI("/w/é")): "/w/é",
	} {
		if got, err := uriPath(u); err != nil || got != want {
			t.Errorf("uriPath(%q) = %q, %v; want %q", u, got, err, want)
		}
	}
	if _, err := uriPath("untitled:Untitled-1"); err == nil {
		t.Error("uriPath accepted a non-file URI")
	}
}
