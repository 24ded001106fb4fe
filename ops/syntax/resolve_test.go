package syntax_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/syntax"
)

func TestResolve_Ambiguous(t *testing.T) {
	o := outline(t, "java/UserService.java")
	_, err := syntax.Resolve(o, "UserService.findById")
	if !errors.Is(err, ops.ErrAmbiguousMatch) {
		t.Fatalf("err = %v, want ErrAmbiguousMatch", err)
	}
	var oe *ops.Error
	if !errors.As(err, &oe) || len(oe.Candidates) != 2 || oe.Candidates[0].Line != 12 || oe.Candidates[1].Line != 16 {
		t.Fatalf("candidates = %+v, want lines 12 and 16", oe)
	}
	s, err := syntax.Resolve(o, "UserService.findById@16")
	if err != nil || s.Range.StartLine != 16 {
		t.Fatalf("@16: %v, %+v", err, s)
	}
}

func TestResolve_Cases(t *testing.T) {
	tests := []struct {
		file, path string
		wantLine   int
		wantErr    error
	}{
		{"go/service.go", "UserService.findById", 19, nil}, // through the receiver
		{"go/service.go", "findById", 19, nil},             // unique suffix
		{"rust/lib.rs", "Point", 5, nil},                   // struct, not its impl block
		{"rust/lib.rs", "Point.new", 11, nil},
		{"css/site.css", ".btn, .btn-primary", 5, nil}, // dots inside a name
		{"clojure/core.clj", "try-it", 24, nil},        // inside a rich comment
		{"go/service.go", "UserService.nope", 0, ops.ErrNoMatch},
		{"go/service.go", "", 0, ops.ErrInvalidInput},
	}
	for _, tt := range tests {
		o := outline(t, tt.file)
		s, err := syntax.Resolve(o, tt.path)
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("%s %q: err = %v, want %v", tt.file, tt.path, err, tt.wantErr)
			}
			continue
		}
		if err != nil || s.Range.StartLine != tt.wantLine {
			t.Errorf("%s %q: %v line %v, want line %d", tt.file, tt.path, err, s, tt.wantLine)
		}
	}
}

func TestResolve_NoMatchOffersSimilar(t *testing.T) {
	o := outline(t, "python/service.py")
	_, err := syntax.Resolve(o, "UserService.find")
	var oe *ops.Error
	if !errors.As(err, &oe) || !errors.Is(err, ops.ErrNoMatch) || len(oe.Candidates) == 0 {
		t.Fatalf("err = %v, want ErrNoMatch with candidates", err)
	}
	if oe.Candidates[0].Text != "method UserService.find_by_id" {
		t.Errorf("first candidate = %q", oe.Candidates[0].Text)
	}
}

// resolveErr resolves path in the fixture file and returns the *ops.Error.
func resolveErr(t *testing.T, file, path string, want error) *ops.Error {
	t.Helper()
	s, err := syntax.Resolve(outline(t, file), path)
	var oe *ops.Error
	if !errors.Is(err, want) || !errors.As(err, &oe) {
		t.Fatalf("%s %q: %v (%+v), want %v", file, path, err, s, want)
	}
	return oe
}

func retryTarget(oe *ops.Error) any {
	if oe.Retry == nil {
		return nil
	}
	return oe.Retry["target"]
}

// TestResolve_UnknownNamesTheNearest: an unknown path lists the symbols
// that exist, nearest first, with kind and lines; a retry is offered only
// for the one symbol plainly meant, and nothing resolves by a guess.
func TestResolve_UnknownNamesTheNearest(t *testing.T) {
	tests := []struct {
		file, path string
		first      string // the first candidate
		retry      any    // the offered target, nil for none
	}{
		{"python/service.py", "UserService.findById", "method UserService.find_by_id", "UserService.find_by_id"}, // camelCase for snake_case
		{"python/service.py", "userservice.FIND_BY_ID", "method UserService.find_by_id", "UserService.find_by_id"},
		{"python/service.py", "findById", "method UserService.find_by_id", "UserService.find_by_id"}, // suffix, written differently
		{"python/service.py", "UserSvc.save", "method UserService.save", "UserService.save"},         // the only save, the parent does not exist
		{"python/service.py", "UserService.nope", "method UserService.save", nil},                    // same parent first
		{"python/service.py", "UserService.find", "method UserService.find_by_id", nil},              // a prefix is near, not sure
		{"go/service.go", "UserService.FindByID", "method UserService.findById", "UserService.findById"},
		{"go/service.go", "UserService::findById", "method UserService.findById", "UserService.findById"},
		{"java/UserService.java", "UserService.save", "method Repo.save", nil},                                            // UserService exists: save is not in it
		{"java/UserService.java", "UserService.findbyid", "method UserService.findById@12", nil},                          // two overloads: no guess
		{"java/UserService.java", "UserService.findbyid@16", "method UserService.findById@16", "UserService.findById@16"}, // the line picks one
		{"typescript/service.ts", "UserService.find_by_id", "method UserService.findById@9", nil},
	}
	for _, tt := range tests {
		oe := resolveErr(t, tt.file, tt.path, ops.ErrNoMatch)
		if len(oe.Candidates) == 0 || oe.Candidates[0].Text != tt.first || retryTarget(oe) != tt.retry {
			t.Errorf("%s %q: first %+v, retry %v; want %q, %v", tt.file, tt.path, oe.Candidates, oe.Retry, tt.first, tt.retry)
			continue
		}
		if len(oe.Candidates) > 10 || !strings.Contains(oe.Msg, "nearest: ") || oe.Hint == "" {
			t.Errorf("%s %q: %d candidates, %q / %q", tt.file, tt.path, len(oe.Candidates), oe.Msg, oe.Hint)
		}
		for i, c := range oe.Candidates {
			if c.Line == 0 || c.EndLine < c.Line || (i > 0 && c.Similarity > oe.Candidates[i-1].Similarity && tt.retry == nil) {
				t.Errorf("%s %q: candidate %d %+v", tt.file, tt.path, i, c)
			}
		}
	}
	oe := resolveErr(t, "python/service.py", "UserService.nope", ops.ErrNoMatch)
	for _, c := range oe.Candidates[:3] { // the three members of UserService, then the rest
		if !strings.Contains(c.Text, " UserService.") {
			t.Errorf("same parent not first: %+v", oe.Candidates)
		}
	}
}

// TestResolve_AmbiguousNamesEach: several symbols of a path are listed as
// the name@LINE paths that pick each; a line inside one is a retry, and a
// wrong line of a unique name offers the name.
func TestResolve_AmbiguousNamesEach(t *testing.T) {
	oe := resolveErr(t, "java/UserService.java", "findById", ops.ErrAmbiguousMatch)
	if len(oe.Candidates) != 2 || oe.Candidates[0].Text != "method UserService.findById@12" || oe.Candidates[1].Text != "method UserService.findById@16" ||
		oe.Retry != nil || !strings.Contains(oe.Msg, "UserService.findById@16 (method, lines 16-18)") {
		t.Fatalf("ambiguous: %+v", oe)
	}
	oe = resolveErr(t, "java/UserService.java", "findById@17", ops.ErrAmbiguousMatch)
	if retryTarget(oe) != "UserService.findById@16" || oe.Candidates[0].Line != 16 {
		t.Fatalf("a line inside one: %+v", oe)
	}
	oe = resolveErr(t, "java/UserService.java", "findById@3", ops.ErrAmbiguousMatch)
	if oe.Retry != nil {
		t.Fatalf("a line in neither: %+v", oe)
	}
	oe = resolveErr(t, "go/service.go", "helper@3", ops.ErrNoMatch)
	if retryTarget(oe) != "helper" || len(oe.Candidates) != 1 {
		t.Fatalf("a wrong line of a unique name: %+v", oe)
	}
	for _, p := range []string{"UserService.findById@12", "UserService.findById@16"} {
		if s, err := syntax.Resolve(outline(t, "java/UserService.java"), p); err != nil || syntax.Target(outline(t, "java/UserService.java"), s) != p {
			t.Errorf("%s: %v %+v", p, err, s)
		}
	}
	o := outline(t, "rust/lib.rs")
	impl, err := syntax.Resolve(o, "Point@9")
	if err != nil || impl.Kind != syntax.KindImpl || syntax.Target(o, impl) != "Point@9" {
		t.Fatalf("impl: %v %+v", err, impl)
	}
	if st, _ := syntax.Resolve(o, "Point"); syntax.Target(o, st) != "Point" {
		t.Fatalf("struct target %q", syntax.Target(o, st))
	}
}
