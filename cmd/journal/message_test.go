package main_test

import (
	"strings"
	"testing"
)

// An error's words stay whole: the package prefixes wrapping repeats
// ("journal: ", "replay: ") are dropped where they start a part of the
// message, not inside a sentence ("no events in this journal: …").
func TestErrorMessage_KeepsItsWords(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"a.txt": "a\n"})
	ok(t, dir, "exec", "--", "true")
	r := run(t, dir, "undo", "--session", "S1", "--all")
	if r.code == 0 || !strings.Contains(r.stderr, `journal: session "S1" has no events in this journal: unusable event`) || strings.Contains(r.stderr, "replay:") ||
		!strings.Contains(r.stderr, "hint: this journal has no sessions") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}
