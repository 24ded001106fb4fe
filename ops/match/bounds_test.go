package match_test

import (
	"errors"
	"testing"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
)

// TestFind_TokenBounds: an exact match never starts or ends inside a
// longer number, nor inside a word but at a sub-word boundary; Substring
// keeps plain substrings.
func TestFind_TokenBounds(t *testing.T) {
	tests := []struct {
		content, search string
		line            int // 0: refused with ErrNoMatch
	}{
		{"const maxConns = 1000\n", "maxConns = 100", 0},
		{"x = 1500\n", "500", 0},
		{"mask = 0x1F\n", "0x1", 0},
		{"n = 1e5\n", "n = 1", 0},
		{"n = 1_000\n", "n = 1", 0},
		{"item = item2\n", "item", 1}, // the whole word, not the one in item2
		{"v = item2\n", "item", 0},
		{"preload()\n", "load()", 0},
		{"user_ids = 1\n", "user_id", 0},
		{"width: 100px;\n", "width: 100", 1},
		{"class UserHandler {}\n", "Handler", 1},
		{"def get_user_name():\n", "user_name", 1},
		{"type HTTPServer struct{}\n", "Server", 1},
		{"type HTTPS struct{}\n", "HTTP", 0},
		{"total = 0\nsubtotal = 1\n", "total", 1},
		{"caf\u00e9\n", "caf", 0},
	}
	for _, tt := range tests {
		ms, err := match.Find(tt.content, tt.search, match.Options{})
		switch {
		case tt.line == 0 && !errors.Is(err, ops.ErrNoMatch):
			t.Errorf("%q in %q: %v %v, want NO_MATCH", tt.search, tt.content, ms, err)
		case tt.line > 0 && (err != nil || len(ms) != 1 || ms[0].Line != tt.line):
			t.Errorf("%q in %q: %v %v, want one match at line %d", tt.search, tt.content, ms, err, tt.line)
		}
	}
	ms, err := match.Find("const maxConns = 1000\n", "maxConns = 100", match.Options{Substring: true})
	if err != nil || len(ms) != 1 {
		t.Fatalf("substring: %v %v", ms, err)
	}
	var oe *ops.Error
	if _, err := match.Find("a = 1000\nb = 1000\n", "= 100", match.Options{}); !errors.As(err, &oe) || len(oe.Candidates) != 2 || oe.Candidates[1].Line != 2 {
		t.Fatalf("candidates of a cut: %v", err)
	}
}
