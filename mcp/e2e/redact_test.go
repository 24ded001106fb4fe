package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// secretKey is what the agent leaks: an AWS secret access key (the
// documentation's example, so no scanner mistakes the test for a leak).
const secretKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

// TestSDK_SecretRedacted: an agent (the TypeScript SDK client) writes a
// key into .env and edits around it, a shell command takes it out of the
// file again; `journal redact --pattern` then takes it out of the journal:
// no event's arguments, no stored chunk, no page of the journal file, no
// write-ahead log, no export and no command's or tool's output holds it;
// the chain and the Merkle tree still verify, reporting the redaction; an
// undo that needs a redacted version refuses with REDACTED, naming the
// redact event (the CLI's and the agent's tool), while the other files'
// history still undoes.
func TestSDK_SecretRedacted(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	runJournal(t, root, "key", "generate", "--name", "auditor")
	pub := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "journal", "checkpoint.key.pub")
	d := startDriver(t, root)
	waitClean(t, root)
	env := "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=" + secretKey + "\n"
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"file_create_new", map[string]any{"ops": []map[string]any{{"path": ".env", "content": env}}}},
		{"edit_content", map[string]any{"absolute_file_path": filepath.Join(root, ".env"),
			"search_text": "AWS_SECRET_ACCESS_KEY=" + secretKey, "replace_text": "AWS_SECRET_ACCESS_KEY=" + secretKey + "\nAWS_REGION=eu-west-1", "preview": false}},
		{"edit_content", map[string]any{"absolute_file_path": filepath.Join(root, "main.go"),
			"search_text": "func main() {}", "replace_text": "func main() { println(1) }", "preview": false}},
	} {
		if s := d.call(c.tool, c.args); s.IsError {
			t.Fatalf("%s: %s", c.tool, s.Text)
		}
	}
	// the person notices and blanks the key in the file from a shell
	bash(t, root, `sed -i 's/^AWS_SECRET_ACCESS_KEY=.*/AWS_SECRET_ACCESS_KEY=/' .env`)
	waitClean(t, root)
	jp := filepath.Join(root, journal.DirName, journal.FileName)
	if !storeHolds(t, jp, secretKey) {
		t.Fatal("before the redaction the journal does not hold the key: the test proves nothing")
	}
	runJournal(t, root, "checkpoint")
	earlier := filepath.Join(t.TempDir(), "before.jsonl")
	runJournal(t, root, "export", "-o", earlier)

	dry := runJournal(t, root, "redact", "--pattern", "wJalrXUtnFEMI/K7MDENG/[A-Za-z0-9]+", "--dry-run")
	if !strings.Contains(dry, "would take out the arguments of 2 event(s)") || !strings.Contains(dry, "and 2 content(s)") {
		t.Fatalf("dry run:\n%s", dry)
	}
	if !storeHolds(t, jp, secretKey) {
		t.Fatal("the dry run took the key out")
	}
	out := runJournal(t, root, "redact", "--pattern", "wJalrXUtnFEMI/K7MDENG/[A-Za-z0-9]+", "--why", "an AWS key the agent wrote into .env")
	if !strings.Contains(out, "took out the arguments of 2 event(s)") || !strings.Contains(out, "recorded as event") ||
		!strings.Contains(out, "kept chunk(s) that were deltas against them are stored whole") {
		t.Fatalf("redact:\n%s", out)
	}
	if strings.Contains(out, "warning: .env") {
		t.Fatalf("the file's last state holds no key, yet redact warns:\n%s", out)
	}
	redactEvent := lastEvents(t, root, 1)[0]
	if redactEvent.Kind != "redact" {
		t.Fatalf("newest event is %+v", redactEvent)
	}

	// nowhere in the journal's files, nor in the store decoded
	if storeHolds(t, jp, secretKey) {
		t.Fatal("the journal still holds the key")
	}
	for _, f := range []string{jp, jp + ".wal"} {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(secretKey)) {
			t.Fatalf("%s holds the key's bytes", f)
		}
	}
	// nor in any output
	exp := filepath.Join(t.TempDir(), "after.jsonl")
	runJournal(t, root, "export", "-o", exp)
	outputs := map[string]string{"export": readFile(t, exp), "log": runJournal(t, root, "log", "--no-pager"),
		"log --json": runJournal(t, root, "log", "--json", "--no-pager")}
	for i := uint64(1); i <= redactEvent.Seq; i++ {
		outputs[fmt.Sprintf("show %d", i)] = runJournal(t, root, "show", fmt.Sprint(i), "--no-pager")
	}
	if s := d.call("journal_log", map[string]any{"limit": 20}); s.IsError {
		t.Fatalf("journal_log: %s", s.Text)
	} else {
		outputs["journal_log tool"] = s.Text + string(s.Structured)
	}
	for name, o := range outputs {
		if strings.Contains(o, secretKey) {
			t.Errorf("%s shows the key", name)
		}
	}
	if !strings.Contains(outputs[fmt.Sprintf("show %d", redactEvent.Seq)], "an AWS key the agent wrote into .env") {
		t.Errorf("show of the redact event does not say why:\n%s", outputs[fmt.Sprintf("show %d", redactEvent.Seq)])
	}
	// verify: the journal, against the checkpoint signed before, and the export
	v := runJournal(t, root, "verify", "--key", pub, "--checkpoint", earlier)
	if !strings.Contains(v, "1 redact event(s)") || !strings.Contains(v, "took out the arguments of 2 event(s)") || !strings.Contains(v, "and 2 content(s)") ||
		!strings.Contains(v, "checkpoint(s) match") {
		t.Fatalf("verify:\n%s", v)
	}
	if v := runJournal(t, root, "verify", "--export", exp, "--checkpoint", earlier); !strings.Contains(v, "1 redact event(s)") || !strings.Contains(v, "took out the arguments of 2 event(s)") {
		t.Fatalf("verify --export:\n%s", v)
	}
	// undo: the sed's before-state was redacted: refused, naming the redact event
	cmd := exec.Command(binary, "undo")
	cmd.Dir = root
	u, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(u), "REDACTED") || !strings.Contains(string(u), fmt.Sprintf("redact event %d", redactEvent.Seq)) {
		t.Fatalf("undo across the redaction: %v\n%s", err, u)
	}
	// the agent's undo: its newest change (main.go) still undoes; the next
	// one, .env's edit, needs the versions taken out: refused
	if s := d.call("undo", map[string]any{}); s.IsError {
		t.Fatalf("the undo tool on main.go's edit: %s", s.Text)
	}
	if got := readFile(t, filepath.Join(root, "main.go")); got != "package main\n\nfunc main() {}\n" {
		t.Fatalf("main.go after undoing its edit: %q", got)
	}
	if s := d.call("undo", map[string]any{}); !s.IsError || !strings.Contains(s.Text+string(s.Structured), "REDACTED") {
		t.Fatalf("the undo tool across the redaction: %s %s", s.Text, s.Structured)
	}
	runJournal(t, root, "verify")
}

// storeHolds reports whether the journal at jp holds s: in any event's
// arguments (or any field of its JSON), or in any stored chunk, decoded.
func storeHolds(t *testing.T, jp, s string) bool {
	t.Helper()
	j, err := journal.Open(jp, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	found := false
	err = j.View(func(tx *journal.Tx) error {
		if err := tx.Each(0, false, func(e *journal.Event) error {
			if bytes.Contains(journal.Canonical(e), []byte(s)) || bytes.Contains(e.Args, []byte(s)) {
				found = true
			}
			return nil
		}); err != nil {
			return err
		}
		return snapshot.EachChunk(tx.Bolt(), func(_ snapshot.ID, data []byte) error {
			if bytes.Contains(data, []byte(s)) {
				found = true
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
