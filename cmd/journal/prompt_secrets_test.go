package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The three prompts (#60 §4): a token one character short of its
// format, a password in a database URL, a password in a sentence — each
// printed by log --prompts and exported in clear before the heuristics.
var promptSecrets = []struct{ text, secret, mark string }{
	{"use the token ghp_R4nd0mT0k3nV4lu3Xy9Zq8W7e6R5t4Y3u2I to push", "ghp_R4nd0mT0k3nV4lu3Xy9Zq8W7e6R5t4Y3u2I", "ghp_…[secret: token-prefix]"},
	{"connect with postgres://admin:S3cretPassw0rd@db.internal:5432/app", "S3cretPassw0rd", "postgres://admin:…[secret: credential-in-url]@db.internal:5432/app"},
	{"the db password is Xk9mQ2vL7pR4zTq8", "Xk9mQ2vL7pR4zTq8", "the db password is …[secret: credential-assignment]"},
}

// Each prompt recorded through the real `journal hook claude-code` (its
// UserPromptSubmit payload, the text replaced) is masked in log --prompts
// (text and --json), in show, in log's naming of the call after it, and
// in the export (JSONL: the prompt's event withheld, as a salted event
// holding a secret is; CSV: masked); --reveal prints it.
func TestHook_PromptSecretsMasked(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"a.txt": "a\n", "c.txt": "c\n"})
	ok(t, dir, "exec", "--", "true") // the journal, and its baseline
	feed := func(payload string) {
		t.Helper()
		r := hookRun(t, dir, false, payload, "hook", "claude-code")
		if r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	}
	feed(sample(t, "claude-code", "session-start", dir))
	for i, p := range promptSecrets {
		var m map[string]any
		if err := json.Unmarshal([]byte(sample(t, "claude-code", "prompt", dir)), &m); err != nil {
			t.Fatal(err)
		}
		m["prompt"], m["prompt_id"] = p.text, fmt.Sprintf("prompt-%d", i)
		b, _ := json.Marshal(m)
		feed(string(b))
	}
	feed(sample(t, "claude-code", "pre-bash", dir))
	bash(t, dir, cmdOne)
	feed(sample(t, "claude-code", "post-bash", dir))

	var prompts []string // the prompt events
	for _, e := range logJSON(t, dir) {
		if e["kind"] == "prompt" {
			prompts = append(prompts, fmt.Sprint(e["seq"]))
		}
	}
	if len(prompts) != len(promptSecrets) {
		t.Fatalf("%d prompt events, want %d", len(prompts), len(promptSecrets))
	}
	exp := filepath.Join(t.TempDir(), "export.jsonl")
	ok(t, dir, "export", "-o", exp)
	jsonl, err := os.ReadFile(exp)
	if err != nil {
		t.Fatal(err)
	}
	csv := ok(t, dir, "export", "--format", "csv")
	outs := map[string]string{
		"log --prompts":        ok(t, dir, "log", "--prompts"),
		"log --prompts --json": ok(t, dir, "log", "--prompts", "--json"),
		"log":                  ok(t, dir, "log"),
		"export":               string(jsonl),
		"export --format csv":  csv,
	}
	for i, seq := range prompts {
		outs["show "+seq] = ok(t, dir, "show", seq)
		if !strings.Contains(outs["show "+seq], promptSecrets[i].mark) {
			t.Errorf("show %s does not mask the prompt as %q:\n%s", seq, promptSecrets[i].mark, outs["show "+seq])
		}
	}
	for name, out := range outs {
		for _, p := range promptSecrets {
			if strings.Contains(out, p.secret) {
				t.Errorf("%s prints %q:\n%s", name, p.secret, out)
			}
		}
	}
	for _, p := range promptSecrets {
		if !strings.Contains(outs["log --prompts"], "> "+p.mark) && !strings.Contains(outs["log --prompts"], p.mark) {
			t.Errorf("log --prompts lacks %q:\n%s", p.mark, outs["log --prompts"])
		}
		if !strings.Contains(csv, p.mark) {
			t.Errorf("the CSV export lacks %q:\n%s", p.mark, csv)
		}
	}
	withheld := 0
	for _, l := range strings.Split(strings.TrimSpace(string(jsonl)), "\n") {
		var e struct {
			Seq  uint64
			What struct {
				Withheld string `json:"args_withheld"`
			}
		}
		json.Unmarshal([]byte(l), &e)
		for _, seq := range prompts {
			if fmt.Sprint(e.Seq) == seq && e.What.Withheld == "secret" {
				withheld++
			}
		}
	}
	if withheld != len(prompts) {
		t.Errorf("%d prompt events withheld from the export, want %d:\n%s", withheld, len(prompts), jsonl)
	}
	revealed := ok(t, dir, "log", "--prompts", "--reveal")
	for _, p := range promptSecrets {
		if !strings.Contains(revealed, p.text) {
			t.Errorf("log --prompts --reveal lacks %q:\n%s", p.text, revealed)
		}
	}
}
