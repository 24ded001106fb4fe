package main_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote/s3test"
)

// Read-only credentials suffice for the team view: two checkouts of one
// git repository push (root credentials); then, with an account whose
// only rights are the bucket policy's s3:ListBucket and s3:GetObject
// (versitygw's IAM, role "user"), team log, team stats (--survival too,
// which reads the files' versions), team blame and team web's page and
// drill-down answer as they do with the root's — and the remote's objects
// are byte for byte what they were. A push with those credentials fails:
// they cannot write.
func TestTeam_ReadOnlyCredentials(t *testing.T) {
	srv := s3test.StartIAM(t)
	const roAccess, roSecret = "JOURNALREADER", "journal-reader-secret"
	srv.ReadOnly(roAccess, roSecret)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ok(t, t.TempDir(), "remote", "add", "team", "s3://"+s3test.Bucket+"/ro", "--endpoint", srv.Endpoint())
	clone := teamOrigin(t)
	a := clone()
	ea := engine(t, a)
	a1 := teamEdit(t, ea, journal.Actor{Kind: "mcp", Name: "claude-code", Session: "s", Origin: "stdio"}, "write_file", `{"call":{"model":"m1"}}`, "f.go", "1\n2\n3\n")
	ea.Close()
	gitCommitPush(t, a, "f.go")
	wa := teamPush(t, a)
	b := clone()
	eb := engine(t, b)
	teamEdit(t, eb, journal.Actor{Kind: "cli", User: "bob", Origin: "cli"}, "write_file", `{}`, "f.go", "1\n2\n3\nbob\n")
	eb.Close()
	teamPush(t, b)

	reads := [][]string{{"team", "log", "--json"}, {"team", "stats", "--json", "--survival"}, {"team", "blame", "--json", "f.go"}}
	read := func() []string {
		var out []string
		for _, args := range reads {
			out = append(out, ok(t, b, args...))
		}
		return out
	}
	page := func(base, path string) string {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s\n%s", path, resp.Status, body)
		}
		return string(body)
	}
	web := func() []string {
		_, u := startWeb(t, t.TempDir(), "team", "web", "--remote", "team")
		base := strings.TrimSuffix(u, "/")
		return []string{page(base, "/team"), page(base, fmt.Sprintf("/team/event/%s/%d", wa, a1))}
	}
	root, rootWeb := read(), web()
	if !strings.Contains(root[2], `"who":"claude-code"`) || !strings.Contains(root[2], `"who":"cli:bob"`) || !strings.Contains(root[1], `"surviving": 3`) {
		t.Fatalf("with the root's credentials:\n%s", strings.Join(root, "\n"))
	}
	if !strings.Contains(rootWeb[0], wa) || !strings.Contains(rootWeb[1], `class="diff`) {
		t.Fatalf("team web with the root's credentials:\n%s", strings.Join(rootWeb, "\n"))
	}
	before := srv.Objects(s3test.Bucket, "ro")

	t.Setenv("AWS_ACCESS_KEY_ID", roAccess)
	t.Setenv("AWS_SECRET_ACCESS_KEY", roSecret)
	got := read()
	for i := range reads {
		if got[i] != root[i] {
			t.Errorf("journal %s with read-only credentials:\n%s\nwith the root's:\n%s", strings.Join(reads[i], " "), got[i], root[i])
		}
	}
	if gotWeb := web(); !strings.Contains(gotWeb[0], wa) || !strings.Contains(gotWeb[1], `class="diff`) {
		t.Errorf("team web with read-only credentials:\n%s", strings.Join(gotWeb, "\n"))
	}
	after := srv.Objects(s3test.Bucket, "ro")
	if len(after) != len(before) {
		t.Errorf("the remote holds %d objects after reading, %d before", len(after), len(before))
	}
	for k, v := range before {
		if string(after[k]) != string(v) {
			t.Errorf("%s changed by reading", k)
		}
	}

	// the credentials cannot write: a push with them fails
	ea = engine(t, a)
	teamEdit(t, ea, journal.Actor{Kind: "cli", User: "alice", Origin: "cli"}, "write_file", `{}`, "g.go", "x\n")
	ea.Close()
	if r := run(t, a, "push", "team"); r.code == 0 || !strings.Contains(r.stderr, "AccessDenied") {
		t.Errorf("a push with read-only credentials: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
