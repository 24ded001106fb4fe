package secrets

import (
	"regexp"
	"testing"
)

// TestRules_AllCompile: every embedded rule's expression compiles (they
// are compiled when first used; a defect must show here, not in a scan).
func TestRules_AllCompile(t *testing.T) {
	rs := rules()
	n := 0
	for _, r := range rs.rules {
		if r.src == "" {
			continue
		}
		if _, err := regexp.Compile(r.src); err != nil {
			t.Errorf("rule %s: %v", r.id, err)
		}
		n++
	}
	if n < 200 {
		t.Fatalf("%d rules with expressions, want the default set's 200+", n)
	}
}

// BenchmarkRules_FirstScan: what the first scan of a command costs — the
// rule set parsed, and the expressions its text needs compiled — next to
// compiling every expression.
func BenchmarkRules_FirstScan(b *testing.B) {
	args := []byte(`{"ops":[{"path":"gh.go","content":"var token = ghp_R4nd0mT0k3nV4lu3Xy9Zq8W7e6R5t4Y3u2I1"}]}`) // gitleaks:allow (made up)
	b.Run("first-scan", func(b *testing.B) {
		for b.Loop() {
			rs, err := compile(gitleaksTOML)
			if err != nil {
				b.Fatal(err)
			}
			loaded = rs
			ScanArgs(args)
		}
	})
	b.Run("compile-all", func(b *testing.B) {
		for b.Loop() {
			rs, _ := compile(gitleaksTOML)
			for _, r := range rs.rules {
				if r.src != "" {
					r.regex()
				}
			}
		}
	})
}
