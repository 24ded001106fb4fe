package lsp_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/replay/lsp"
)

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "lsp.json")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c, err := lsp.LoadConfig(write(`{"servers":[{"language":"python","command":["basedpyright-langserver","--stdio"]},
		{"language":"zig","extensions":[".zig"],"command":["zls"]}],"disable":["c"],"quiet_ms":150}`), lsp.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var langs []string
	for _, sc := range c.Servers {
		langs = append(langs, sc.Language)
		if sc.Language == "python" && (sc.Command[0] != "basedpyright-langserver" || !slices.Contains(sc.Extensions, ".py")) {
			t.Errorf("python replaced: %+v", sc)
		}
	}
	if strings.Join(langs, ",") != "go,python,typescript,rust,zig" || c.Quiet != 150*time.Millisecond || c.Max != 5*time.Second {
		t.Fatalf("config: %v quiet %v max %v", langs, c.Quiet, c.Max)
	}
	for _, bad := range []struct{ json, want string }{
		{`{"servers":[{"language":"zig","command":["zls"]}]}`, "give its extensions"},
		{`{"servers":[{"language":"go"}]}`, "a language and a command"},
		{`{"disable":["cobol"]}`, "no server for language"},
		{`{"server":[]}`, "unknown field"},
		{`{"quiet_ms":-1}`, "negative"},
		{`{`, "unexpected EOF"},
	} {
		if _, err := lsp.LoadConfig(write(bad.json), lsp.DefaultConfig()); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err %v, want %q", bad.json, err, bad.want)
		}
	}
	if _, err := lsp.LoadConfig(filepath.Join(dir, "missing.json"), lsp.DefaultConfig()); err == nil {
		t.Error("a missing file loaded")
	}
}
