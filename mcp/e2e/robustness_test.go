package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// robustResult is one case of testdata/e2e/robustness.mjs's report.
type robustResult struct {
	Family   string `json:"family"`
	Name     string `json:"name"`
	Class    string `json:"class"`
	Detail   string `json:"detail"`
	KnownGap string `json:"known_gap"`
}

// TestSDK_Robustness runs the edit-robustness corpus (testdata/robustness)
// through the official TypeScript SDK client against the real binary, one
// server per case: any wrong edit fails, and so does any case that misses
// its expectation without a known_gap (the in-process twin is
// mcp.TestRobustness).
func TestSDK_Robustness(t *testing.T) {
	requireNode(t)
	cmd := exec.Command("node", "robustness.mjs", binary, filepath.Join(repo, "testdata", "robustness"))
	cmd.Dir = nodeDir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("robustness.mjs: %v\n%s", err, out)
	}
	var rs []robustResult
	if err := json.Unmarshal(out, &rs); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	if len(rs) < 150 {
		t.Fatalf("%d cases ran, want the whole corpus (≥ 150)", len(rs))
	}
	counts := map[string]map[string]int{}
	ok := 0
	for _, r := range rs {
		if counts[r.Family] == nil {
			counts[r.Family] = map[string]int{}
		}
		counts[r.Family][r.Class]++
		switch {
		case r.Class == "WRONG":
			t.Errorf("WRONG EDIT %s/%s: %s", r.Family, r.Name, r.Detail)
		case r.Class == "refused-bare" && r.KnownGap == "":
			t.Errorf("%s/%s: %s", r.Family, r.Name, r.Detail)
		default:
			ok++
		}
	}
	var fams []string
	for f := range counts {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	var b strings.Builder
	b.WriteString("\n| family | correct | refused-usable | refused-bare | wrong |\n|---|---|---|---|---|\n")
	for _, f := range fams {
		c := counts[f]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", f, c["correct"], c["refused-usable"], c["refused-bare"], c["WRONG"])
	}
	t.Log(b.String())
	if rate := float64(ok) / float64(len(rs)); rate < 0.95 {
		t.Errorf("correct or usefully refused: %.1f%% of %d, want ≥ 95%%", 100*rate, len(rs))
	}
}
