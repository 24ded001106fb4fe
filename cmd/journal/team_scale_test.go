package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote"
	"github.com/journalfs/journal/journal/remote/s3test"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// teamScaleStart is the time of the scale journals' first event.
var teamScaleStart = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// teamScaleJournal brings workspace k's journal of a team of w workspaces
// (dir) up to n events, written straight through journal.Tx as the engine
// writes them: every tenth event an agent's prompt (its hook), the nine
// after it the agent's edits serving it (its MCP calls), each a new
// version of one of 20 small Go files. Event i of workspace k is made at
// start + i·w + k seconds, so the workspaces' timelines interleave. The
// versions cycle through a few contents, the same in every workspace (one
// copy on the remote).
func teamScaleJournal(t testing.TB, dir string, k, w, n int) *journal.Journal {
	t.Helper()
	j, err := journal.Open(filepath.Join(dir, journal.DirName, journal.FileName), journal.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	hook := journal.Actor{Kind: "agent", Name: "claude-code", Session: fmt.Sprintf("s%d", k), Origin: "hook", Host: fmt.Sprintf("m%d", k%7)}
	mcp := journal.Actor{Kind: "mcp", Name: "claude-code", Session: fmt.Sprintf("m%d", k), Origin: "stdio", Host: hook.Host}
	var last uint64
	if err := j.View(func(tx *journal.Tx) error { last = tx.Last(); return nil }); err != nil {
		t.Fatal(err)
	}
	content := func(f, v int) []byte {
		return fmt.Appendf(nil, "package f%d\n\n// version %d\nfunc F() int { return %d }\n", f, v, v)
	}
	for i := int(last) + 1; i <= n; {
		err := j.Do(func(db *journal.DB) error {
			return db.Update(func(tx *journal.Tx) error {
				for end := min(i+5000, n+1); i < end; i++ {
					at := teamScaleStart.Add(time.Duration(i*w+k) * time.Second)
					p := i - (i-1)%10 // the prompt this event serves
					if i == p {
						args, _ := json.Marshal(replay.PromptArgs{ID: fmt.Sprintf("p%d-%d", k, p), Text: fmt.Sprintf("task %d of workspace %d", p, k), Model: "claude-opus-4", Event: "UserPromptSubmit"})
						if err := tx.Append(&journal.Event{Time: at, Kind: journal.KindPrompt, Status: journal.StatusCommitted, Actor: hook, Tool: replay.ToolPrompt, Args: args, Files: []journal.FileChange{}}); err != nil {
							return err
						}
						continue
					}
					f, v := i%20, (i/20)%4
					path := fmt.Sprintf("src/f%02d.go", f)
					after, err := snapshot.PutTx(tx.Bolt(), content(f, v))
					if err != nil {
						return err
					}
					var before snapshot.ID
					if i > 20 {
						before = snapshot.Sum(content(f, ((i-20)/20)%4))
					}
					args := fmt.Sprintf(`{"call":{"session":%q,"prompt":"p%d-%d"},"path":%q}`, hook.Session, k, p, path)
					if err := tx.Append(&journal.Event{Time: at, Kind: journal.KindApply, Status: journal.StatusCommitted, Actor: mcp, Tool: "edit_file",
						Args: []byte(args), Files: []journal.FileChange{{Path: path, Before: before, After: after, AfterMode: 0o644, Added: 1, Removed: 1}}}); err != nil {
						return err
					}
				}
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return j
}

// teamScaleRemote makes w workspaces of n events each on store s (as many
// pushes as the workspaces, each the real push: segments, index pages,
// contents) and returns the journals' directories. With dirs given, it
// brings those journals up to n events and pushes them again. keep false
// removes each journal once pushed (the full-scale run's disk).
func teamScaleRemote(t testing.TB, s *remote.Store, dirs []string, w, n int, keep bool) []string {
	t.Helper()
	if dirs == nil {
		dirs = make([]string, w)
		for k := range dirs {
			dirs[k] = t.TempDir()
		}
	}
	for k, d := range dirs {
		j := teamScaleJournal(t, d, k, w, n)
		rep, err := remote.Push(context.Background(), s, j, remote.PushOptions{})
		if err != nil || rep.Head != uint64(n) {
			t.Fatalf("push of workspace %d: %+v %v", k, rep, err)
		}
		j.Close()
		if !keep {
			os.RemoveAll(filepath.Join(d, journal.DirName))
		}
	}
	return dirs
}

// teamScaleServer starts versitygw and a proxy counting its requests, adds
// the proxy as remote "team" for the binary, and returns the store (not
// counted) the test builds the remote through.
func teamScaleServer(t *testing.T) (*remote.Store, *s3Meter) {
	t.Helper()
	srv := s3test.Start(t)
	meter := newS3Meter(t, srv.Endpoint())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ok(t, t.TempDir(), "remote", "add", "team", "s3://"+s3test.Bucket+"/scale", "--endpoint", meter.url)
	s, err := remote.Open(context.Background(), remote.Remote{Name: "team", URL: "s3://" + s3test.Bucket + "/scale", Endpoint: srv.Endpoint()})
	if err != nil {
		t.Fatal(err)
	}
	return s, meter
}

// teamScaleRun runs `journal team log -n 20` and returns its output, wall
// time, peak RSS and S3 requests. The peak is GNU time's (/usr/bin/time,
// which forks the binary): a child Go starts inherits the test process's
// high-water mark in its rusage (os/exec clones with CLONE_VM).
func teamScaleRun(t testing.TB, meter *s3Meter) (lines []string, wall time.Duration, rssKiB int64, requests int64) {
	t.Helper()
	meter.reset()
	rss := filepath.Join(t.TempDir(), "rss")
	cmd := exec.Command("/usr/bin/time", "-f", "%M", "-o", rss, bin, "team", "log", "-n", "20")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "JOURNAL_TZ=UTC", "NO_COLOR=1", "PAGER=cat")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	wall = time.Since(start)
	requests, _ = meter.reset()
	if err != nil || errb.Len() > 0 {
		t.Fatalf("team log -n 20: %v\n%s%s", err, out.String(), errb.String())
	}
	b, err := os.ReadFile(rss)
	if err != nil {
		t.Fatal(err)
	}
	if rssKiB, err = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err != nil {
		t.Fatalf("/usr/bin/time: %q: %v", b, err)
	}
	return strings.Split(strings.TrimSpace(out.String()), "\n"), wall, rssKiB, requests
}

// teamScaleCheck checks team log -n 20's lines over w workspaces of n
// events each: the 20 newest events of all of them, newest first — the
// last event of every workspace, from the last one's, then the one before
// — each naming its model and its prompt.
func teamScaleCheck(t testing.TB, lines []string, w, n int) {
	t.Helper()
	if len(lines) != 20 {
		t.Fatalf("team log -n 20: %d lines:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for x, l := range lines {
		i, k := n-x/w, w-1-x%w // the x-th newest: event i of workspace k
		at := teamScaleStart.Add(time.Duration(i*w+k) * time.Second).Format("2006-01-02 15:04:05")
		p := i - (i-1)%10
		want := " " + strconv.Itoa(i) + " " + at + " "
		if !strings.Contains(l, want) || i != p && (!strings.Contains(l, "[claude-opus-4]") || !strings.Contains(l, fmt.Sprintf("task %d of workspace %d", p, k))) {
			t.Errorf("team log -n 20, line %d: %q, want event %d at %s of workspace %d, its model and prompt %d", x+1, l, i, at, k, p)
		}
	}
}

// The merged timeline's first page reads the same S3 requests whatever the
// events each workspace holds: four workspaces of 100 events each, then the
// same four grown to 10,000 each (pushed again), `journal team log -n 20`
// through a proxy in front of versitygw counting its requests — the
// bucket and the remote's marker, one listing, then each workspace's head, index and newest page. Its output is
// the 20 newest events of all four, interleaved, each with its model and
// prompt.
func TestTeam_LogScaleRequestsFlat(t *testing.T) {
	s, meter := teamScaleServer(t)
	const w = 4
	dirs := teamScaleRemote(t, s, nil, w, 100, true)
	lines, _, _, small := teamScaleRun(t, meter)
	teamScaleCheck(t, lines, w, 100)
	teamScaleRemote(t, s, dirs, w, 10000, true)
	lines, wall, rss, large := teamScaleRun(t, meter)
	teamScaleCheck(t, lines, w, 10000)
	t.Logf("team log -n 20 over %d workspaces: %d S3 requests with 100 events each, %d with 10,000 (%v, peak RSS %d KiB)", w, small, large, wall, rss)
	if want := int64(3 + 3*w); small != want || large != want {
		t.Errorf("team log -n 20: %d S3 requests with 100 events per workspace, %d with 10,000; want %d (the bucket and its marker, a listing, then head, index and newest page of each)", small, large, want)
	}
}

// The scale: 100 workspaces × 10,000 events on one remote (a
// million events; building it takes minutes, so it runs only with
// JOURNAL_TEAM_SCALE=1). `journal team log -n 20` must take at most 2 s
// and 128 MiB (the process's peak RSS), reading 3 + 3 × 100 requests.
//
//	JOURNAL_TEAM_SCALE=1 go test ./cmd/journal -run TestTeam_LogScale100x10k -v -timeout 60m
func TestTeam_LogScale100x10k(t *testing.T) {
	if os.Getenv("JOURNAL_TEAM_SCALE") == "" {
		t.Skip("the full scale (100 workspaces × 10,000 events) runs with JOURNAL_TEAM_SCALE=1")
	}
	s, meter := teamScaleServer(t)
	const w, n = 100, 10000
	start := time.Now()
	teamScaleRemote(t, s, nil, w, n, false)
	t.Logf("built the remote: %d workspaces × %d events in %v", w, n, time.Since(start).Round(time.Second))
	for run := range 3 {
		lines, wall, rss, requests := teamScaleRun(t, meter)
		teamScaleCheck(t, lines, w, n)
		t.Logf("run %d: team log -n 20: %v wall, peak RSS %.1f MiB, %d S3 requests", run+1, wall.Round(time.Millisecond), float64(rss)/1024, requests)
		if wall > 2*time.Second || rss > 128*1024 || requests != 3+3*w {
			t.Errorf("team log -n 20 over %d × %d events: %v, %d KiB, %d requests; want ≤ 2 s, ≤ 128 MiB, %d requests", w, n, wall, rss, requests, 3+3*w)
		}
	}
}

// An index that names the head's event but holds no page (altered through
// the S3 API), beside another workspace's: team log -n 5 reads the
// workspace from its segments, says so, and shows the newest events of
// both (it panicked on the empty run of events the index gave, once the
// other workspace had set the cut).
func TestTeam_LogIndexWithoutPages(t *testing.T) {
	srv := s3test.Start(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ok(t, t.TempDir(), "remote", "add", "team", "s3://"+s3test.Bucket+"/np", "--endpoint", srv.Endpoint())
	var ws string
	for k := range 2 { // the other workspace's newest page sets the cut
		dir := t.TempDir()
		teamScaleJournal(t, dir, k, 2, 30).Close()
		ws = teamPush(t, dir)
	}
	key := "np/workspaces/" + ws + "/index.json"
	b, err := os.ReadFile(srv.Object(key))
	if err != nil {
		t.Fatal(err)
	}
	var ix map[string]any
	if err := json.Unmarshal(b, &ix); err != nil {
		t.Fatal(err)
	}
	ix["pages"] = []any{}
	b, _ = json.Marshal(ix)
	if _, err := srv.Client().PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(s3test.Bucket), Key: aws.String(key), Body: bytes.NewReader(b)}); err != nil {
		t.Fatal(err)
	}
	r := run(t, t.TempDir(), "team", "log", "-n", "5")
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); r.code != 0 || len(lines) != 5 || !strings.HasPrefix(lines[0], ws[:8]+" 30 ") || !strings.Contains(r.stderr, "read from its segments") {
		t.Errorf("team log -n 5 over an index without pages: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
