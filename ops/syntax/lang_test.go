package syntax_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/journalfs/journal/ops/syntax"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"main.go", "", "go"},
		{"src/App.TSX", "", "tsx"},
		{"lib.d.ts", "", "typescript"},
		{"core.cljc", "", "clojure"},
		{"Dockerfile", "", "dockerfile"},
		{"Dockerfile.prod", "", "dockerfile"},
		{"Gemfile", "", "ruby"},
		{"main.tf", "", "hcl"},
		{"package.json", "", "json"},
		{"README.md", "", "markdown"},
		{"deploy", "#!/usr/bin/env bash\necho hi\n", "bash"},
		{"tool", "#!/usr/bin/env -S python3 -u\n", "python"},
		{"script", "#!/usr/local/bin/bb\n(println 1)\n", "clojure"},
		{"notes.txt", "", ""},
		{"noext", "plain", ""},
	}
	for _, tt := range tests {
		if got := syntax.Detect(tt.name, []byte(tt.src)); got != tt.want {
			t.Errorf("Detect(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestCommentPrefix(t *testing.T) {
	for lang, want := range map[string]string{"clojure": ";;", "go": "//", "python": "#", "lua": "--", "sql": "--", "json": "", "nope": ""} {
		if got := syntax.CommentPrefix(lang); got != want {
			t.Errorf("CommentPrefix(%q) = %q, want %q", lang, got, want)
		}
	}
}

// Every language with a grammar parses; run in parallel to exercise the
// parser pools (parsers are not goroutine-safe, the pool must keep them apart).
func TestOutline_Concurrent(t *testing.T) {
	files := []string{"go/service.go", "python/service.py", "rust/lib.rs", "clojure/core.clj", "typescript/service.ts", "java/UserService.java"}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		for _, f := range files {
			name, src := fixture(t, f)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := 0; j < 10; j++ {
					o, err := syntax.Outline(name, src)
					if err != nil || len(o.Symbols) == 0 {
						t.Errorf("%s: %v", name, err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
}

func TestLanguages(t *testing.T) {
	langs := syntax.Languages()
	if len(langs) < 34 {
		t.Fatalf("only %d languages: %v", len(langs), langs)
	}
}

func ExampleResolve() {
	src := []byte("class UserService:\n    def find_by_id(self, id):\n        return id\n")
	o, _ := syntax.Outline("svc.py", src)
	s, _ := syntax.Resolve(o, "UserService.find_by_id")
	fmt.Println(s.Kind, s.Range.StartLine, s.Range.EndLine)
	// Output: method 2 3
}
