package secrets

import (
	"bytes"
	"os"
	"path/filepath"
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

// BenchmarkScan_Layers: the gitleaks rules alone beside the rules with the
// heuristics (heuristic.go), on 1 MiB of this repository's Go sources, a
// 100 KiB .env file and a prompt's arguments (BENCHMARKS.md has the
// figures).
func BenchmarkScan_Layers(b *testing.B) {
	with := rules()
	alone, err := compile(gitleaksTOML)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { loaded = with }()
	ps, err := filepath.Glob(filepath.Join("..", "..", "replay", "*.go"))
	if err != nil || len(ps) == 0 {
		b.Fatal(err)
	}
	var src bytes.Buffer
	for src.Len() < 1<<20 {
		for _, p := range ps {
			c, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			src.Write(c)
		}
	}
	var env bytes.Buffer
	for env.Len() < 100<<10 {
		env.WriteString("SERVICE_URL=https://example.internal/path\nDEBUG=false\nAPI_TOKEN=Zq8nL3vR0xT7bW2yK9mP4sD6fH1jG5cA8eU3iO0w\n")
	}
	prompt := []byte(`{"id":"550e8400-e29b-41d4-a716-446655440000","text":"connect with postgres://admin:S3cretPassw0rd@db.internal:5432/app and fix the failing test in replay/secrets.go, then run go test ./replay -run Secret","model":"claude-sonnet-5"}`)
	for _, c := range []struct {
		name, path string
		b          []byte
		args       bool
	}{
		{"go-1MiB", "big.go", src.Bytes()[:1<<20], false},
		{"env-100KiB", ".env", env.Bytes(), false},
		{"prompt-args", "", prompt, true},
	} {
		for _, l := range []struct {
			name string
			rs   *ruleSet
		}{{"rules-alone", alone}, {"with-heuristics", with}} {
			b.Run(c.name+"/"+l.name, func(b *testing.B) {
				loaded = l.rs
				b.SetBytes(int64(len(c.b)))
				for b.Loop() {
					if c.args {
						ScanArgs(c.b)
					} else {
						ScanFile(c.path, c.b)
					}
				}
			})
		}
	}
}
