package gitai

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// benchHistory makes a repository of 1,000 files of 100 lines and a commit
// changing one line of 10 of them, and returns it and that commit.
func benchHistory(b *testing.B) (string, string) {
	dir := b.TempDir()
	g := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x")
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	g("init", "-q")
	write := func(i int, first string) {
		var s strings.Builder
		s.WriteString(first + "\n")
		for l := 1; l < 100; l++ {
			fmt.Fprintf(&s, "file %d line %d\n", i, l)
		}
		p := filepath.Join(dir, fmt.Sprintf("d%d/f%d.txt", i%10, i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(s.String()), 0o644)
	}
	for i := 0; i < 1000; i++ {
		write(i, "start")
	}
	g("add", "-A")
	g("commit", "-qm", "start")
	for i := 0; i < 1000; i += 100 {
		write(i, "changed")
	}
	g("commit", "-qam", "ten files")
	g("gc", "-q") // packed, as a repository usually is
	return dir, g("rev-parse", "HEAD")
}

// BenchmarkChangedFiles is the hot path of a note both ways: a commit's
// changed files (renames detected), the lines each adds, and their blobs.
// The git binary's plumbing (two processes: diff-tree --stdin -p -U0 and
// one cat-file --batch) against go-git v5 in process (DiffTree with rename
// detection, then a patch per change for the added lines).
func BenchmarkChangedFiles(b *testing.B) {
	dir, head := benchHistory(b)
	b.Run("plumbing", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			r, err := OpenRepo(context.Background(), dir)
			if err != nil {
				b.Fatal(err)
			}
			_, data, err := mustCat(r).read(head)
			if err != nil {
				b.Fatal(err)
			}
			c := parseCommit(head, data)
			d, err := r.diffCommits(context.Background(), []commitInfo{c})
			if err != nil || len(d[head].Files) != 10 {
				b.Fatalf("%v %v", err, d)
			}
			n := 0
			for _, f := range d[head].Files {
				_, blob, err := mustCat(r).read(f.Blob)
				if err != nil {
					b.Fatal(err)
				}
				n += len(blob) + len(f.Added)
			}
			r.Close()
		}
	})
	b.Run("go-git", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			repo, err := gogit.PlainOpen(dir)
			if err != nil {
				b.Fatal(err)
			}
			c, err := repo.CommitObject(plumbing.NewHash(head))
			if err != nil {
				b.Fatal(err)
			}
			p, err := c.Parent(0)
			if err != nil {
				b.Fatal(err)
			}
			pt, _ := p.Tree()
			ct, _ := c.Tree()
			changes, err := object.DiffTreeWithOptions(context.Background(), pt, ct, &object.DiffTreeOptions{DetectRenames: true, RenameScore: 50, RenameLimit: 1000})
			if err != nil || len(changes) != 10 {
				b.Fatalf("%v %d", err, len(changes))
			}
			n := 0
			for _, ch := range changes {
				patch, err := ch.Patch()
				if err != nil {
					b.Fatal(err)
				}
				line := 1
				for _, fp := range patch.FilePatches() {
					for _, chunk := range fp.Chunks() {
						k := strings.Count(chunk.Content(), "\n")
						switch chunk.Type() {
						case diff.Add:
							n += k
							line += k
						case diff.Equal:
							line += k
						}
					}
				}
				_, to, _ := ch.Files()
				s, err := to.Contents()
				if err != nil {
					b.Fatal(err)
				}
				n += len(s)
			}
		}
	})
}

func mustCat(r *Repo) *catFile {
	cf, err := r.cat()
	if err != nil {
		panic(err)
	}
	return cf
}
