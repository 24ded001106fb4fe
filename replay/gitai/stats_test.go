package gitai_test

import (
	"context"
	"testing"

	"github.com/journalfs/journal/replay/gitai"
)

func TestGitStats_History(t *testing.T) {
	r := newHistoryRepo(t)
	st, err := r.reader().Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Tip != r.d || len(st.Commits) != 4 {
		t.Fatalf("tip %s, %d commits", st.Tip, len(st.Commits))
	}
	byHash := map[string]gitai.CommitStats{}
	for _, c := range st.Commits {
		byHash[c.Commit] = c
	}
	a, b, c, d := byHash[r.a], byHash[r.b], byHash[r.c], byHash[r.d]
	// A: 9 added, 6 agent (3+1 claude, 2 cursor), 1 Ann, 2 untracked;
	// D changed line 1, so 5 of its 6 agent lines reach the tip unchanged.
	if !a.Noted || a.Added != 9 || a.Agent != 6 || a.Human != 1 || a.Untracked != 2 || a.Survived != 5 {
		t.Errorf("A: %+v", a)
	}
	if len(a.Sessions) != 2 || a.Sessions[0].Session != sessClaude || a.Sessions[0].Lines != 4 || a.Sessions[0].Survived != 3 ||
		a.Sessions[1].Tool != "cursor" || a.Sessions[1].Lines != 2 || a.Sessions[1].Survived != 2 {
		t.Errorf("A's sessions: %+v", a.Sessions)
	}
	if b.Noted || b.Added != 2 || b.Untracked != 2 || b.Agent != 0 {
		t.Errorf("B: %+v", b)
	}
	// C renamed the file: its one added line is claude's, and survives
	if !c.Noted || c.Added != 1 || c.Agent != 1 || c.Survived != 1 {
		t.Errorf("C: %+v", c)
	}
	if d.Noted || d.Added != 1 || d.Untracked != 1 {
		t.Errorf("D: %+v", d)
	}
	tot := st.Total
	if tot.Commits != 4 || tot.Noted != 2 || tot.Added != 13 || tot.Agent != 7 || tot.Human != 1 || tot.Untracked != 5 || tot.Survived != 6 {
		t.Errorf("total %+v", tot)
	}
	if tot.AgentPercent < 53.8 || tot.AgentPercent > 53.9 {
		t.Errorf("agent %% %.2f, want 7/13", tot.AgentPercent)
	}
	if len(tot.Tools) != 2 || tot.Tools[0].Name != "claude" || tot.Tools[0].Lines != 5 || tot.Tools[0].Survived != 4 {
		t.Errorf("tools %+v", tot.Tools)
	}
	if len(tot.Models) != 2 || tot.Models[1].Name != "gpt-5" || tot.Models[1].Lines != 2 {
		t.Errorf("models %+v", tot.Models)
	}
	if len(tot.Sessions) != 2 || tot.Sessions[0].ID != "conv-claude-1" || tot.Sessions[0].Lines != 5 {
		t.Errorf("sessions %+v", tot.Sessions)
	}
}

// A range: only its commits count, and survival is judged at its tip.
func TestGitStats_Range(t *testing.T) {
	r := newHistoryRepo(t)
	st, err := r.reader().Stats(context.Background(), r.a+".."+r.c)
	if err != nil {
		t.Fatal(err)
	}
	if st.Tip != r.c || len(st.Commits) != 2 {
		t.Fatalf("tip %s, %d commits", st.Tip, len(st.Commits))
	}
	if st.Total.Agent != 1 || st.Total.Survived != 1 || st.Total.Added != 3 {
		t.Errorf("total %+v", st.Total)
	}
	st, err = r.reader().Stats(context.Background(), r.c)
	if err != nil {
		t.Fatal(err)
	}
	// at C, all of A's agent lines are still there
	if st.Total.Agent != 7 || st.Total.Survived != 7 || st.Total.SurvivedPercent != 100 {
		t.Errorf("at C: %+v", st.Total)
	}
}

func TestGitStats_Rejects(t *testing.T) {
	r := newHistoryRepo(t)
	if _, err := r.reader().Stats(context.Background(), "--all"); err == nil {
		t.Error("an option taken as a range")
	}
	if _, err := r.reader().Stats(context.Background(), "nope..HEAD"); err == nil {
		t.Error("a bad range taken")
	}
}

func TestGitStats_Merge(t *testing.T) {
	r := newTestRepo(t)
	r.write("a.txt", "base\n")
	r.commit("base")
	r.git("checkout", "-q", "-b", "side")
	r.write("b.txt", "side1\nside2\n")
	side := r.commit("side")
	r.note(side, "b.txt\n  "+sessCursor+"::"+trace1+" 1-2\n---\n"+metaJSON(side))
	r.git("checkout", "-q", "main")
	r.write("a.txt", "base\nmain\n")
	r.commit("main")
	r.tick++
	r.git("merge", "-q", "--no-edit", "side")
	st, err := r.reader().Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// the merge adds nothing of its own: the side's lines count once
	if len(st.Commits) != 4 || st.Total.Added != 4 || st.Total.Agent != 2 || st.Total.Survived != 2 {
		t.Errorf("%+v", st.Total)
	}
}
