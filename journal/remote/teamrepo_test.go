package remote_test

import (
	"testing"

	"github.com/journalfs/journal/journal/remote"
	"github.com/journalfs/journal/journal/remote/s3test"
)

// A push records the repository it is given in the workspace's team index;
// a push with nothing to send records a changed one, and a push given none
// keeps it. Two repositories are one when they share a root commit, or by
// their origin URL when one has no commit.
func TestTeamRepository(t *testing.T) {
	srv := s3test.Start(t)
	s := store(t, srv)
	_, e := workspace(t, "a", 3, nil)
	j := e.Journal()
	r1 := &remote.Repository{Roots: []string{"aaaa1111"}, URL: "https://example.com/r.git"}
	r2 := &remote.Repository{Roots: []string{"aaaa1111", "bbbb2222"}, URL: "https://example.com/r.git", Prefix: "sub/"}
	repoOf := func(o *remote.Repository) *remote.Repository {
		t.Helper()
		rep, err := remote.Push(ctx, s, j, remote.PushOptions{Repository: o})
		if err != nil {
			t.Fatal(err)
		}
		r, err := remote.TeamRepository(ctx, s, rep.Workspace)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := repoOf(r1); r == nil || r.Roots[0] != "aaaa1111" || r.URL != r1.URL || r.Prefix != "" {
		t.Errorf("first push: the index names %+v, want %+v", r, r1)
	}
	if r := repoOf(r2); r == nil || len(r.Roots) != 2 || r.Prefix != "sub/" {
		t.Errorf("push with nothing to send, another repository: the index names %+v, want %+v", r, r2)
	}
	if r := repoOf(nil); r == nil || r.Prefix != "sub/" {
		t.Errorf("push given no repository: the index names %+v, want %+v kept", r, r2)
	}
	for _, c := range []struct {
		x, y *remote.Repository
		want bool
	}{
		{r1, r2, true},
		{r1, &remote.Repository{Roots: []string{"cccc"}, URL: r1.URL}, false}, // another history at the same URL
		{&remote.Repository{URL: r1.URL}, r1, true},                           // no commit yet: by URL
		{&remote.Repository{URL: "https://example.com/other.git"}, r1, false},
		{&remote.Repository{}, &remote.Repository{}, false},
		{nil, r1, false},
	} {
		if got := c.x.Shares(c.y); got != c.want {
			t.Errorf("%+v shares %+v: %v, want %v", c.x, c.y, got, c.want)
		}
	}
}
