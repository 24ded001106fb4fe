package main_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestRedact_CLI: journal redact's refusals (nothing named, no reason, a
// bad pattern, an unknown event, nothing left to take), and --path with
// --json: every version of the file and the arguments of the events that
// touched it, reported and recorded; verify then reports the redaction,
// show of the redact event says why, and redact cannot itself be reverted.
func TestRedact_CLI(t *testing.T) {
	dir := t.TempDir()
	e := engine(t, dir)
	apply(t, e, "write_file", "keep.txt", "nothing secret\n")
	apply(t, e, "write_file", "creds.txt", "password=hunter2\n")
	apply(t, e, "edit_file", "creds.txt", "password=hunter2\nuser=bob\n")
	apply(t, e, "edit_file", "keep.txt", "still nothing\n")
	e.Close()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"redact", "--why", "x"}, 2, "needs what to take out"},
		{[]string{"redact", "--path", "creds.txt"}, 2, "needs --why"},
		{[]string{"redact", "--pattern", "(", "--why", "x"}, 2, "--pattern"},
		{[]string{"redact", "x7", "--why", "x"}, 2, "not an event number"},
		{[]string{"redact", "99", "--why", "x"}, 1, "event 99 does not exist"},
		{[]string{"redact", "--pattern", "nowhere-to-be-found", "--why", "x"}, 1, "nothing the journal still holds matches"},
	} {
		r := run(t, dir, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "hint: ") && c.code == 1 {
			t.Errorf("journal %s: exit %d, want %d and %q:\n%s", strings.Join(c.args, " "), r.code, c.code, c.want, r.stderr)
		}
	}
	out := ok(t, dir, "redact", "--path", "creds.txt", "--why", "a password in a file", "--json")
	var res struct {
		Event    uint64   `json:"event"`
		Events   []uint64 `json:"events"`
		Contents []string `json:"contents"`
		Heads    []string `json:"heads_on_disk"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.Event != 5 || len(res.Events) != 2 || len(res.Contents) != 2 || len(res.Heads) != 1 || res.Heads[0] != "creds.txt" {
		t.Fatalf("redact --path --json: %s", out)
	}
	if out := ok(t, dir, "verify"); !strings.Contains(out, "1 redact event(s) (5) took out the arguments of 2 event(s) (2, 3) and 2 content(s)") {
		t.Fatalf("verify:\n%s", out)
	}
	if out := ok(t, dir, "show", "5"); !strings.Contains(out, "why      a password in a file") || !strings.Contains(out, "paths    creds.txt") {
		t.Fatalf("show 5:\n%s", out)
	}
	if out := ok(t, dir, "show", "3"); !strings.Contains(out, "(redacted by event 5)") || strings.Contains(out, "hunter2") {
		t.Fatalf("show 3:\n%s", out)
	}
	if r := run(t, dir, "revert", "5"); r.code == 0 || !strings.Contains(r.stderr, "records a redaction, which cannot be reverted") {
		t.Fatalf("revert of the redaction: exit %d\n%s", r.code, r.stderr)
	}
	if r := run(t, dir, "redact", "--path", "creds.txt", "--why", "again"); r.code != 1 || !strings.Contains(r.stderr, "nothing the journal still holds") {
		t.Fatalf("a second redaction: exit %d\n%s", r.code, r.stderr)
	}
	// the web app: the redacted versions say so, the value is nowhere
	_, url := startWeb(t, dir)
	for _, page := range []string{"/event/2", "/event/3", "/event/5", "/"} {
		resp, err := http.Get(strings.TrimSuffix(url, "/") + page)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || strings.Contains(string(body), "hunter2") || page == "/event/3" && !strings.Contains(string(body), "redacted by event 5") {
			t.Errorf("GET %s: %d\n%s", page, resp.StatusCode, body)
		}
	}
	// keep.txt's history is whole: its edit still reverts
	ok(t, dir, "revert", "4")
}
