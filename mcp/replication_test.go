package mcp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/journal/remote"
	"github.com/journalfs/journal/journal/remote/s3test"
	jmcp "github.com/journalfs/journal/mcp"
)

// TestStatus_Replication: journal_status reports a continuous replication
// to a real S3 server (versitygw): up to date while it runs, behind with
// the error while the server is down.
func TestStatus_Replication(t *testing.T) {
	srv := s3test.Start(t)
	e := newEnv(t, jmcp.Options{})
	r := remote.Remote{Name: "team", URL: "s3://" + s3test.Bucket + "/mcp", Endpoint: srv.Endpoint()}
	c, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		remote.Replicate(c, r, e.eng.Journal(), remote.ReplicateOptions{Poll: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
	}()
	defer func() { cancel(); <-done }()
	create := func(i int) {
		e.ok("file_create_new", map[string]any{"ops": []map[string]any{{"path": fmt.Sprintf("f%d.txt", i), "content": "x\n"}}}, nil)
	}
	status := func(want func(jmcp.StatusOut, string) bool) (jmcp.StatusOut, string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			var st jmcp.StatusOut
			txt := e.ok("journal_status", map[string]any{}, &st)
			if want(st, txt) {
				return st, txt
			}
			if time.Now().After(deadline) {
				t.Fatalf("journal_status did not come round:\n%s", txt)
			}
		}
	}
	for i := range 3 {
		create(i)
	}
	st, _ := status(func(st jmcp.StatusOut, txt string) bool {
		return len(st.Replication) == 1 && st.Replication[0].Pushed == 3 && strings.Contains(txt, "replication to team: up to date (event 3)")
	})
	if st.Replication[0].Behind != 0 || st.Replication[0].Workspace == "" {
		t.Fatalf("replication %+v", st.Replication)
	}
	srv.Kill()
	create(3)
	create(4)
	st, txt := status(func(st jmcp.StatusOut, txt string) bool {
		return len(st.Replication) == 1 && st.Replication[0].Behind == 2 && st.Replication[0].Error != ""
	})
	if !strings.Contains(txt, "replication to team: 2 event(s) behind") || !strings.Contains(txt, "does not answer") || st.Replication[0].LagMS <= 0 {
		t.Fatalf("status during the outage:\n%s\n%+v", txt, st.Replication)
	}
}
