package audit_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/journal/secrets"
	"github.com/journalfs/journal/snapshot"
)

// A private key made up for the tests (not a real one). gitleaks:allow
const testPEM = "-----BEGIN RSA PRIVATE KEY-----\n" + // gitleaks:allow (a test's made-up key)
	"MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n" +
	"VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n" +
	"LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo\n" +
	"-----END RSA PRIVATE KEY-----"

// bigSecretText is about n bytes of ordinary lines with a secret every few
// KiB (a PEM key of 5 lines, an AWS key ID), and PEM keys back to back
// around 1 MiB (from 40 KiB before to 80 KiB after), where the first piece
// a ContentReader reads ends (in its last chunk, of at most 64 KiB).
func bigSecretText(n int) []byte {
	r := rand.New(rand.NewPCG(9, 10))
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		switch {
		case b.Len() >= 1<<20-40<<10 && b.Len() < 1<<20+80<<10:
			b.WriteString("const key = `" + testPEM + "`\n")
		case i%40 == 39:
			b.WriteString("const key = `" + testPEM + "`\n")
		case i%40 == 19:
			b.WriteString("AWS_ACCESS_KEY_ID=AKIALALEMEL33243OLIB\n") // gitleaks:allow (made up)
		default:
			b.WriteString(strings.Repeat("w", r.IntN(150)) + " = ordinary(line)\n")
		}
	}
	return b.Bytes()
}

// putContent stores b and returns its ID.
func putContent(t *testing.T, j *journal.Journal, b []byte) snapshot.ID {
	t.Helper()
	var id snapshot.ID
	if err := j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) (err error) { id, err = snapshot.PutTx(tx.Bolt(), b); return err })
	}); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestContentReader_Pieces: a content of 5 MB is read in pieces of about
// 1 MiB, each in a transaction of its own, and the bytes are the content's.
func TestContentReader_Pieces(t *testing.T) {
	j := create(t)
	defer j.Close()
	b := bigSecretText(5 << 20)
	id := putContent(t, j, b)
	views := 0
	view := func(fn func(*journal.Tx) error) error { views++; return j.View(fn) }
	got, err := io.ReadAll(audit.NewContentReader(view, id))
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("read %d bytes of %d: %v", len(got), len(b), err)
	}
	if views < 5 || views > 6 {
		t.Fatalf("%d transactions for 5 MB, want 5 or 6 (a piece is 1 MiB)", views)
	}
}

// TestContentReader_GoneBetweenPieces: a chunk deleted between two pieces
// (as a gc or a redaction may) ends the read with an error, not io.EOF.
func TestContentReader_GoneBetweenPieces(t *testing.T) {
	j := create(t)
	defer j.Close()
	b := bigSecretText(3 << 20)
	id := putContent(t, j, b)
	var chunks []snapshot.ID
	if err := j.View(func(tx *journal.Tx) (err error) { chunks, _, err = snapshot.Chunks(tx.Bolt(), id); return err }); err != nil {
		t.Fatal(err)
	}
	views := 0
	view := func(fn func(*journal.Tx) error) error {
		if views++; views == 2 { // after the first piece: the last chunk goes
			if err := j.Do(func(db *journal.DB) error {
				return db.Update(func(tx *journal.Tx) error {
					last := chunks[len(chunks)-1]
					return tx.Bolt().Bucket(snapshot.BucketChunks).Delete(last[:])
				})
			}); err != nil {
				t.Fatal(err)
			}
		}
		return j.View(fn)
	}
	if _, err := io.ReadAll(audit.NewContentReader(view, id)); !errors.Is(err, snapshot.ErrNotFound) {
		t.Fatalf("read after a chunk was deleted: %v, want ErrNotFound", err)
	}
}

// TestScanSecrets_LargeContentInPieces: a content over StreamScanSize is
// scanned in pieces, and what is found is what a scan of the whole content
// finds — keys across the pieces' boundaries included.
func TestScanSecrets_LargeContentInPieces(t *testing.T) {
	j := create(t)
	defer j.Close()
	b := bigSecretText(1<<20 + 200<<10)
	if len(b) <= audit.StreamScanSize {
		t.Fatal("the content is not large enough to be read in pieces")
	}
	id := putContent(t, j, b)
	if err := j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error {
			ev := &journal.Event{Kind: journal.KindApply, Actor: journal.Actor{Kind: "mcp"}, Args: []byte(`{"path":"big.go"}`),
				Files: []journal.FileChange{{Path: "big.go", After: id}}}
			if err := tx.Append(ev); err != nil {
				return err
			}
			_, err := tx.Seal(ev.Seq, journal.StatusCommitted, "")
			return err
		})
	}); err != nil {
		t.Fatal(err)
	}
	// where the pieces end: after the first chunk that reaches each MiB
	var ends []int
	if err := j.View(func(tx *journal.Tx) error {
		ids, _, err := snapshot.Chunks(tx.Bolt(), id)
		at, piece := 0, 0
		for _, c := range ids {
			cb, err := snapshot.AppendChunk(tx.Bolt(), c, nil)
			if err != nil {
				return err
			}
			at, piece = at+len(cb), piece+len(cb)
			if piece >= 1<<20 {
				ends, piece = append(ends, at), 0
			}
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	want := secrets.ScanFile("big.go", b)
	across := 0
	for _, f := range want {
		for _, e := range ends {
			if f.Start < e && e < f.End {
				across++
			}
		}
	}
	var found map[uint64][]audit.Secret
	if err := j.View(func(tx *journal.Tx) (err error) { found, err = audit.ScanSecrets(tx); return err }); err != nil {
		t.Fatal(err)
	}
	var got []secrets.Finding
	for _, s := range found[1] {
		got = append(got, s.Finding)
	}
	if len(want) < 100 || !reflect.DeepEqual(got, want) {
		t.Fatalf("found %d secrets in pieces, %d in the whole", len(got), len(want))
	}
	if across == 0 {
		t.Fatalf("no secret straddles a piece's end %v: the test does not test it", ends)
	}
}

// TestScanSecretTexts_ViewFails: a large content whose pieces cannot be
// read for another reason than its absence (the journal busy, closed) makes
// the scan fail rather than pass the event as scanned without its secrets;
// a content gone is left unscanned, as CollectSecretTexts leaves one.
func TestScanSecretTexts_ViewFails(t *testing.T) {
	j := create(t)
	defer j.Close()
	b := bigSecretText(1<<20 + 200<<10)
	id := putContent(t, j, b)
	texts := []audit.ScanText{{Seq: 1, Paths: []string{"big.go"}, Contents: []snapshot.ID{id}, Bytes: [][]byte{nil}, Sizes: []int64{int64(len(b))}}}
	busy := errors.New("busy")
	if found, err := audit.ScanSecretTexts(nil, texts, func(func(*journal.Tx) error) error { return busy }); !errors.Is(err, busy) || found != nil {
		t.Fatalf("view failing: %v, %d events found", err, len(found))
	}
	gone := func(func(*journal.Tx) error) error { return snapshot.ErrNotFound }
	if found, err := audit.ScanSecretTexts(nil, texts, gone); err != nil || len(found) != 0 {
		t.Fatalf("content gone: %v, %+v", err, found)
	}
	if found, err := audit.ScanSecretTexts(nil, texts, j.View); err != nil || len(found[1]) < 100 {
		t.Fatalf("readable: %v, %d secrets", err, len(found[1]))
	}
}
