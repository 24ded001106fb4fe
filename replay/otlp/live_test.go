package otlp

import (
	"context"
	"testing"
	"time"

	"github.com/journalfs/journal/journal/journaltest"
	"github.com/journalfs/journal/replay/otlp/otlptest"
)

// Live over a journal of 3,000 events (three read transactions' worth):
// it reads them for their sessions, sends none of them, and sends the
// events appended after it started — each tool span as read, the
// session's root span when it closes — to a real collector.
func TestLive_SendsOnlyNewEvents(t *testing.T) {
	col := otlptest.Start(t)
	j := journaltest.Create(t)
	journaltest.Timed(t, j, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 3000)
	l, err := StartLive(context.Background(), j, col.URL, LiveOptions{Idle: time.Hour, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	waitSeen := func(n uint64) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); l.Status().Seen < n; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("Live read to %d, want %d", l.Status().Seen, n)
			}
		}
	}
	waitSeen(3000)
	journaltest.AppendN(t, j, 5, "s-new")
	waitSeen(3005)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	spans, raw := col.WaitSpans(6)
	tools := 0
	for _, s := range spans {
		if s.Attr("gen_ai.conversation.id") != "s-new" {
			t.Errorf("a span of an event before Live started: %s %s", s.Name, s.Attr("gen_ai.conversation.id"))
		}
		if s.Attr("gen_ai.operation.name") == "execute_tool" {
			tools++
		}
	}
	if len(spans) != 6 || tools != 5 || spans[5].Name != "invoke_agent" || spans[5].Attr("gen_ai.agent.id") != "" {
		t.Errorf("%d spans, %d of tools; want 6 and 5:\n%s", len(spans), tools, raw)
	}
	if st := l.Status(); st.Sent != 6 || st.Dropped != 0 || st.Failed != 0 || !st.Stopped {
		t.Errorf("status %+v", st)
	}
}
