package audit

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// FuzzDecodeEvent holds decodeEvent's fast path to encoding/json: whatever
// json v2 accepts under strictEvent, encoding/json decodes too, to an event
// with the same canonical JSON and the same export line, so a line's
// verdict in CheckExport does not depend on which decoded it.
func FuzzDecodeEvent(f *testing.F) {
	full := &journal.Event{Seq: 9, Time: time.Date(2026, 11, 28, 18, 0, 0, 123456789, time.UTC), Kind: journal.KindApply,
		Actor: journal.Actor{Kind: "mcp", Name: "c", Version: "1.2", Session: "s", User: "ünï", Host: "h", Origin: "stdio"},
		Tool:  "edit_content", Args: json.RawMessage(`{"path":"a \u00e9 😀","n":[1,2.5e3,null,true]}`),
		Files: []journal.FileChange{{Path: "a.txt", Before: snapshot.Sum([]byte("a")), After: snapshot.Sum([]byte("b")), BeforeMode: 0o644,
			AfterMode: 0o755, Added: 3, Removed: 1, MovedFrom: "b.txt", NewDirs: []string{"d", "d/e"}}},
		Reverts: 4, Undone: []uint64{8, 7}, Status: journal.StatusRolledBack, Error: "why <&>",
		Lost: &journal.Lost{First: 2, Last: 9, NextPrev: snapshot.Sum([]byte("n")), Contents: []snapshot.ID{snapshot.Sum([]byte("c"))}, Why: "damaged"},
		Prev: snapshot.Sum([]byte("p"))}
	f.Add(journal.Canonical(full))
	f.Add(journal.Canonical(&journal.Event{Seq: 1, Kind: journal.KindApply, Status: journal.StatusCommitted}))
	digest := snapshot.Sum([]byte("salted"))
	f.Add(journal.Canonical(&journal.Event{Seq: 3, Kind: journal.KindRedact, Status: journal.StatusCommitted, ArgsDigest: &digest,
		Redaction: &journal.Redaction{Events: []uint64{1, 2}, Unsalted: []uint64{1}, Contents: []snapshot.ID{digest}, Paths: []string{".env"}, Why: "a key"}}))
	for _, s := range []string{
		`{"seq":1,"SEQ":2,"time":"2026-01-01T00:00:00Z","files":null,"status":"committed","prev":"","hash":""}`,
		`{"seq":1,"seq":2,"time":"2026-01-01T00:00:00Z","files":[],"status":"committed","prev":"","hash":""}`,
		`{"Seq":1,"time":"2026-01-01T00:00:00+02:00","files":[],"status":"committed","prev":"","hash":""}`,
		`{"seq":1,"time":"2026-01-01T00:00:00+02:00","files":[],"status":"committed","prev":"","hash":""}`,
		`{"seq":1,"time":"2026-01-01t00:00:00z","files":[],"status":"committed","prev":"","hash":""}`,
		`{"seq":1,"time":"2026-01-01T00:00:00.5-07:30","files":[{"path":"x\ud800","after_mode":1e2}],"status":"committed","prev":"","hash":""}`,
		"{\"seq\":1,\"time\":\"2026-01-01T00:00:00Z\",\"tool\":\"\xff\",\"files\":[],\"status\":\"committed\",\"prev\":\"\",\"hash\":\"\"}",
		`{"seq":1,"time":null,"actor":null,"args":  { "a" : [ 1 , 2 ] } ,"files":[{"path":"x","before":null}],"lost":null,"undone":null,"status":"committed","prev":"","hash":""}`,
		`{"seq":1.0,"time":"2026-01-01T00:00:00Z","files":[],"status":"committed"}`,
		`{"seq":"1","time":"2026-01-01T00:00:00Z"}`,
		`{"seq":1,"time":"2026-01-01T00:00:00Z","args":{"a":1},"args_salt":"AAECAwQFBgcICQoLDA0ODw==","files":[],"status":"committed","prev":"","hash":""}`,
		`{"seq":1,"time":"2026-01-01T00:00:00Z","args_salt":"AAECAwQFBgcICQoLDA0ODw","files":[],"status":"committed","prev":"","hash":""}`,
		`{"seq":1,"time":"2026-01-01T00:00:00Z","args_salt":"AAECAwQFBgcI\nCQoLDA0ODw==","files":[],"status":"committed","prev":"","hash":""}`,
		`{"seq":1,"time":"2026-01-01T00:00:00Z","args_salt":"AA-_","args_digest":null,"redaction":{"events":[1],"why":"x"},"files":[],"status":"committed","prev":"","hash":""}`,
		` {"seq":18446744073709551615,"time":"2026-01-01T00:00:00Z","reverts":-1} `,
		`{"seq":1,"time":"2026-01-01T00:00:00Z","files":[{"path":"x","added":-3}],"undone":[1,2,3],"args":"a string","lost":{"first":1,"next_prev":"zz"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		e2 := new(journal.Event)
		if jsonv2.Unmarshal(raw, e2, strictEvent) != nil {
			return // decodeEvent falls back to encoding/json: nothing to compare
		}
		e1 := new(journal.Event)
		if err := json.Unmarshal(raw, e1); err != nil {
			t.Fatalf("json v2 accepts what encoding/json refuses (%v): %q", err, raw)
		}
		if c1, c2 := journal.Canonical(e1), journal.Canonical(e2); !bytes.Equal(c1, c2) {
			t.Fatalf("two readings of %q:\n%s\n%s", raw, c1, c2)
		}
		e1.Hash, e2.Hash = snapshot.Sum(raw), snapshot.Sum(raw)
		l1, err1 := exportLine(e1, raw)
		l2, err2 := exportLine(e2, raw)
		if !bytes.Equal(l1, l2) || (err1 == nil) != (err2 == nil) {
			t.Fatalf("two export lines of %q:\n%s\n%s", raw, l1, l2)
		}
	})
}
