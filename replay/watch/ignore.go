package watch

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/journalfs/journal/journal"
)

// IgnoreFile is the name of the file, beside or instead of a .gitignore,
// whose patterns (gitignore syntax) say what the watcher leaves alone; they
// take precedence over every .gitignore, so `!build/` in it brings back a
// directory a .gitignore or the defaults leave out.
const IgnoreFile = ".journalignore"

// DefaultIgnores are left out unless a .journalignore brings them back:
// dependency trees and caches that an install or a build rewrites by the
// thousand, and editors' swap files. (.git and the journal's directory are
// always left out.)
var DefaultIgnores = []string{
	"node_modules/", "bower_components/", ".venv/", "venv/", "__pycache__/", "*.pyc",
	".tox/", ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", ".gradle/", ".next/", ".nuxt/",
	".cache/", ".parcel-cache/", ".turbo/", ".terraform/", ".idea/", ".DS_Store",
	"*.swp", "*.swx", "*~", ".#*", "#*#",
}

// always are directories never watched, whatever the rules say.
var always = map[string]bool{".git": true, ".hg": true, ".svn": true, journal.DirName: true}

// Rules decide which paths of one root the watcher leaves alone: the
// defaults, then the .gitignore files of the tree (a deeper one after its
// parents, as git reads them), then its .journalignore files the same way.
// A directory left out is not descended into, so nothing under it can be
// brought back by a deeper pattern (git's rule too). Rules grow as a walk
// enters directories (Enter); they are not safe for concurrent use.
type Rules struct {
	defaults  []simpleName
	git, jour []gitignore.Pattern
	user      []gitignore.Pattern // git then jour: the last that matches decides
}

// simpleName is a default pattern: a name with no slash but a trailing
// one (dirOnly), matched against each component of a path as gitignore
// does, by exact name, prefix and suffix where the glob allows (every
// default does), else by filepath.Match.
type simpleName struct {
	glob             string
	exact            string // no glob characters
	prefix, suffix   string // "pre*suf" with one star
	starred, dirOnly bool
}

func parseSimple(p string) simpleName {
	n := simpleName{dirOnly: strings.HasSuffix(p, "/")}
	n.glob = strings.TrimSuffix(p, "/")
	switch {
	case !strings.ContainsAny(n.glob, `*?[\`):
		n.exact = n.glob
	case strings.Count(n.glob, "*") == 1 && !strings.ContainsAny(n.glob, `?[\`):
		n.prefix, n.suffix, _ = strings.Cut(n.glob, "*")
		n.starred = true
	}
	return n
}

func (n *simpleName) matchName(name string) bool {
	switch {
	case n.exact != "":
		return name == n.exact
	case n.starred:
		return len(name) >= len(n.prefix)+len(n.suffix) && strings.HasPrefix(name, n.prefix) && strings.HasSuffix(name, n.suffix)
	}
	ok, _ := filepath.Match(n.glob, name)
	return ok
}

// NewRules returns the defaults alone, for a walk to extend with Enter.
func NewRules() *Rules {
	r := &Rules{}
	for _, p := range DefaultIgnores {
		r.defaults = append(r.defaults, parseSimple(p))
	}
	return r
}

func (r *Rules) rebuild() {
	r.user = append(append(make([]gitignore.Pattern, 0, len(r.git)+len(r.jour)), r.git...), r.jour...)
}

// match is gitignore's matcher over the defaults, then the .gitignore
// patterns, then the .journalignore ones: the last pattern that matches
// path decides (an exclusion, or a negation bringing it back); the
// defaults, never negated, are looked at last and fast.
func (r *Rules) match(path []string, isDir bool) bool {
	for i := len(r.user) - 1; i >= 0; i-- {
		switch r.user[i].Match(path, isDir) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	for i := range r.defaults {
		d := &r.defaults[i]
		for j, name := range path {
			if d.matchName(name) {
				if !d.dirOnly || isDir || j < len(path)-1 {
					return true
				}
				break
			}
		}
	}
	return false
}

// Enter reads the ignore files of the directory abs (rel, slash-separated,
// relative to the root; "." for the root itself), if it has any. A walk
// calls it before it looks at the directory's entries.
func (r *Rules) Enter(abs, rel string) { r.EnterListed(abs, rel, nil) }

// EnterListed is Enter for a directory whose names (sorted) are known: an
// ignore file it does not hold is not looked for (a walk of 20,000
// directories: 40,000 opens that fail).
func (r *Rules) EnterListed(abs, rel string, names []string) {
	holds := func(name string) bool {
		if names == nil {
			return true
		}
		i := sort.SearchStrings(names, name)
		return i < len(names) && names[i] == name
	}
	var domain []string
	if rel != "." && rel != "" {
		domain = split(rel)
	}
	changed := false
	if !holds(".gitignore") && !holds(IgnoreFile) {
		return
	}
	if ps := readPatterns(filepath.Join(abs, ".gitignore"), domain); len(ps) > 0 {
		r.git = append(r.git, ps...)
		changed = true
	}
	if ps := readPatterns(filepath.Join(abs, IgnoreFile), domain); len(ps) > 0 {
		r.jour = append(r.jour, ps...)
		changed = true
	}
	if changed {
		r.rebuild()
	}
}

func readPatterns(file string, domain []string) []gitignore.Pattern {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// Ignored reports whether rel (slash-separated, relative to the root) is
// left alone: it or one of its parent directories is matched.
func (r *Rules) Ignored(rel string, isDir bool) bool {
	parts := split(rel)
	for _, p := range parts {
		if always[p] {
			return true
		}
	}
	if isTempName(parts[len(parts)-1]) {
		return true
	}
	for i := 1; i < len(parts); i++ {
		if r.match(parts[:i], true) {
			return true
		}
	}
	return r.match(parts, isDir)
}

// ignoredInWalk is Ignored for a path a walk reached: its parent
// directories were each found not ignored before the walk entered them,
// and the patterns read since (their .gitignore files) apply only below
// them, so only the path itself is matched.
func (r *Rules) ignoredInWalk(rel string, isDir bool) bool {
	parts := split(rel)
	name := parts[len(parts)-1]
	if always[name] || isTempName(name) {
		return true
	}
	return r.match(parts, isDir)
}

func split(rel string) []string { return strings.Split(rel, "/") }

// isTempName reports whether a name is one of the engine's temporary files
// (".<name>.jtmp-<n>"): they exist only while a batch applies.
func isTempName(name string) bool {
	i := strings.LastIndex(name, ".jtmp-")
	return i > 0 && strings.HasPrefix(name, ".")
}
