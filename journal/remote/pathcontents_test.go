package remote

import (
	"slices"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// A clone for some paths' histories (CloneOptions.Paths) fetches the
// contents of those paths' versions, and of the names a journal move gave
// them before — from the move back — and no other file's.
func TestPathContents(t *testing.T) {
	id := func(s string) snapshot.ID { return snapshot.Sum([]byte(s)) }
	evs := []*journal.Event{
		{Seq: 1, Files: []journal.FileChange{{Path: "old.txt", After: id("o1")}, {Path: "other.txt", After: id("x1")}}},
		{Seq: 2, Files: []journal.FileChange{{Path: "old.txt", Before: id("o1"), After: id("o2")}}},
		{Seq: 3, Files: []journal.FileChange{{Path: "new.txt", MovedFrom: "old.txt", Before: id("o2"), After: id("n1")}}},
		{Seq: 4, Files: []journal.FileChange{{Path: "new.txt", Before: id("n1"), After: id("n2")}, {Path: "other.txt", Before: id("x1"), After: id("x2")}}},
		{Seq: 5, Files: []journal.FileChange{{Path: "old.txt", After: id("later")}}}, // a new file of the old name, after the move
	}
	got := pathContents(evs, []string{"new.txt"})
	for _, w := range []string{"o1", "o2", "n1", "n2"} {
		if !slices.Contains(got, id(w)) {
			t.Errorf("the contents lack %s's", w)
		}
	}
	for _, n := range []string{"x1", "x2", "later"} {
		if slices.Contains(got, id(n)) {
			t.Errorf("the contents hold %s's, of another file (or of the old name after the move)", n)
		}
	}
	if got := pathContents(evs, []string{}); len(got) != 0 {
		t.Errorf("no paths: %d contents", len(got))
	}
}
