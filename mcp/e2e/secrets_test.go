package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Credentials shaped like real ones (random, issued to no one).
const (
	awsKeyID  = "AKIALALEMEL33243OLIB"                     // gitleaks:allow (made up for the test)
	awsSecret = "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" // gitleaks:allow (made up for the test)
	ghToken   = "ghp_R4nd0mT0k3nV4lu3Xy9Zq8W7e6R5t4Y3u2I1" // gitleaks:allow (made up for the test)
	pemBody   = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi1QZbO+ZjJ8r0Q5v4Jv8c1s0Jv"
	pemKey    = "-----BEGIN RSA PRIVATE KEY-----\n" + pemBody + "\nq2c3Xy4Tt7Pq9wZ8Y1tqv5o1Yk0x7b3QZ1sVt0Y2uX8b0Q9Zr2w1Lk5Jv6u3Pq8X\nc2VjcmV0IGtleSBtYXRlcmlhbCBmb3IgYSB0ZXN0IG9ubHksIG5vdCBhIHJlYWwga2V5\n-----END RSA PRIVATE KEY-----\n" // gitleaks:allow (made up for the test)
)

// secretValues are the values no output may show without --reveal.
var secretValues = []string{awsKeyID, awsSecret, ghToken, pemBody}

// noSecret fails if out holds any secret value.
func noSecret(t *testing.T, what, out string) {
	t.Helper()
	for _, v := range secretValues {
		if strings.Contains(out, v) {
			t.Errorf("%s shows the secret %q:\n%s", what, v, out)
		}
	}
}

// TestSecrets_MaskedUnlessRevealed: an agent writes an AWS key pair into
// .env, a GitHub token into a Go file and a PEM private key, over MCP. No
// output of the journal — log (text and JSON), show, diff, blame, the MCP
// event resource, the web app's pages — holds a value unless --reveal;
// status says where they are; undo and redo put back the exact bytes;
// journal redact --secrets then takes every one out and verify still passes.
func TestSecrets_MaskedUnlessRevealed(t *testing.T) {
	root := t.TempDir()
	env := "# service\nAWS_ACCESS_KEY_ID=" + awsKeyID + "\r\nAWS_SECRET_ACCESS_KEY=" + awsSecret + "\r\nREGION=eu-west-1\n"
	goSrc := "package cfg\n\n// Token is the CI token.\nconst Token = \"" + ghToken + "\"\n"
	r := startStdio(t, root, "--watch=false", "--lsp=false")
	r.initialize("secret-agent")
	for i, f := range [][2]string{{".env", env}, {"cfg/cfg.go", goSrc}, {"deploy/key.pem", pemKey}} {
		res := r.tool("file_create_new", map[string]any{"ops": []map[string]any{{"path": f[0], "content": f[1]}}})
		if res["isError"] == true {
			t.Fatalf("create %s: %v", f[0], res)
		}
		if got := readFile(t, filepath.Join(root, f[0])); got != f[1] {
			t.Fatalf("file %d on disk: %q", i, got)
		}
	}
	// the MCP event resource: arguments and diff
	for seq := 1; seq <= 3; seq++ {
		resp := r.request("resources/read", map[string]any{"uri": "journal://events/" + string(rune('0'+seq))})
		b, _ := json.Marshal(resp)
		if resp["error"] != nil || !strings.Contains(string(b), "[secret: ") {
			t.Errorf("journal://events/%d: no mark\n%s", seq, b)
		}
		noSecret(t, "MCP resource journal://events/"+string(rune('0'+seq)), string(b))
	}
	// undo the key's creation, then redo it: the exact bytes come back
	if res := r.tool("undo", map[string]any{}); res["isError"] == true {
		t.Fatalf("undo: %v", res)
	}
	if _, err := os.Stat(filepath.Join(root, "deploy/key.pem")); !os.IsNotExist(err) {
		t.Fatalf("undo of the key's creation left it: %v", err)
	}
	if res := r.tool("redo", map[string]any{}); res["isError"] == true {
		t.Fatalf("redo: %v", res)
	}
	if got := readFile(t, filepath.Join(root, "deploy/key.pem")); got != pemKey {
		t.Fatalf("redo restored %q", got)
	}
	r.close()

	for _, args := range [][]string{
		{"log"}, {"log", "--json"}, {"log", "--oneline"},
		{"show", "1"}, {"show", "2"}, {"show", "3"}, {"show", "5"},
		{"diff", "1"}, {"diff", ".env", "--from", "1"},
		{"blame", ".env"}, {"blame", "cfg/cfg.go", "--json"}, {"blame", "deploy/key.pem", "--porcelain"},
		{"status"},
	} {
		out := runJournal(t, root, append(args, "--no-pager")...)
		noSecret(t, "journal "+strings.Join(args, " "), out)
	}
	show := runJournal(t, root, "show", "1", "--no-pager")
	for _, want := range []string{"AKIA…[secret: aws-access-token]", "+AWS_SECRET_ACCESS_KEY=…[secret: generic-api-key]", "+REGION=eu-west-1"} {
		if !strings.Contains(show, want) {
			t.Errorf("show 1 lacks %q:\n%s", want, show)
		}
	}
	if key := runJournal(t, root, "show", "3", "--no-pager"); !strings.Contains(key, "+-----BEGIN RSA PRIVATE KEY-----…[secret: private-key]") {
		t.Errorf("show 3:\n%s", key)
	}
	// --reveal prints them
	revealed := runJournal(t, root, "show", "1", "--reveal", "--no-pager") + runJournal(t, root, "show", "2", "--reveal", "--no-pager") +
		runJournal(t, root, "diff", "3", "--reveal", "--no-pager")
	for _, v := range secretValues {
		if !strings.Contains(revealed, v) {
			t.Errorf("--reveal does not show %q:\n%s", v, revealed)
		}
	}
	if out := runJournal(t, root, "log", "--json", "--reveal", "--no-pager"); !strings.Contains(out, awsKeyID) || !strings.Contains(out, `"args_salt"`) {
		t.Errorf("log --json --reveal:\n%s", out)
	}
	// masked arguments go without their salt (beside the digest it would let
	// a reader test guesses); event 4 (undo, no secret) keeps its own
	for _, l := range strings.Split(strings.TrimSpace(runJournal(t, root, "log", "--json", "--no-pager")), "\n") {
		var ev struct {
			Seq  uint64          `json:"seq"`
			Salt json.RawMessage `json:"args_salt"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		if (ev.Seq <= 2) != (ev.Salt == nil) {
			t.Errorf("log --json, event %d: args_salt %s", ev.Seq, ev.Salt)
		}
	}
	// status: where, never what
	status := runJournal(t, root, "status", "--no-pager")
	for _, want := range []string{"event 1  .env:2  aws-access-token", "event 1  .env:3  generic-api-key", "event 2  cfg/cfg.go:4  github-pat",
		"event 3  deploy/key.pem:1  private-key", "event 1  arguments /ops/0/content, line 2  aws-access-token", "journal redact --secrets"} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}

	// the web app's pages
	for _, reveal := range []bool{false, true} {
		pages := webPages(t, root, reveal, "/", "/event/1", "/event/2", "/event/3", "/event/1/diff?path=.env", "/blame?path=.env", "/blame?path=deploy/key.pem")
		if !reveal {
			noSecret(t, "journal web", pages)
			if !strings.Contains(pages, "[secret: aws-access-token]") {
				t.Errorf("journal web: no mark")
			}
		} else if !strings.Contains(pages, awsKeyID) || !strings.Contains(pages, pemBody) {
			t.Errorf("journal web --reveal does not show the secrets")
		}
	}

	// redact --secrets takes every one out; verify still passes
	red := runJournal(t, root, "redact", "--secrets", "--why", "keys written by an agent", "--no-pager")
	if !strings.Contains(red, "took out the arguments of 2 event(s) (1, 2) and 3 content(s)") {
		t.Errorf("redact --secrets:\n%s", red)
	}
	if st := runJournal(t, root, "status", "--no-pager"); !strings.Contains(st, "secrets   none detected") {
		t.Errorf("status after redact --secrets:\n%s", st)
	}
	runJournal(t, root, "verify", "--no-pager")
	if show := runJournal(t, root, "show", "1", "--reveal", "--no-pager"); strings.Contains(show, awsKeyID) || !strings.Contains(show, "redacted by event 6") {
		t.Errorf("show 1 --reveal after redact:\n%s", show)
	}
}

// webPages runs journal web on root and returns the bodies of the paths.
func webPages(t *testing.T, root string, reveal bool, paths ...string) string {
	t.Helper()
	args := []string{"web", "--addr", "127.0.0.1:0"}
	if reveal {
		args = append(args, "--reveal")
	}
	cmd := exec.Command(binary, args...)
	cmd.Dir = root
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("journal web: %v", err)
	}
	base := strings.TrimSpace(strings.TrimPrefix(line, "journal web: "))
	var all strings.Builder
	c := &http.Client{Timeout: 10 * time.Second}
	for _, p := range paths {
		resp, err := c.Get(strings.TrimSuffix(base, "/") + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s\n%s", p, resp.Status, b)
		}
		all.Write(b)
	}
	return all.String()
}
