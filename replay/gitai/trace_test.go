package gitai_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/journalfs/journal/replay/gitai"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// traceSchema compiles Agent Trace's trace-record schema (testdata), with
// formats (uuid, date-time, uri) asserted.
func traceSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/agenttrace/trace-record.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("trace-record.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("trace-record.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validTrace validates one record's JSON against the schema.
func validTrace(t testing.TB, s *jsonschema.Schema, js []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(v); err != nil {
		t.Fatalf("not an Agent Trace record: %v\n%s", err, js)
	}
}

func TestGitTrace_ValidAgainstSchema(t *testing.T) {
	r := newHistoryRepo(t)
	s := traceSchema(t)
	recs, err := r.reader().Trace(context.Background(), gitai.TraceOptions{Generator: "journal test"}, r.a, r.c)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	for _, rec := range recs {
		js, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		validTrace(t, s, js)
	}
	a := recs[0]
	if a.VCS.Revision != r.a || a.Timestamp != "2026-01-02T03:04:01Z" || len(a.Files) != 3 {
		t.Fatalf("%+v", a)
	}
	app := a.Files[2]
	if app.Path != "src/app.py" || len(app.Conversations) != 2 {
		t.Fatalf("%+v", app)
	}
	ai, human := app.Conversations[0], app.Conversations[1]
	if ai.Contributor.Type != "ai" || ai.Contributor.ModelID != "anthropic/claude-sonnet-4-5" || ai.Ranges[0].StartLine != 1 || ai.Ranges[0].EndLine != 3 ||
		ai.Related[0].URL != "urn:git-ai:session:"+sessClaude || ai.Related[1].URL != "urn:git-ai:trace:"+trace1 {
		t.Errorf("ai %+v", ai)
	}
	sum := sha256.Sum256([]byte("one\ntwo\nthree\n"))
	if ai.Ranges[0].ContentHash != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("content hash %s", ai.Ranges[0].ContentHash)
	}
	if human.Contributor.Type != "human" || human.Ranges[0].StartLine != 4 || human.Ranges[0].EndLine != 4 {
		t.Errorf("human %+v", human)
	}
	// the same note gives the same record
	again, err := r.reader().Trace(context.Background(), gitai.TraceOptions{Generator: "journal test"}, r.a)
	if err != nil {
		t.Fatal(err)
	}
	if again[0].ID != a.ID || a.ID == recs[1].ID {
		t.Errorf("ids %s %s %s", a.ID, again[0].ID, recs[1].ID)
	}
}

func TestGitTrace_NoNote(t *testing.T) {
	r := newHistoryRepo(t)
	if _, err := r.reader().Trace(context.Background(), gitai.TraceOptions{}, r.b); !errors.Is(err, gitai.ErrNoNote) {
		t.Fatalf("%v", err)
	}
}

// The schema check itself refuses what is not a record.
func TestGitTrace_SchemaRefuses(t *testing.T) {
	s := traceSchema(t)
	for _, bad := range []string{
		`{"version":"0.1.0","id":"550e8400-e29b-41d4-a716-446655440000","timestamp":"2026-01-25T10:00:00Z","files":[]}`,
		`{"version":"0.1","id":"not-a-uuid","timestamp":"2026-01-25T10:00:00Z","files":[]}`,
		`{"version":"0.1","id":"550e8400-e29b-41d4-a716-446655440000","timestamp":"2026-01-25T10:00:00+01:00","files":[]}`,
		`{"version":"0.1","id":"550e8400-e29b-41d4-a716-446655440000","timestamp":"2026-01-25T10:00:00Z","files":[{"path":"a","conversations":[{"ranges":[],"extra":1}]}]}`,
	} {
		v, _ := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(bad)))
		if s.Validate(v) == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}
