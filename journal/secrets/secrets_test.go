package secrets_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal/secrets"
)

// Values shaped like real credentials (random, not issued to anyone).
const (
	awsKeyID  = "AKIALALEMEL33243OLIB" // gitleaks' own true positive for aws-access-token
	awsSecret = "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"
	ghToken   = "ghp_R4nd0mT0k3nV4lu3Xy9Zq8W7e6R5t4Y3u2I1"
	pemKey    = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi1QZbO+ZjJ8r0Q5v4Jv8c1s0Jv\nq2c3Xy4Tt7Pq9wZ8Y1tqv5o1Yk0x7b3QZ1sVt0Y2uX8b0Q9Zr2w1Lk5Jv6u3Pq8X\n-----END RSA PRIVATE KEY-----"
)

func rulesOf(fs []secrets.Finding) []string {
	var r []string
	for _, f := range fs {
		r = append(r, f.Rule)
	}
	return r
}

func TestScanFile_Env(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n"} {
		env := "AWS_ACCESS_KEY_ID=" + awsKeyID + eol + "AWS_SECRET_ACCESS_KEY=" + awsSecret + eol + "DEBUG=true" + eol + "GITHUB_TOKEN=" + ghToken + eol
		fs := secrets.ScanFile(".env", []byte(env))
		if got, want := strings.Join(rulesOf(fs), ","), "aws-access-token,generic-api-key,github-pat"; got != want {
			t.Fatalf("eol %q: rules %s, want %s", eol, got, want)
		}
		for i, want := range []string{awsKeyID, awsSecret, ghToken} {
			if got := env[fs[i].Start:fs[i].End]; got != want {
				t.Errorf("eol %q: finding %d covers %q, want %q", eol, i, got, want)
			}
		}
		if fs[0].Line != 1 || fs[1].Line != 2 || fs[2].Line != 4 {
			t.Errorf("eol %q: lines %d %d %d, want 1 2 4", eol, fs[0].Line, fs[1].Line, fs[2].Line)
		}
		masked := secrets.MaskString(env, fs)
		for _, v := range []string{awsKeyID, awsSecret, ghToken} {
			if strings.Contains(masked, v) {
				t.Errorf("eol %q: masked text holds %q:\n%s", eol, v, masked)
			}
		}
		want := "AWS_ACCESS_KEY_ID=AKIA…[secret: aws-access-token]" + eol
		if !strings.HasPrefix(masked, want) || !strings.Contains(masked, "DEBUG=true"+eol) || !strings.Contains(masked, "ghp_…[secret: github-pat]") {
			t.Errorf("eol %q: masked:\n%s", eol, masked)
		}
	}
}

func TestScanFile_PrivateKeySpansLines(t *testing.T) {
	src := "package x\n\nconst key = `" + pemKey + "`\n"
	fs := secrets.ScanFile("x.go", []byte(src))
	if len(fs) != 1 || fs[0].Rule != "private-key" || src[fs[0].Start:fs[0].End] != pemKey || fs[0].Line != 3 {
		t.Fatalf("findings %+v", fs)
	}
	if got := secrets.MaskString(src, fs); got != "package x\n\nconst key = `-----BEGIN RSA PRIVATE KEY-----…[secret: private-key]`\n" {
		t.Fatalf("masked %q", got)
	}
}

func TestScanFile_KeyAcrossWindows(t *testing.T) {
	var b bytes.Buffer
	for b.Len() < 64<<10-100 { // the key straddles the first window's cut
		b.WriteString("// an ordinary line of text, nothing to see\n")
	}
	at := b.Len()
	b.WriteString(pemKey + "\n")
	for b.Len() < 200<<10 {
		b.WriteString("x := 1\n")
	}
	fs := secrets.Scan(b.Bytes())
	if len(fs) != 1 || fs[0].Start != at || fs[0].End != at+len(pemKey) {
		t.Fatalf("findings %+v, want the key at %d", fs, at)
	}
}

func TestScanFile_SkipsBinaryAndAllowedPaths(t *testing.T) {
	bin := append([]byte{0x7f, 'E', 'L', 'F', 0}, []byte("AWS_ACCESS_KEY_ID="+awsKeyID)...)
	if fs := secrets.ScanFile("a.out", bin); len(fs) != 0 {
		t.Errorf("binary: %+v", fs)
	}
	if fs := secrets.ScanFile("go.sum", []byte("AWS_ACCESS_KEY_ID="+awsKeyID)); len(fs) != 0 {
		t.Errorf("go.sum: %+v", fs)
	}
	if fs := secrets.ScanFile("a.env", []byte("AWS_ACCESS_KEY_ID="+awsKeyID+" # gitleaks:allow\n")); len(fs) != 0 {
		t.Errorf("gitleaks:allow: %+v", fs)
	}
}

// TestRules_GitleaksExamples runs examples from gitleaks' own rule
// definitions (cmd/generate/config/rules, v8.30.1): true positives are
// found, false positives are not.
func TestRules_GitleaksExamples(t *testing.T) {
	tps := map[string]string{
		"aws-access-token":        "AKIALALEMEL33243OLIB",
		"github-pat":              "ghp_" + strings.Repeat("Ab1Cd2Ef3G", 3) + "h4Ij5K",
		"github-fine-grained-pat": "github_pat_" + strings.Repeat("A1b2C3d4E5", 8) + "f6G",
		"gitlab-pat":              "glpat-Q3xR8vT2mW9kL4pZ7nB1",
		"slack-bot-token":         `"bot_token1": "xoxb-781236542736-2364535789652-GkwFDQoHqzXDVsC6GzqYUypD"`,
		"stripe-access-token":     "sk_live_51NqWgYH8vT2mW9kL4pZ7nB1Q3xR",
		"private-key":             pemKey,
	}
	for rule, tp := range tps {
		fs := secrets.Scan([]byte(tp))
		if len(fs) == 0 || fs[0].Rule != rule {
			t.Errorf("%s: %q gave %v", rule, tp, rulesOf(fs))
		}
	}
	fps := []string{
		`key = AKIAXXXXXXXXXXXXXXXX`,
		`aws_access_key: AKIAIOSFODNN7EXAMPLE`,
		`msgstr "Näytä asiakirjamallikansio."`,
		`TODAYINASIAASACKOFRICEFELLOVER`,
		`token = "${GITHUB_TOKEN}"`,
		`password = "{{ .Values.password }}"`,
	}
	for _, fp := range fps {
		if fs := secrets.Scan([]byte(fp)); len(fs) != 0 {
			t.Errorf("false positive %q: %v", fp, rulesOf(fs))
		}
	}
}

func TestScanArgs_MaskArgs(t *testing.T) {
	args := `{"path":".env","content":"AWS_ACCESS_KEY_ID=` + awsKeyID + `\n<x>&","n":3.50,"a":[1,"` + ghToken + `",{"b":null}]}`
	fs := secrets.ScanArgs([]byte(args))
	if len(fs) != 2 || fs[0].Arg != "/content" || fs[0].Rule != "aws-access-token" || fs[1].Arg != "/a/1" {
		t.Fatalf("findings %+v", fs)
	}
	want := `{"path":".env","content":"AWS_ACCESS_KEY_ID=AKIA…[secret: aws-access-token]\n<x>&","n":3.50,"a":[1,"ghp_…[secret: github-pat]",{"b":null}]}`
	if got := string(secrets.MaskArgs([]byte(args), fs)); got != want {
		t.Fatalf("masked\n%s\nwant\n%s", got, want)
	}
	if fs := secrets.ScanArgs([]byte(`not json "` + awsKeyID)); len(fs) != 0 {
		t.Fatalf("not JSON: %+v", fs)
	}
}

// TestScan_RepositoryFalsePositives scans this repository's sources and
// documents (Go, Markdown, JavaScript, JSON, YAML, shell; this package's
// corpus left out): ordinary code and prose must give (almost) no
// findings. It counts findings per 1000 lines, for gitleaks' rules and for
// the heuristics (RELIABILITY.md has the figures); each is logged, to be
// read: the ones known are made-up credentials the tests plant on purpose
// (a password=hunter2, a PEM key's body, a token a redaction test takes
// out), a salt in base64, and a canary string.
func TestScan_RepositoryFalsePositives(t *testing.T) {
	root := filepath.Join("..", "..")
	exts := map[string]bool{".go": true, ".md": true, ".js": true, ".json": true, ".yml": true, ".yaml": true, ".sh": true, ".html": true, ".css": true}
	files, lines, rules, heuristics := 0, 0, 0, 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || filepath.ToSlash(p) == "../../journal/secrets") {
			return filepath.SkipDir
		}
		if d.IsDir() || !exts[filepath.Ext(p)] {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		lines += bytes.Count(b, []byte("\n"))
		rel, _ := filepath.Rel(root, p)
		for _, f := range secrets.ScanFile(filepath.ToSlash(rel), b) {
			if secrets.IsHeuristic(f.Rule) {
				heuristics++
			} else {
				rules++
			}
			t.Logf("%s:%d %s", rel, f.Line, f.Rule)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	per := func(n int) float64 { return float64(n) * 1000 / float64(lines) }
	t.Logf("%d files, %d lines: gitleaks rules %d findings (%.3f per 1000 lines), heuristics %d (%.3f per 1000 lines)", files, lines, rules, per(rules), heuristics, per(heuristics))
	if files < 100 || rules > files/100 || per(heuristics) > 0.2 {
		t.Fatalf("%d findings of the rules and %d of the heuristics in %d files, %d lines", rules, heuristics, files, lines)
	}
}

func TestMaskLines(t *testing.T) {
	lines := strings.SplitAfter("a\nkey: `"+pemKey+"`\nGITHUB_TOKEN="+ghToken+" x GITLAB="+"glpat-Q3xR8vT2mW9kL4pZ7nB1"+"\nz", "\n")
	got := secrets.MaskLines("x.yaml", lines)
	if len(got) != len(lines) {
		t.Fatalf("%d lines, want %d", len(got), len(lines))
	}
	want := []string{"a\n", "key: `-----BEGIN RSA PRIVATE KEY-----…[secret: private-key]\n", "…\n", "…\n", "…`\n",
		"GITHUB_TOKEN=ghp_…[secret: github-pat] x GITLAB=glpat-…[secret: gitlab-pat]\n", "z"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

// TestScanArgs_PathOfTheObject: a string is scanned as the file its own
// object names (go.sum is allowed whole by gitleaks' paths), not the
// arguments' top-level path.
func TestScanArgs_PathOfTheObject(t *testing.T) {
	args := `{"path":"x","ops":[{"content":"AWS_ACCESS_KEY_ID=` + awsKeyID + `","path":"go.sum"},{"path":".env","content":"AWS_ACCESS_KEY_ID=` + awsKeyID + `"}]}`
	fs := secrets.ScanArgs([]byte(args))
	if len(fs) != 1 || fs[0].Arg != "/ops/1/content" {
		t.Fatalf("findings %+v", fs)
	}
	if p := secrets.ArgPath([]byte(args), fs[0].Arg); p != ".env" {
		t.Fatalf("ArgPath %q", p)
	}
	if p := secrets.ArgPath([]byte(args), "/note"); p != "x" {
		t.Fatalf("ArgPath of a top-level string %q", p)
	}
}
