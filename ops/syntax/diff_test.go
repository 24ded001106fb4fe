package syntax_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops/syntax"
)

func intents(t *testing.T, name, before, after string) string {
	t.Helper()
	ob, err := syntax.Outline(name, []byte(before))
	if err != nil {
		t.Fatal(err)
	}
	oa, err := syntax.Outline(name, []byte(after))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, in := range syntax.DiffSymbols(syntax.Flatten(ob.Symbols), syntax.Flatten(oa.Symbols)) {
		s := fmt.Sprintf("%s %s", in.Type, in.Name)
		if in.OldName != "" && in.Type == syntax.IntentRename {
			s = fmt.Sprintf("%s %s->%s", in.Type, in.OldName, in.Name)
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func TestDiffSymbols(t *testing.T) {
	const base = "class UserService:\n    def find_by_id(self, id):\n        return id\n\n    def save(self):\n        pass\n\n\ndef helper():\n    return 1\n"
	tests := []struct {
		name  string
		after string
		want  string
	}{
		{"unchanged", base, ""},
		{"body change", strings.Replace(base, "return id", "return id * 2", 1), "body_change UserService.find_by_id"},
		{"rename method", strings.Replace(base, "def save", "def store", 1), "rename UserService.save->UserService.store"},
		{"rename class keeps children", strings.Replace(base, "class UserService", "class AuthService", 1), "rename UserService->AuthService"},
		{"delete", strings.Replace(base, "\n\ndef helper():\n    return 1\n", "\n", 1), "delete helper"},
		{"add", base + "\n\ndef extra():\n    pass\n", "add extra"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := intents(t, "svc.py", base, tt.after); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
