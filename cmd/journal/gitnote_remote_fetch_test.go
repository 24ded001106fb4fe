package main_test

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/journalfs/journal/journal/remote/s3test"
)

// s3Meter is a proxy in front of the S3 server that counts the requests
// and the bytes of the answers it relays.
type s3Meter struct {
	requests, bytes atomic.Int64
	url             string
}

func newS3Meter(t *testing.T, endpoint string) *s3Meter {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	m := &s3Meter{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.requests.Add(1)
		proxy.ServeHTTP(&countingWriter{ResponseWriter: w, n: &m.bytes}, r)
	}))
	t.Cleanup(srv.Close)
	m.url = srv.URL
	return m
}

// reset returns the counts so far and starts again from 0.
func (m *s3Meter) reset() (requests, bytes int64) {
	return m.requests.Swap(0), m.bytes.Swap(0)
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	c.n.Add(int64(n))
	return n, err
}

// `journal git note --remote` on a one-file commit fetches what that
// file's history needs, not the whole workspace: measured through a proxy
// in front of versitygw, its S3 requests and bytes against a full `journal
// clone` of the workspace (what it fetched before, per workspace), and the
// note it writes is the one the whole journal gives.
func TestGitNoteRemote_FetchesOnlyTheCommitsFiles(t *testing.T) {
	srv := s3test.Start(t)
	meter := newS3Meter(t, srv.Endpoint())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	bare := filepath.Join(t.TempDir(), "origin.git")
	gitEnvInAllow(t, t.TempDir(), "init", "-q", "--bare", "-b", "main", bare)

	// the developer: the agent writes 40 files (19 KiB each, an edit of
	// each besides), committed; then one line of one file, committed alone
	dev := gitRepo(t)
	gitEnvInAllow(t, dev, "remote", "add", "origin", bare)
	var files []string
	for i := range 40 {
		var b strings.Builder
		for l := range 300 { // lines that do not compress away
			fmt.Fprintf(&b, "%x\n", sha256.Sum256(fmt.Appendf(nil, "%d/%d", i, l)))
		}
		files = append(files, fmt.Sprintf("d/f%02d.txt", i), b.String())
	}
	write(t, dev, agent, files...)
	for i := 1; i < len(files); i += 2 {
		files[i] += "edited\n"
	}
	write(t, dev, agent, files...)
	gitEnvIn(t, dev, nil, "add", "-A")
	gitEnvIn(t, dev, nil, "commit", "-qm", "the agent's files")
	write(t, dev, agent, "d/f07.txt", files[15]+"one more line\n")
	gitEnvIn(t, dev, nil, "commit", "-qam", "one line")
	want := map[string]map[int]string{"d/f07.txt": {302: lA}}
	wantNote(t, dev, "HEAD", want)
	gitEnvInAllow(t, dev, "push", "-q", "origin", "main")
	ok(t, dev, "remote", "add", "team", "s3://"+s3test.Bucket+"/ci", "--endpoint", meter.url)
	m := regexp.MustCompile(`\(workspace ([0-9a-f]{32})\)`).FindStringSubmatch(ok(t, dev, "push", "team"))
	if m == nil {
		t.Fatal("push named no workspace")
	}

	// a full clone of the workspace
	meter.reset()
	ok(t, t.TempDir(), "clone", "team", "--workspace", m[1], filepath.Join(t.TempDir(), "full"))
	fullReq, fullBytes := meter.reset()

	// the CI job: the one-file commit's note
	ci := filepath.Join(t.TempDir(), "ci")
	gitEnvInAllow(t, t.TempDir(), "clone", "-q", bare, ci)
	if out := ok(t, ci, "git", "note", "--remote", "team", "HEAD"); !strings.Contains(out, "note written") {
		t.Fatalf("git note --remote: %s", out)
	}
	noteReq, noteBytes := meter.reset()
	wantNote(t, ci, "HEAD", want)
	t.Logf("S3: full clone %d requests, %d bytes; git note --remote of a one-file commit %d requests, %d bytes", fullReq, fullBytes, noteReq, noteBytes)
	if noteReq*4 > fullReq || noteBytes*4 > fullBytes {
		t.Errorf("git note --remote of a one-file commit: %d requests, %d bytes; a full clone: %d, %d (want a quarter at most)", noteReq, noteBytes, fullReq, fullBytes)
	}
}
