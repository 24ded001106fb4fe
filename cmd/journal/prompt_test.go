package main_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote/s3test"
	"github.com/journalfs/journal/replay"
)

// promptKey is the AWS example key a prompt below holds.
const promptKey = "AKIAIOSFODNN7EXAMPLQ" // gitleaks:allow (a test's made-up key)

// promptWorkspace records, in a new workspace, a prompt whose text holds a
// key and a call of its session naming it; it returns the prompt event.
func promptWorkspace(t *testing.T) (dir string, seq uint64) {
	t.Helper()
	dir = t.TempDir()
	e := engine(t, dir)
	apply(t, e, "file_create_new", "a.txt", "a\n")
	claude := journal.Actor{Kind: "agent", Name: "claude-code", Session: "sess-1", Origin: "hook"}
	seq, err := e.RecordPrompt(context.Background(), claude, replay.PromptArgs{ID: "p-1", Text: "deploy with " + promptKey, Model: "claude-sonnet-5", Event: "UserPromptSubmit"})
	if err != nil {
		t.Fatal(err)
	}
	b := &replay.Batch{Tool: "Bash", Kind: journal.KindObserve, Actor: &claude, Args: []byte(`{"command":"echo b > b.txt","call":{"id":"toolu_1","prompt":"p-1"}}`),
		Changes: []replay.Change{{Path: "b.txt", Data: []byte("b\n")}}}
	if _, err := e.Apply(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	e.Close()
	return dir, seq
}

// A prompt event through every path that reads events: log and show mask
// the key in its text (--reveal prints it); blame names the prompt of a
// line its call wrote (columns, --porcelain, --json); a revert of it is
// refused; verify
// accepts it; the export withholds its secret arguments and verifies; gc
// carries it; a push to a remote and a clone from it keep it; and journal
// redact takes its text out of the journal's file, the record still
// verifying.
func TestPrompt_EveryPath(t *testing.T) {
	dir, seq := promptWorkspace(t)
	jp := filepath.Join(dir, journal.DirName, journal.FileName)
	grouped := ok(t, dir, "log", "--prompts")
	if strings.Contains(grouped, promptKey) || !strings.Contains(grouped, "> deploy with AKIA…[secret: aws-access-token]") || !strings.Contains(grouped, "Bash") {
		t.Fatalf("log --prompts:\n%s", grouped)
	}
	if out := ok(t, dir, "log", "--prompts", "--reveal"); !strings.Contains(out, promptKey) {
		t.Fatalf("log --prompts --reveal:\n%s", out)
	}
	if out := ok(t, dir, "show", fmt.Sprint(seq)); strings.Contains(out, promptKey) || !strings.Contains(out, "prompt") {
		t.Fatalf("show of the prompt:\n%s", out)
	}
	if out := ok(t, dir, "log", "--oneline"); !strings.Contains(out, fmt.Sprintf("%d ", seq)) || !strings.Contains(out, `prompt p-1: "deploy with AKIA…`) {
		t.Fatalf("log:\n%s", out)
	}
	// blame names a line's prompt; a line of no prompt names none
	if out := ok(t, dir, "blame", "b.txt"); !strings.Contains(out, "prompt p-1") {
		t.Fatalf("blame b.txt:\n%s", out)
	}
	if out := ok(t, dir, "blame", "b.txt", "--porcelain"); !strings.Contains(out, "prompt p-1\n") {
		t.Fatalf("blame --porcelain:\n%s", out)
	}
	if out := ok(t, dir, "blame", "b.txt", "--json"); !strings.Contains(out, `"prompt":"p-1"`) {
		t.Fatalf("blame --json:\n%s", out)
	}
	if out := ok(t, dir, "blame", "a.txt"); strings.Contains(out, "prompt") {
		t.Fatalf("blame a.txt:\n%s", out)
	}
	// undo passes over the prompt to the call; a revert of the prompt itself is refused
	if r := run(t, dir, "revert", fmt.Sprint(seq)); r.code == 0 || !strings.Contains(r.stderr, "records a prompt") {
		t.Fatalf("revert of the prompt: %d %s", r.code, r.stderr)
	}
	ok(t, dir, "verify")
	exp := filepath.Join(t.TempDir(), "a.jsonl")
	ok(t, dir, "export", "-o", exp)
	ok(t, dir, "verify", "--export", exp)
	b, _ := os.ReadFile(exp)
	if bytes.Contains(b, []byte(promptKey)) || !bytes.Contains(b, []byte(`"kind":"prompt"`)) || !bytes.Contains(b, []byte(`"args_withheld":"secret"`)) || !bytes.Contains(b, []byte(`"prompt":"p-1"`)) {
		t.Fatalf("export:\n%s", b)
	}
	// remote push and clone
	srv := s3test.Start(t)
	ok(t, dir, "remote", "add", "team", "s3://"+s3test.Bucket+"/p", "--endpoint", srv.Endpoint())
	ok(t, dir, "push", "team")
	j, err := journal.Open(jp, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ws string
	j.View(func(tx *journal.Tx) error { ws = tx.Workspace(); return nil })
	j.Close()
	clone := filepath.Join(t.TempDir(), "clone")
	ok(t, dir, "clone", "team", "--workspace", ws, clone)
	ok(t, clone, "verify")
	if out := ok(t, clone, "log", "--prompts"); !strings.Contains(out, "prompt p-1") || !strings.Contains(out, "Bash") {
		t.Fatalf("the clone's log --prompts:\n%s", out)
	}
	// gc keeps what it must and verifies
	time.Sleep(20 * time.Millisecond)
	ok(t, dir, "gc", "--keep", "1h")
	ok(t, dir, "verify")
	// redact takes the text out
	ok(t, dir, "redact", fmt.Sprint(seq), "--why", "a key in a prompt")
	ok(t, dir, "verify")
	if raw, _ := os.ReadFile(jp); bytes.Contains(raw, []byte(promptKey)) || bytes.Contains(raw, []byte("deploy with")) {
		t.Fatal("the journal's file still holds the prompt's text")
	}
	// the call still comes under the prompt, whose id went with its text
	if out := ok(t, dir, "log", "--prompts", "--reveal"); strings.Contains(out, promptKey) || strings.Contains(out, "no prompt\n    3") || !strings.Contains(out, fmt.Sprintf("event %d", seq)) {
		t.Fatalf("log --prompts after the redaction:\n%s", out)
	}
}
