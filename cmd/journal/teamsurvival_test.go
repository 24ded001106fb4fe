package main_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote/s3test"
	"github.com/journalfs/journal/replay"
)

// On A claude-code writes four lines, alice rewrites one of them and adds
// one, claude-code adds another; on B codex writes g.go (three lines) and
// h.go, which bob reverts. `journal team stats --survival` counts, per
// author and model, the lines each workspace's latest files still hold:
// claude-code 4 of its 5, alice both of hers, codex the 3 of g.go and none
// of h.go (reverted) — in JSON, CSV and text; without --survival there is
// no such figure. An altered segment of B's is named, and B's lines not
// counted.
func TestTeam_StatsSurvival(t *testing.T) {
	srv := s3test.Start(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ctx := context.Background()
	claude := journal.Actor{Kind: "mcp", Name: "claude-code", Session: "a", Origin: "stdio"}
	codex := journal.Actor{Kind: "mcp", Name: "codex", Session: "b", Origin: "stdio"}
	alice := journal.Actor{Kind: "cli", User: "alice", Origin: "cli"}
	bob := journal.Actor{Kind: "cli", User: "bob", Origin: "cli"}
	a := t.TempDir()
	ea := engine(t, a)
	teamEdit(t, ea, claude, "write_file", `{"call":{"model":"m1"}}`, "f.go", "a\nb\nc\nd\n")           // +4
	teamEdit(t, ea, alice, "write_file", `{}`, "f.go", "a\nB\nc\nd\nalice\n")                          // +2 -1
	teamEdit(t, ea, claude, "write_file", `{"call":{"model":"m1"}}`, "f.go", "a\nB\nc\nd\nalice\ne\n") // +1
	ea.Close()
	b := t.TempDir()
	eb := engine(t, b)
	teamEdit(t, eb, codex, "write_file", `{"call":{"model":"m2"}}`, "g.go", "1\n2\n3\n") // +3
	h := teamEdit(t, eb, codex, "write_file", `{"call":{"model":"m2"}}`, "h.go", "x\n")  // +1
	if _, err := eb.Revert(ctx, h, replay.RevertOptions{Actor: &bob}); err != nil {
		t.Fatal(err)
	}
	eb.Close()
	ok(t, a, "remote", "add", "team", "s3://"+s3test.Bucket+"/s", "--endpoint", srv.Endpoint())
	teamPush(t, a)
	wb := teamPush(t, b)

	var s struct{ Rows, Totals json.RawMessage }
	if err := json.Unmarshal([]byte(ok(t, t.TempDir(), "team", "stats", "--json", "--survival")), &s); err != nil {
		t.Fatal(err)
	}
	want := jsonCompact(`[{"author":"claude-code","kind":"agent","model":"m1","events":2,"added":5,"removed":0,"reverted":0,"undone":0,"surviving":4},` +
		`{"author":"cli:alice","kind":"person","events":1,"added":2,"removed":1,"reverted":0,"undone":0,"surviving":2},` +
		`{"author":"codex","kind":"agent","model":"m2","events":2,"added":4,"removed":0,"reverted":1,"undone":0,"surviving":3}]`)
	if got := jsonCompact(string(s.Totals)); got != want {
		t.Errorf("team stats --survival totals:\n%s\nwant\n%s", got, want)
	}
	if got := ok(t, t.TempDir(), "team", "stats", "--json"); strings.Contains(got, "surviving") {
		t.Errorf("team stats without --survival counts surviving lines:\n%s", got)
	}
	recs, err := csv.NewReader(strings.NewReader(ok(t, t.TempDir(), "team", "stats", "--csv", "--survival", "--agent", "codex"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || strings.Join(recs[0], ",") != "day,workspace,repository,author,kind,model,events,added,removed,reverted,undone,surviving" ||
		strings.Join(recs[1][3:], ",") != "codex,agent,m2,2,4,0,1,0,3" {
		t.Errorf("team stats --csv --survival --agent codex: %v", recs)
	}
	if text := ok(t, t.TempDir(), "team", "stats", "--survival"); !strings.Contains(text, "reverted 0, undone 0, surviving 4\n") || !strings.Contains(text, "reverted 1, undone 0, surviving 3\n") {
		t.Errorf("team stats --survival:\n%s", text)
	}

	// B's segment altered (the index intact): named, exit status 1, and
	// none of B's lines counted as surviving
	seg := alterSegment(t, srv, "s", wb)
	r := run(t, t.TempDir(), "team", "stats", "--json", "--survival", "--agent", "codex")
	if r.code != 1 || !strings.Contains(r.stderr, seg) || !strings.Contains(r.stdout, `"surviving": 0`) || strings.Contains(r.stdout, `"surviving": 3`) {
		t.Errorf("team stats --survival over B's altered segment: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
