package remote

import (
	"context"
	"errors"
	"testing"

	"github.com/journalfs/journal/journal/remote/s3test"
)

// TestPutHead_Conditional: the server takes a workspace's head only over the
// version a writer read (If-Match) or as a new object (If-None-Match): a
// writer holding a stale ETag, or creating a head that exists, is refused.
func TestPutHead_Conditional(t *testing.T) {
	srv := s3test.Start(t)
	s, err := Open(context.Background(), Remote{Name: "t", URL: "s3://" + s3test.Bucket + "/p", Endpoint: srv.Endpoint()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e1, err := s.putHead(ctx, "ws", []byte(`{"v":1}`), "")
	if err != nil || e1 == "" {
		t.Fatalf("create: %q %v", e1, err)
	}
	if _, err := s.putHead(ctx, "ws", []byte(`{"v":"other"}`), ""); !errors.Is(err, ErrConflict) {
		t.Fatalf("a second create: %v", err)
	}
	e2, err := s.putHead(ctx, "ws", []byte(`{"v":2}`), e1)
	if err != nil || e2 == e1 {
		t.Fatalf("update: %q %v", e2, err)
	}
	if _, err := s.putHead(ctx, "ws", []byte(`{"v":"stale"}`), e1); !errors.Is(err, ErrConflict) {
		t.Fatalf("an update over a stale ETag: %v", err)
	}
	b, _, err := s.get(ctx, headKey("ws"))
	if err != nil || string(b) != `{"v":2}` {
		t.Fatalf("the head: %s %v", b, err)
	}
}
