package lsp_test

import (
	"strings"
	"testing"

	"github.com/journalfs/journal/replay/lsp"
)

func TestApplyEdits(t *testing.T) {
	src := "héllo 😀 world\nsecond line\n"
	for _, c := range []struct {
		name  string
		edits []lsp.TextEdit
		want  string
		err   string
	}{
		{name: "none", want: src},
		{name: "replace after multi-byte", edits: []lsp.TextEdit{{Start: 12, End: 17, NewText: "earth"}}, want: "héllo 😀 earth\nsecond line\n"},
		{name: "unsorted input is sorted", edits: []lsp.TextEdit{
			{Start: 18, End: 24, NewText: "2nd"},
			{Start: 0, End: 6, NewText: "bye"},
		}, want: "bye 😀 world\n2nd line\n"},
		{name: "inserts at one offset keep their order", edits: []lsp.TextEdit{
			{Start: 0, End: 0, NewText: "a"},
			{Start: 0, End: 0, NewText: "b"},
		}, want: "ab" + src},
		{name: "adjacent", edits: []lsp.TextEdit{{Start: 0, End: 1, NewText: "H"}, {Start: 1, End: 3, NewText: "E"}}, want: "HEllo 😀 world\nsecond line\n"},
		{name: "delete to end", edits: []lsp.TextEdit{{Start: 18, End: len(src)}}, want: "héllo 😀 world\n"},
		{name: "overlap", edits: []lsp.TextEdit{{Start: 0, End: 5}, {Start: 4, End: 6}}, err: "overlaps"},
		{name: "past the end", edits: []lsp.TextEdit{{Start: 0, End: len(src) + 1}}, err: "out of range"},
		{name: "negative", edits: []lsp.TextEdit{{Start: -1, End: 0}}, err: "out of range"},
		{name: "end before start", edits: []lsp.TextEdit{{Start: 3, End: 2}}, err: "out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := lsp.ApplyEdits([]byte(src), c.edits)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestParseSpec(t *testing.T) {
	sc, err := lsp.ParseSpec("python=pyright-langserver --stdio")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(sc.Command, " ") != "pyright-langserver --stdio" || strings.Join(sc.Extensions, ",") != ".py,.pyi" || sc.Settings == nil {
		t.Fatalf("python spec: %+v", sc)
	}
	sc, err = lsp.ParseSpec("typescript=/opt/tls/bin/typescript-language-server --stdio")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Command[0] != "/opt/tls/bin/typescript-language-server" || sc.LanguageID(".tsx") != "typescriptreact" {
		t.Fatalf("typescript spec: %+v", sc)
	}
	sc, err = lsp.ParseSpec("zig:.zig,zon=zls")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Language != "zig" || strings.Join(sc.Extensions, ",") != ".zig,.zon" || sc.LanguageID(".zig") != "zig" {
		t.Fatalf("zig spec: %+v", sc)
	}
	for _, bad := range []string{"gopls", "=gopls", "go=", "zig=zls"} {
		if _, err := lsp.ParseSpec(bad); err == nil {
			t.Errorf("ParseSpec(%q) accepted", bad)
		}
	}
}
