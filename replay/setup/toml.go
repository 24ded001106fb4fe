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
	args := []string{strconv.Quote("serve")}
	if a.ProjectRoot != "" {
		args = append(args, strconv.Quote("--root"), strconv.Quote(a.ProjectRoot))
	}
	block := fmt.Sprintf("%s[mcp_servers.journal]\ncommand = %s\nargs = [%s]\n%s", tomlBegin,
		strconv.Quote(strings.Trim(e.Bin, "'")), strings.Join(args, ", "), tomlEnd)
	var b bytes.Buffer
	if i, j, ok := tomlBlock(before); ok { // an earlier init's block: the new form in its place
		if string(before[i:j]) == block {
			return nil, nil
		}
		b.Write(before[:i])
		b.WriteString(block)
		b.Write(before[j:])
	} else {
		if _, ok := cfg.MCP["journal"]; ok {
			return nil, nil // the user's own entry journal
		}
		b.Write(before)
		if len(before) > 0 && !bytes.HasSuffix(before, []byte("\n")) {
			b.WriteString("\n")
		}
		if len(before) > 0 {
			b.WriteString("\n")
		}
		b.WriteString(block)
	}
	c := &Change{Agent: a.Name, Path: p, Before: before, After: b.Bytes(), Mode: 0o644, What: "MCP server journal"}
	if fi, err := os.Stat(p); err == nil {
		c.Mode = fi.Mode().Perm()
	}
	return c, nil
}

// tomlBlock finds init's marked block in b: its start and end.
func tomlBlock(b []byte) (int, int, bool) {
	s := string(b)
	i := strings.Index(s, tomlBegin)
	if i < 0 {
		return 0, 0, false
	}
	j := strings.Index(s[i:], tomlEnd)
	if j < 0 {
		return 0, 0, false
	}
	return i, i + j + len(tomlEnd), true
}

// codexTakeOut removes the marked block (and the blank line init put
// before it).
func codexTakeOut(cur []byte) []byte {
	i, end, ok := tomlBlock(cur)
	if !ok {
		return cur
	}
	s := string(cur)
	if strings.HasSuffix(s[:i], "\n\n") {
		i--
	}
	return []byte(s[:i] + s[end:])
}
