package main_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// TestUndoPrompt_DryRunShowsWhatHappens: a person's edit not yet journaled
// (no watcher) is kept by the real undo of a prompt; the preview shows the
// same: its diff is of the file as it is on disk, numbered as it is, and
// the undo then writes exactly what the preview's new side showed.
func TestUndoPrompt_DryRunShowsWhatHappens(t *testing.T) {
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n")
	a := journal.Actor{Kind: "agent", Name: "claude-code", Session: "A", Origin: "hook"}
	if _, err := e.RecordPrompt(context.Background(), a, replay.PromptArgs{ID: "p1", Text: "add a line"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Apply(context.Background(), &replay.Batch{Tool: "Bash", Actor: &a, Args: []byte(`{"call":{"id":"t1","prompt":"p1"}}`),
		Changes: []replay.Change{{Path: "a.txt", Data: []byte("1\n2\n3\n4\n5\n6\n7\nagent\n8\n")}}}); err != nil {
		t.Fatal(err)
	}
	e.Close()
	// a person adds two lines at the top, behind the journal
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("person 1\nperson 2\n1\n2\n3\n4\n5\n6\n7\nagent\n8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dry := ok(t, dir, "undo", "--prompt", "p1", "--dry-run")
	if !strings.Contains(dry, "@@ -7,5 +7,4 @@") || !strings.Contains(dry, "-agent") || strings.Contains(dry, "-person") {
		t.Fatalf("the preview does not show the undo as it will be made (the person's lines on top, the agent's line at 10):\n%s", dry)
	}
	ok(t, dir, "undo", "--prompt", "p1")
	if got := readFile(t, dir, "a.txt"); got != "person 1\nperson 2\n1\n2\n3\n4\n5\n6\n7\n8\n" {
		t.Fatalf("after the undo: %q", got)
	}
}

// TestLog_ManyFilesOneLine: a one-line entry (log --oneline, log --prompts)
// of an event of more than five files names three and counts the rest;
// --stat lists every file on its own line with its counts.
func TestLog_ManyFilesOneLine(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"keep.txt": "k\n"})
	ok(t, dir, "exec", "--", "sh", "-c", "for i in 1 2 3 4 5 6 7 8; do echo line > f$i.txt; done")
	for _, args := range [][]string{{"log", "--oneline"}, {"log", "--prompts"}} {
		out := ok(t, dir, args...)
		if !strings.Contains(out, "f1.txt,f2.txt,f3.txt,and 5 more (--stat lists them)") || strings.Contains(out, "f8.txt") {
			t.Errorf("journal %s:\n%s", strings.Join(args, " "), out)
		}
		out = ok(t, dir, append(args, "--stat")...)
		if !strings.Contains(out, "(8 files)") || !strings.Contains(out, "\n      A  f8.txt  +1\n") {
			t.Errorf("journal %s --stat:\n%s", strings.Join(args, " "), out)
		}
	}
}
