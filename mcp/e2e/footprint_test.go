package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	jmcp "github.com/journalfs/journal/mcp"
)

// footprintReport is what testdata/e2e/footprint.mjs prints.
type footprintReport struct {
	Instructions int `json:"instructions"`
	Tools        []struct {
		Name        string `json:"name"`
		Description int    `json:"description"`
		Schema      int    `json:"schema"`
	} `json:"tools"`
}

func (r footprintReport) total() int {
	n := r.Instructions
	for _, t := range r.Tools {
		n += len(t.Name) + t.Description + t.Schema
	}
	return n
}

// TestToolBudget_SDK lists the tools of each preset through the official
// TypeScript SDK client and holds them to their budget
// (jmcp.PresetBudgets), and checks that the SDK counts, tool by tool, the
// bytes BENCHMARKS.md reports (generated in process by mcp.TestToolBudget):
// the table measures what a real client receives.
func TestToolBudget_SDK(t *testing.T) {
	requireNode(t)
	table, err := os.ReadFile(filepath.Join(repo, "BENCHMARKS.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, preset := range jmcp.Presets {
		root := t.TempDir()
		cmd := exec.Command("node", "footprint.mjs", binary, root, "--preset", preset, "--lsp=false", "--share=false")
		cmd.Dir = nodeDir
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("footprint.mjs --preset %s: %v\n%s", preset, err, out)
		}
		var r footprintReport
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("report: %v\n%s", err, out)
		}
		t.Logf("--preset %s: %d tools, %d model-facing bytes (budget %d)", preset, len(r.Tools), r.total(), jmcp.PresetBudgets[preset])
		if r.total() > jmcp.PresetBudgets[preset] {
			t.Errorf("--preset %s: %d model-facing bytes through the SDK, over its budget of %d", preset, r.total(), jmcp.PresetBudgets[preset])
		}
		if want := benchCell(t, table, `\| `+preset+` \| \d+ \| \d+ \| \d+ \| \d+ \| \*\*(\d+)\*\*`); r.total() != want {
			t.Errorf("--preset %s: the SDK counts %d bytes, BENCHMARKS.md %d", preset, r.total(), want)
		}
		var names []string
		for _, tool := range r.Tools {
			names = append(names, tool.Name)
			if preset != jmcp.PresetFull {
				continue
			}
			want := benchCell(t, table, fmt.Sprintf("\\| `%s` \\| \\d+ \\| \\d+ \\| (\\d+) \\|", regexp.QuoteMeta(tool.Name)))
			if got := len(tool.Name) + tool.Description + tool.Schema; got != want {
				t.Errorf("%s: the SDK counts %d bytes, BENCHMARKS.md %d", tool.Name, got, want)
			}
		}
		if want := jmcp.PresetTools(preset); want != nil {
			slices.Sort(names)
			slices.Sort(want)
			if !slices.Equal(names, want) {
				t.Errorf("--preset %s lists %v, want %v", preset, names, want)
			}
		}
	}
}

// benchCell returns the number the first match of pattern captures in
// BENCHMARKS.md.
func benchCell(t *testing.T, table []byte, pattern string) int {
	t.Helper()
	m := regexp.MustCompile(pattern).FindSubmatch(table)
	if m == nil {
		t.Fatalf("BENCHMARKS.md has no row matching %s", pattern)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// TestServe_UnknownPreset: serve refuses a preset it does not know, naming
// the ones it does, before it opens anything.
func TestServe_UnknownPreset(t *testing.T) {
	root := t.TempDir()
	out, err := exec.Command(binary, "serve", "--root", root, "--preset", "tiny").CombinedOutput()
	if err == nil || !strings.Contains(string(out), `unknown preset "tiny" (choose from minimal, full)`) {
		t.Fatalf("serve --preset tiny: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(root, ".journal")); err == nil {
		t.Error("serve --preset tiny created the journal")
	}
}
