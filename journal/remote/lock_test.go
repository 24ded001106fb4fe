package remote

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote/s3test"
	"github.com/journalfs/journal/replay"
)

// TestPush_Retain: with --retain, every chunk, content and segment a push
// writes is under Object Lock (compliance) until then, and cannot be
// deleted; the head moves as before. A bucket without Object Lock is
// refused when the remote is opened.
func TestPush_Retain(t *testing.T) {
	srv := s3test.StartLocked(t)
	ctx := context.Background()
	if _, err := Open(ctx, Remote{Name: "plain", URL: "s3://" + s3test.Bucket + "/x", Endpoint: srv.Endpoint(), Retain: "7y"}); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "does not have it enabled") {
		t.Fatalf("retain on a bucket without Object Lock: %v", err)
	}
	s, err := Open(ctx, Remote{Name: "audit", URL: "s3://" + s3test.LockedBucket + "/audit", Endpoint: srv.Endpoint(), Retain: "2d"})
	if err != nil {
		t.Fatal(err)
	}
	_, e := newEngine(t)
	for i := range 3 {
		if _, err := e.Apply(ctx, &replay.Batch{Tool: "file_create_new", Changes: []replay.Change{{Path: fmt.Sprintf("f%d.txt", i), Data: []byte(fmt.Sprintf("file %d\n", i))}}}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Push(ctx, s, e.Journal(), PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := s.list(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var locked int
	for _, k := range keys {
		h, err := s.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(s.key(k))})
		if err != nil {
			t.Fatal(k, err)
		}
		if strings.HasSuffix(k, "/head.json") || strings.HasSuffix(k, "/index.json") { // they move
			if h.ObjectLockMode != "" {
				t.Fatalf("the head is locked: %s", h.ObjectLockMode)
			}
			continue
		}
		until := aws.ToTime(h.ObjectLockRetainUntilDate)
		if h.ObjectLockMode != types.ObjectLockModeCompliance || until.Before(time.Now().Add(47*time.Hour)) || until.After(time.Now().Add(49*time.Hour)) {
			t.Fatalf("%s: lock %q until %v", k, h.ObjectLockMode, until)
		}
		if _, err := s.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(s.key(k)), VersionId: h.VersionId}); err == nil {
			t.Fatalf("%s: a locked version was deleted", k)
		}
		locked++
	}
	if locked < 4 || rep.To != 3 { // 3 chunks (each file is one chunk: no manifest), 1 segment
		t.Fatalf("%d objects locked; push %+v", locked, rep)
	}
	// the head still moves; the clone is whole
	if _, err := e.Apply(ctx, &replay.Batch{Tool: "file_create_new", Changes: []replay.Change{{Path: "g.txt", Data: []byte("g\n")}}}); err != nil {
		t.Fatal(err)
	}
	if rep, err := Push(ctx, s, e.Journal(), PushOptions{}); err != nil || rep.To != 4 {
		t.Fatalf("second push: %+v %v", rep, err)
	}
	var ws string
	e.Journal().View(func(tx *journal.Tx) error { ws = tx.Workspace(); return nil })
	if _, err := Clone(ctx, s, ws, filepath.Join(t.TempDir(), "c"), CloneOptions{}); err != nil {
		t.Fatal(err)
	}
}

// newEngine opens a replay engine on a new workspace, closed when the
// test ends.
func newEngine(t *testing.T) (string, *replay.Engine) {
	t.Helper()
	dir := t.TempDir()
	e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: journal.Actor{Kind: "mcp", Name: "agent", Session: "s"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return dir, e
}
