// Command rooms measures how a package is used: its lines, the references
// between its files (and across a line drawn between two sets of them),
// and its names used from other packages of the module. ARCHITECTURE.md's
// "Rooms" figures come from it:
//
//	go run ./scripts/rooms -pkg journal -side export.go,exportverify.go,...   # before a split: the files of the upper room
//	go run ./scripts/rooms -pkg journal -upper journal/audit                  # after it
//
// Only non-test files count: what the program uses, not its tests. It reads
// the packages' export data (go list -export), so it needs nothing outside
// the standard library.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

type listed struct {
	ImportPath                string
	Dir                       string
	Export                    string
	GoFiles                   []string
	TestGoFiles, XTestGoFiles []string
	Module                    *struct{ Main bool }
}

func main() {
	pkg := flag.String("pkg", "journal", "the store: a package directory of the module")
	side := flag.String("side", "", "comma-separated files of -pkg on the upper side of a line to measure")
	upper := flag.String("upper", "", "comma-separated package directories above the store (a split done)")
	flag.Parse()

	out, err := exec.Command("go", "list", "-deps", "-export", "-json", "./...").Output()
	if err != nil {
		fatal(err)
	}
	var pkgs []listed
	exports := map[string]string{}
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Main {
			pkgs = append(pkgs, p)
		}
	}
	mod := strings.TrimSuffix(pkgs[0].ImportPath, "/"+rel(pkgs[0]))
	store := mod + "/" + *pkg
	uppers := map[string]bool{}
	for _, u := range split(*upper) {
		uppers[mod+"/"+u] = true
	}
	sideFiles := map[string]bool{}
	for _, f := range split(*side) {
		sideFiles[f] = true
	}

	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})
	type ref struct{ from, to, name string }
	within := map[ref]bool{}               // file → file inside the store
	across := map[string]map[string]bool{} // store name → using packages
	lines := map[string][2]int{}
	for _, p := range pkgs {
		r := rel(p)
		var code, tests int
		for _, f := range p.GoFiles {
			code += count(filepath.Join(p.Dir, f))
		}
		for _, f := range append(p.TestGoFiles, p.XTestGoFiles...) {
			tests += count(filepath.Join(p.Dir, f))
		}
		lines[r] = [2]int{code, tests}

		var files []*ast.File
		for _, f := range p.GoFiles {
			af, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, 0)
			if err != nil {
				fatal(err)
			}
			files = append(files, af)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: imp, Error: func(error) {}}
		conf.Check(p.ImportPath, fset, files, info)
		for id, o := range info.Uses {
			if o.Pkg() == nil || o.Pkg().Path() != store || !declared(o) {
				continue
			}
			name := qualified(o)
			if p.ImportPath == store {
				from := filepath.Base(fset.Position(id.Pos()).Filename)
				to := filepath.Base(fset.Position(o.Pos()).Filename)
				if from != to {
					within[ref{from, to, name}] = true
				}
				continue
			}
			if across[name] == nil {
				across[name] = map[string]bool{}
			}
			across[name][rel(p)] = true
		}
	}

	var names []string
	for d := range lines {
		names = append(names, d)
	}
	sort.Strings(names)
	fmt.Println("lines (code, tests):")
	for _, d := range names {
		if d == *pkg || strings.HasPrefix(d, *pkg+"/") {
			fmt.Printf("  %-24s %6d %6d\n", d+"/", lines[d][0], lines[d][1])
		}
	}
	pairs := map[[2]string]bool{}
	var up, down []string
	for r := range within {
		pairs[[2]string{r.from, r.to}] = true
		if sideFiles[r.from] && !sideFiles[r.to] {
			up = append(up, r.name)
		}
		if !sideFiles[r.from] && sideFiles[r.to] {
			down = append(down, r.name+" ("+r.from+" → "+r.to+")")
		}
	}
	fmt.Printf("inside %s/: %d references between its files (a name declared in one file, used in another), %d pairs of files\n", *pkg, len(within), len(pairs))
	if *side != "" {
		fmt.Printf("  the upper side's files use %d names of the rest; the rest uses %d of theirs:\n", len(distinct(up)), len(down))
		sort.Strings(down)
		for _, d := range down {
			fmt.Println("    " + d)
		}
	}
	byUpper, byOthers := map[string]bool{}, map[string]bool{}
	for n, users := range across {
		for u := range users {
			if uppers[mod+"/"+u] {
				byUpper[n] = true
			} else {
				byOthers[n] = true
			}
		}
	}
	fmt.Printf("names of %s/ used from other packages: %d", *pkg, len(across))
	if *upper != "" {
		fmt.Printf(" (by %s: %d; by the rest: %d)", *upper, len(byUpper), len(byOthers))
	}
	fmt.Println()
	if os.Getenv("ROOMS_NAMES") != "" {
		var ns []string
		for n := range across {
			ns = append(ns, n)
		}
		sort.Strings(ns)
		for _, n := range ns {
			fmt.Println("  " + n)
		}
	}
}

// declared reports whether o is a package-level name or a method (fields
// go with their type, locals with their function).
func declared(o types.Object) bool {
	if f, ok := o.(*types.Func); ok && f.Signature().Recv() != nil {
		return true
	}
	if v, ok := o.(*types.Var); ok && v.IsField() {
		return false
	}
	return o.Parent() == o.Pkg().Scope()
}

func qualified(o types.Object) string {
	if f, ok := o.(*types.Func); ok && f.Signature().Recv() != nil {
		t := f.Signature().Recv().Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := t.(*types.Named); ok {
			return n.Obj().Name() + "." + o.Name()
		}
	}
	return o.Name()
}

func rel(p listed) string {
	wd, _ := os.Getwd()
	r, _ := filepath.Rel(wd, p.Dir)
	return filepath.ToSlash(r)
}

func count(path string) int {
	f, err := os.Open(path)
	if err != nil {
		fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		n++
	}
	return n
}

func split(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func distinct(s []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range s {
		m[x] = true
	}
	return m
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "rooms:", err)
	os.Exit(1)
}
