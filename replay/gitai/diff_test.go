package gitai

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// diffCommits against real git: added lines by number, a root commit's
// every line, renames with their source, unusual paths unquoted, a line
// reading "++ b/x" not taken for a header, deletions and binaries left out.
func TestDiffCommits(t *testing.T) {
	dir := t.TempDir()
	g := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	w := func(p, s string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644)
	}
	g("init", "-q")
	long := strings.Repeat("same line of a long file\n", 20)
	w("a.txt", "1\n2\n3\n")
	w("del.txt", "gone\n")
	w("old name.txt", long)
	g("add", "-A")
	g("commit", "-qm", "root")
	root := g("rev-parse", "HEAD")
	w("a.txt", "1\nnew\n2\n3\n++ b/x\n")
	os.Remove(filepath.Join(dir, "del.txt"))
	os.Mkdir(filepath.Join(dir, "dir"), 0o755)
	if err := os.Rename(filepath.Join(dir, "old name.txt"), filepath.Join(dir, "dir/né w.txt")); err != nil {
		t.Fatal(err)
	}
	w("dir/né w.txt", long+"edited\n")
	w("bin.dat", "a\x00b\n")
	g("add", "-A")
	g("commit", "-qm", "second")
	second := g("rev-parse", "HEAD")
	r, err := OpenRepo(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	d, err := r.diffCommits(context.Background(), []commitInfo{{ID: root}, {ID: second, Parents: []string{root}}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]int{}
	for _, f := range d[root].Files {
		got["root:"+f.Path] = f.Added
	}
	for _, f := range d[second].Files {
		got[f.Path+"<"+f.OldPath] = f.Added
		if len(f.Blob) != 40 || f.Mode != "100644" {
			t.Fatalf("%s: blob %q mode %q", f.Path, f.Blob, f.Mode)
		}
	}
	want := map[string][]int{
		"root:a.txt": {1, 2, 3}, "root:del.txt": {1}, "root:old name.txt": seq(1, 20),
		"a.txt<": {2, 5}, "dir/né w.txt<old name.txt": {21},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

func seq(a, b int) []int {
	var s []int
	for i := a; i <= b; i++ {
		s = append(s, i)
	}
	return s
}
