package setup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Codex lists MCP servers in config.toml ([mcp_servers.NAME]). A TOML
// library rewrites the whole file in its own layout, so init appends one
// table, marked, at the end, and takes out exactly that block: the user's
// text is never rewritten.

const (
	tomlBegin = "# journal init: begin (journal init --undo removes this block)\n"
	tomlEnd   = "# journal init: end\n"
)

func codexMCP(e Env, a *Agent, p string) (*Change, error) {
	before, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var cfg struct {
		MCP map[string]any `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(before), &cfg); err != nil {
		return nil, fmt.Errorf("%s: %v: edit it by hand", e.show(p), err)
	}
	if _, ok := cfg.MCP["journal"]; ok {
		return nil, nil // there already (ours or the user's)
	}
	var b bytes.Buffer
	b.Write(before)
	if len(before) > 0 && !bytes.HasSuffix(before, []byte("\n")) {
		b.WriteString("\n")
	}
	if len(before) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s[mcp_servers.journal]\ncommand = %s\nargs = [%s, %s, %s]\n%s", tomlBegin,
		strconv.Quote(strings.Trim(e.Bin, "'")), strconv.Quote("serve"), strconv.Quote("--root"), strconv.Quote(e.Root), tomlEnd)
	c := &Change{Agent: a.Name, Path: p, Before: before, After: b.Bytes(), Mode: 0o644, What: "MCP server journal"}
	if fi, err := os.Stat(p); err == nil {
		c.Mode = fi.Mode().Perm()
	}
	return c, nil
}

// codexTakeOut removes the marked block (and the blank line init put
// before it).
func codexTakeOut(cur []byte) []byte {
	s := string(cur)
	i := strings.Index(s, tomlBegin)
	if i < 0 {
		return cur
	}
	j := strings.Index(s[i:], tomlEnd)
	if j < 0 {
		return cur
	}
	end := i + j + len(tomlEnd)
	if strings.HasSuffix(s[:i], "\n\n") {
		i--
	}
	return []byte(s[:i] + s[end:])
}
