package main_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestArchitectureMap keeps ARCHITECTURE.md, the newcomer's map, true to
// the tree: every relative link names a file or directory that exists,
// every "§ Section" in a link's text is a "# Section" heading of the doc.go
// it links to, and every path written in backquotes (a package directory
// with a trailing slash, a file ending in .go or .md, a path with a slash)
// exists.
func TestArchitectureMap(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	exists := func(rel string) bool {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		return err == nil
	}
	text := string(doc)
	links := regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`).FindAllStringSubmatch(text, -1)
	if len(links) < 10 {
		t.Fatalf("ARCHITECTURE.md has %d links; the map's links were not found", len(links))
	}
	sections := 0
	for _, l := range links {
		label, target := l[1], l[2]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "#") {
			continue
		}
		target, _, _ = strings.Cut(target, "#")
		if !exists(target) {
			t.Errorf("link %q: %s does not exist", label, target)
			continue
		}
		_, section, ok := strings.Cut(label, "§ ")
		if !ok {
			continue
		}
		sections++
		if !hasHeading(t, filepath.Join(root, filepath.FromSlash(target)), strings.TrimSpace(section)) {
			t.Errorf("link %q: %s has no section %q (a line %q)", label, target, section, "// # "+section)
		}
	}
	if sections < 10 {
		t.Errorf("ARCHITECTURE.md links %d doc.go sections; the protocols' links were not found", sections)
	}
	paths := 0
	for _, m := range regexp.MustCompile("`([^`\\s]+)`").FindAllStringSubmatch(text, -1) {
		p := m[1]
		if !isTreePath(p) {
			continue
		}
		paths++
		if !exists(strings.TrimSuffix(p, "/")) {
			t.Errorf("`%s` does not exist", p)
		}
	}
	if paths < 20 {
		t.Errorf("ARCHITECTURE.md names %d paths in backquotes; the packages' table was not found", paths)
	}
}

// treePath is what a path in the tree looks like in backquotes: lower-case
// names joined by slashes (a package, "replay/watch/"), or a file name with
// its directory ("replay/rewind.go"), or a file at the root ("README.md").
var treePath = regexp.MustCompile(`^([a-z0-9_]+/)+([a-z0-9_]+(\.go|\.md)?)?$|^[A-Za-z0-9_]+\.(go|md)$`)

func isTreePath(s string) bool { return treePath.MatchString(s) }

// hasHeading reports whether the Go file at path has a comment line
// "// # heading".
func hasHeading(t *testing.T, path, heading string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "// # "+heading {
			return true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return false
}
