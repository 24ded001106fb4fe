package main_test

import (
	"bufio"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestArchitectureMap keeps ARCHITECTURE.md, the newcomer's map, and
// docs/DESIGN.md, the design document, true to the tree: every relative
// link names a file or directory that exists (relative to the page), every
// "§ Section" in a link's text is a heading of what it links to (a
// "// # Section" line of a doc.go, a "#" heading of a page), and every path
// written in backquotes in the map (a package directory with a trailing
// slash, a file ending in .go or .md, a path with a slash) exists — in the
// design document, those of a package or a Go or Markdown file. Every
// package's doc.go that names a section of the design document
// (docs/DESIGN.md ("Section")) names one it has.
func TestArchitectureMap(t *testing.T) {
	root := filepath.Join("..", "..")
	exists := func(rel string) bool {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		return err == nil
	}
	for _, page := range []struct {
		path               string
		minLinks, minPaths int
		anyPath            bool
	}{
		{"ARCHITECTURE.md", 10, 20, true},
		{"docs/DESIGN.md", 5, 20, false},
	} {
		doc, err := os.ReadFile(filepath.Join(root, page.path))
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.ToSlash(filepath.Dir(page.path))
		text := string(doc)
		links := regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`).FindAllStringSubmatch(text, -1)
		if len(links) < page.minLinks {
			t.Fatalf("%s has %d links; its links were not found", page.path, len(links))
		}
		sections := 0
		for _, l := range links {
			label, target := l[1], l[2]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			target = path.Join(dir, target)
			if !exists(target) {
				t.Errorf("%s: link %q: %s does not exist", page.path, label, target)
				continue
			}
			_, section, ok := strings.Cut(label, "§ ")
			if !ok {
				continue
			}
			sections++
			if !hasHeading(t, filepath.Join(root, filepath.FromSlash(target)), strings.TrimSpace(section)) {
				t.Errorf("%s: link %q: %s has no section %q", page.path, label, target, section)
			}
		}
		if page.path == "ARCHITECTURE.md" && sections < 10 {
			t.Errorf("ARCHITECTURE.md links %d sections; the protocols' links were not found", sections)
		}
		paths := 0
		for _, m := range regexp.MustCompile("`([^`\\s]+)`").FindAllStringSubmatch(text, -1) {
			p := m[1]
			if !isTreePath(p) || !page.anyPath && !strings.HasSuffix(p, "/") && !strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, ".md") {
				continue
			}
			paths++
			if !exists(strings.TrimSuffix(p, "/")) {
				t.Errorf("%s: `%s` does not exist", page.path, p)
			}
		}
		if paths < page.minPaths {
			t.Errorf("%s names %d paths in backquotes; its tables were not found", page.path, paths)
		}
	}

	// doc.go files naming the design document's sections
	design := filepath.Join(root, "docs", "DESIGN.md")
	named := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "third_party" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != "doc.go" {
			return nil
		}
		for _, s := range designSections(t, p) {
			named++
			if !hasHeading(t, design, s) {
				t.Errorf("%s names docs/DESIGN.md section %q, which it does not have", p, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if named < 5 {
		t.Errorf("the doc.go files name %d sections of docs/DESIGN.md; their links were not found", named)
	}
}

// designSections returns the sections of docs/DESIGN.md the comments of the
// Go file at path name: `docs/DESIGN.md ("A", "B")` or `docs/DESIGN.md "A"`,
// across comment lines.
func designSections(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, l := range strings.Split(string(b), "\n") {
		if c, ok := strings.CutPrefix(strings.TrimSpace(l), "//"); ok {
			text.WriteString(strings.TrimSpace(c) + " ")
		}
	}
	var out []string
	for _, m := range regexp.MustCompile(`docs/DESIGN\.md \(?((?:"[^"]+"(?:, )?)+)`).FindAllStringSubmatch(text.String(), -1) {
		for _, q := range regexp.MustCompile(`"([^"]+)"`).FindAllStringSubmatch(m[1], -1) {
			out = append(out, q[1])
		}
	}
	return out
}

// treePath is what a path in the tree looks like in backquotes: lower-case
// names joined by slashes (a package, "replay/watch/"), or a file name with
// its directory ("replay/rewind.go"), or a file at the root ("README.md").
var treePath = regexp.MustCompile(`^([a-z0-9_]+/)+([a-z0-9_]+(\.go|\.md)?)?$|^[A-Za-z0-9_]+\.(go|md)$`)

func isTreePath(s string) bool { return treePath.MatchString(s) }

// hasHeading reports whether the file at path has the heading: a comment
// line "// # heading" in a Go file, a line of one or more "#", a space and
// the heading in a Markdown file.
func hasHeading(t *testing.T, path, heading string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	md := strings.HasSuffix(path, ".md")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if !md && l == "// # "+heading {
			return true
		}
		if md && strings.HasPrefix(l, "#") && strings.TrimSpace(strings.TrimLeft(l, "#")) == heading {
			return true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return false
}
