package floor

import (
	"os"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func TestReplaceAndUpdate(t *testing.T) {
	dir := t.TempDir()
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"one", "two"} {
		if err := f.Replace([]byte(s)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(f.target); string(b) != s {
			t.Fatalf("content = %q, want %q", b, s)
		}
		if err := f.Update([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if ents, _ := os.ReadDir(f.dir); len(ents) != 2 { // target.txt and floor.db, no temp files
		t.Fatalf("files left: %v", ents)
	}
	var n int
	f.db.View(func(tx *bolt.Tx) error { n = tx.Bucket(bucket).Stats().KeyN; return nil })
	if n != 2 {
		t.Fatalf("%d updates stored, want 2", n)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("Close left %v", ents)
	}
}
