package syntax_test

import (
	"errors"
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
