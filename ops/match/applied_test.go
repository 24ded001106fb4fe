package match_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
)

// TestLocate_AlreadyAppliedNeedsEvidence: a change is reported applied
// already only when the file shows it was made where the search text was
// (issue 59 §2); the replacement standing somewhere else is refused
// NO_MATCH, saying where it is, with no hint to skip the change.
func TestLocate_AlreadyAppliedNeedsEvidence(t *testing.T) {
	const issue = "def f(rv):\n    return rv\n\n\ndef g(a):\n    value = a + 1\n    return value\n"
	refused := []struct {
		name, content, search, replace string
		present                        string // "line N" the error names
	}{
		// the issue's example: the replacement is another function's line
		{"replacement elsewhere", issue, "    value = legacy(a)\n", "    return rv\n", "line 2"},
		// the same text in two places: never a hint to skip the change
		{"replacement twice", "def f(rv):\n    return rv\n\n\ndef h(rv):\n    return rv\n\n\ndef g(a):\n    value = a + 1\n", "    value = legacy(a)\n", "    return rv\n", "line 2"},
		// a kept line that is not unique in the file anchors nothing, and
		// the search resembles another place more
		{"kept line not unique", "}\nsum = total(items)\n}\ncount = len(items)\n", "}\ncount = legacy(items)\n", "}\nsum = total(items)\n", "line 1"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			es, err := match.Locate(tt.content, []match.Change{{Search: tt.search, Replace: tt.replace, Options: match.Options{Fuzzy: true}}})
			var oe *ops.Error
			if !errors.As(err, &oe) || !errors.Is(err, ops.ErrNoMatch) {
				t.Fatalf("want NO_MATCH, got %+v, %v", es, err)
			}
			if !strings.Contains(oe.Msg, "replacement text is present at "+tt.present) {
				t.Fatalf("message does not say where the replacement is: %s", oe.Msg)
			}
			if strings.Contains(oe.Hint, "skip") || strings.Contains(oe.Msg, "already applied?") {
				t.Fatalf("hint or message suggests skipping: %s / %s", oe.Msg, oe.Hint)
			}
		})
	}
	applied := []struct {
		name, content, search, replace string
		line                           int
	}{
		// a line changed in place: the search resembles that line most
		{"line changed in place", "def get(self, key):\n    return self.items.get(key, None)\n\ndef put(self, key, value):\n    self.items[key] = value\n",
			"    return self.items.get(key)\n", "    return self.items.get(key, None)\n", 2},
		// a kept line found once in the file, inside the replacement
		{"unique kept line", "def handle_create(req):\n    data = parse(req)\n    return store(data)\n\n\ndef handle_update(req):\n    data = parse(req)\n    return save(data)\n",
			"def handle_create(req):\n    data = parse(req)\n    return save(data)\n", "def handle_create(req):\n    data = parse(req)\n    return store(data)\n", 1},
		// an insertion after an anchor, the added line substantial
		{"insertion retried", "import os\nimport sys\n\nx = 1\n", "import os\n", "import os\nimport sys\n", 1},
		// the search cut inside the word the change grows it to
		{"grown word", "one two three\n", "thre", "three", 1},
	}
	for _, tt := range applied {
		t.Run(tt.name, func(t *testing.T) {
			es, err := match.Locate(tt.content, []match.Change{{Search: tt.search, Replace: tt.replace, Options: match.Options{Fuzzy: true}}})
			if err != nil || len(es) != 1 || !es[0].AlreadyApplied || es[0].Match.Line != tt.line {
				t.Fatalf("want already applied at line %d, got %+v, %v", tt.line, es, err)
			}
		})
	}
}

// TestLocate_AlreadyAppliedMadeAt: the caller's evidence (the journal's
// event that made the change, as MadeAt) picks the occurrence of a
// replacement that stands in several places, or whose place the file alone
// cannot prove; a MadeAt naming no occurrence proves nothing.
func TestLocate_AlreadyAppliedMadeAt(t *testing.T) {
	const twice = "def f(rv):\n    return rv\n\n\ndef h(rv):\n    return rv\n"
	c := match.Change{Search: "    value = legacy(a)\n", Replace: "    return rv\n", Options: match.Options{Fuzzy: true, MadeAt: 6}}
	es, err := match.Locate(twice, []match.Change{c})
	if err != nil || len(es) != 1 || !es[0].AlreadyApplied || es[0].Match.Line != 6 {
		t.Fatalf("MadeAt 6: %+v, %v", es, err)
	}
	c.MadeAt = 4
	if _, err := match.Locate(twice, []match.Change{c}); !errors.Is(err, ops.ErrNoMatch) {
		t.Fatalf("MadeAt on no occurrence: %v", err)
	}
}

// TestLocate_TrivialInsertionAgain: lines a change adds that are too short
// to tell a retry from a second copy ("}", "pass") found already after the
// search are neither claimed applied nor written twice without evidence:
// refused, allow_repeat adds them, MadeAt reports them applied.
func TestLocate_TrivialInsertionAgain(t *testing.T) {
	const content = "if ok:\n    run()\n    pass\n"
	c := match.Change{Search: "    run()\n", Replace: "    run()\n    pass\n", Options: match.Options{Fuzzy: true}}
	_, err := match.Locate(content, []match.Change{c})
	var oe *ops.Error
	if !errors.As(err, &oe) || !errors.Is(err, ops.ErrAmbiguousMatch) || !strings.Contains(oe.Hint, "allow_repeat") {
		t.Fatalf("want a refusal naming allow_repeat, got %v", err)
	}
	c.MadeAt = 2
	if es, err := match.Locate(content, []match.Change{c}); err != nil || len(es) != 1 || !es[0].AlreadyApplied {
		t.Fatalf("MadeAt: %+v, %v", es, err)
	}
	c.MadeAt, c.AllowRepeat = 0, true
	if got, _, err := match.Apply(content, []match.Change{c}); err != nil || got != "if ok:\n    run()\n    pass\n    pass\n" {
		t.Fatalf("allow_repeat: %q, %v", got, err)
	}
}
