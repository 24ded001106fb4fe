package remote_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote"
	"github.com/journalfs/journal/journal/remote/s3test"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
	"github.com/klauspost/compress/zstd"
)

// secret is an AWS secret access key an agent writes into .env (AWS's
// documentation example: no real key).
const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

// sealedStore opens the encrypted remote "sealed": data under
// s3://journal-test/<prefix>, keys in s3://journal-keys/<prefix>.
func sealedStore(t testing.TB, srv *s3test.Server, prefix string) *remote.Store {
	t.Helper()
	s, err := remote.Open(ctx, remote.Remote{Name: "sealed", URL: "s3://" + s3test.Bucket + "/" + prefix, Endpoint: srv.Endpoint(),
		Keys: "s3://" + s3test.KeysBucket + "/" + prefix})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// secretWorkspace is a workspace of the repository's files where an agent
// then writes the secret into .env (the secret in the event's arguments
// too), and a large file of many chunks that holds it in its middle.
func secretWorkspace(t testing.TB, name string) (string, *replay.Engine, snapshot.ID, snapshot.ID) {
	t.Helper()
	dir, e := workspace(t, name, 20, nil)
	env := "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=" + secret + "\n"
	if _, err := e.Apply(ctx, &replay.Batch{Tool: "file_create_new", Args: []byte(fmt.Sprintf(`{"path":".env","content":%q}`, env)),
		Changes: []replay.Change{{Path: ".env", Data: []byte(env)}}}); err != nil {
		t.Fatal(err)
	}
	var big strings.Builder
	for i := 0; big.Len() < 300<<10; i++ {
		if i == 3000 {
			big.WriteString("secret = \"" + secret + "\"\n")
		}
		fmt.Fprintf(&big, "line %d of a file of many chunks %x\n", i, i*7919)
	}
	if _, err := e.Apply(ctx, &replay.Batch{Tool: "file_create_new", Changes: []replay.Change{{Path: "config/big.txt", Data: []byte(big.String())}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Apply(ctx, &replay.Batch{Tool: "edit_content", Args: []byte(`{"path":"notes.md"}`),
		Changes: []replay.Change{{Path: "notes.md", Data: []byte("# notes\n")}}}); err != nil {
		t.Fatal(err)
	}
	return dir, e, snapshot.Sum([]byte(env)), snapshot.Sum([]byte(big.String()))
}

// holding returns the objects whose bytes, or their zstd decoding, hold
// any of the needles.
func holding(objects map[string][]byte, needles ...string) []string {
	d, _ := zstd.NewReader(nil)
	defer d.Close()
	var out []string
	for k, b := range objects {
		plain, _ := d.DecodeAll(b, nil)
		for _, n := range needles {
			if bytes.Contains(b, []byte(n)) || bytes.Contains(plain, []byte(n)) {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// TestPushClone_Encrypted: a workspace with a secret in .env (and in the
// event's arguments) pushed to an encrypted remote: no object of the data
// bucket or the key store holds the secret or a line of a known file,
// where the same push to a plain remote shows both; the clone is
// identical and verify passes; a second workspace of the same repository
// stores none of its files again; the remote opened without its key store
// is refused.
func TestPushClone_Encrypted(t *testing.T) {
	srv := s3test.Start(t)
	dir, e, _, _ := secretWorkspace(t, "enc")
	known := []string{secret, "// file 3, line 17: as long as the lines", "line 2000 of a file of many chunks"}

	plain := store(t, srv)
	if _, err := remote.Push(ctx, plain, e.Journal(), remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := holding(srv.Versions(s3test.Bucket, "team/"), known...); len(got) < 3 {
		t.Fatalf("the control failed: the plain remote shows the known bytes in only %v", got)
	}

	s := sealedStore(t, srv, "enc")
	rep, err := remote.Push(ctx, s, e.Journal(), remote.PushOptions{SegmentEvents: 10})
	if err != nil || rep.To != 24 || rep.Segments != 3 {
		t.Fatalf("push: %+v %v", rep, err)
	}
	data := srv.Versions(s3test.Bucket, "enc/")
	keys := srv.Versions(s3test.KeysBucket, "enc/")
	if len(data) < 30 || len(keys) != 3 {
		t.Fatalf("%d data objects, %d key files", len(data), len(keys))
	}
	if got := holding(data, known...); len(got) > 0 {
		t.Fatalf("objects of the encrypted remote hold plaintext: %v", got)
	}
	if got := holding(keys, known...); len(got) > 0 {
		t.Fatalf("key files hold plaintext: %v", got)
	}
	ws := workspaceID(t, dir)
	vr, err := remote.Verify(ctx, s, "")
	if err != nil || !vr.OK() || vr.Events != 24 || vr.Contents < 30 || vr.Unreadable != 0 {
		t.Fatalf("verify: %+v %v", vr, err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	cr, err := remote.Clone(ctx, s, ws, clone, remote.CloneOptions{})
	if err != nil || len(cr.Withheld) != 0 {
		t.Fatalf("clone: %+v %v", cr, err)
	}
	if fmt.Sprint(files(t, clone)) != fmt.Sprint(files(t, dir)) {
		t.Fatal("the clone's files differ")
	}
	if a, b := events(t, dir), events(t, clone); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("events differ:\n%v\n%v", a, b)
	}
	if a, b := eventArgs(t, dir), eventArgs(t, clone); a != b || !strings.Contains(a, secret) {
		t.Fatalf("the clone's arguments differ:\n%s\n---\n%s", a, b)
	}

	// a second workspace of the repository: its files are there already
	_, e2 := workspace(t, "enc2", 5, nil)
	rep2, err := remote.Push(ctx, s, e2.Journal(), remote.PushOptions{})
	if err != nil || rep2.ContentsThere < 10 {
		t.Fatalf("second workspace: %+v %v", rep2, err)
	}
	if vr, err := remote.Verify(ctx, s, ""); err != nil || !vr.OK() || len(vr.Workspaces) != 2 {
		t.Fatalf("verify: %+v %v", vr, err)
	}

	// without its key store, the remote is refused; so is a key store in
	// the data bucket, and an encrypted remote over plain objects
	_, err = remote.Open(ctx, remote.Remote{Name: "nokeys", URL: "s3://" + s3test.Bucket + "/enc", Endpoint: srv.Endpoint()})
	if !errors.Is(err, remote.ErrUsage) || !strings.Contains(err.Error(), "is an encrypted remote: add it with --keys s3://"+s3test.KeysBucket+"/enc") {
		t.Fatalf("open without keys: %v", err)
	}
	_, err = remote.Open(ctx, remote.Remote{Name: "same", URL: "s3://" + s3test.Bucket + "/x", Endpoint: srv.Endpoint(), Keys: "s3://" + s3test.Bucket + "/keys"})
	if !errors.Is(err, remote.ErrUsage) || !strings.Contains(err.Error(), "keys must be kept outside it") {
		t.Fatalf("keys in the data bucket: %v", err)
	}
	_, err = remote.Open(ctx, remote.Remote{Name: "over", URL: "s3://" + s3test.Bucket + "/team", Endpoint: srv.Endpoint(), Keys: "s3://" + s3test.KeysBucket + "/team"})
	if !errors.Is(err, remote.ErrUsage) || !strings.Contains(err.Error(), "holds objects pushed unencrypted") {
		t.Fatalf("encrypted over plain objects: %v", err)
	}
}

// eventArgs lists the arguments of a journal's events.
func eventArgs(t testing.TB, dir string) string {
	t.Helper()
	var out strings.Builder
	for _, e := range journalEvents(t, dir) {
		fmt.Fprintf(&out, "%d %s\n", e.Seq, e.Args)
	}
	return out.String()
}

// TestPush_EncryptedRollUp: 40 pushes of one event each to an encrypted
// remote (as continuous replication makes them) leave their small
// segments rolled into one with its key file; the rolled-away key files
// are gone from the key store; verify and clone are whole.
func TestPush_EncryptedRollUp(t *testing.T) {
	srv := s3test.Start(t)
	s := sealedStore(t, srv, "roll")
	dir, e := workspace(t, "roll", 0, nil)
	if _, err := remote.Push(ctx, s, e.Journal(), remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	rolled := 0
	for i := range 40 {
		if _, err := e.Apply(ctx, &replay.Batch{Tool: "edit_content", Args: []byte(fmt.Sprintf(`{"n":%d}`, i)),
			Changes: []replay.Change{{Path: fmt.Sprintf("notes/%d.txt", i%3), Data: []byte(fmt.Sprintf("note %d\n", i))}}}); err != nil {
			t.Fatal(err)
		}
		rep, err := remote.Push(ctx, s, e.Journal(), remote.PushOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rolled += rep.Rolled
	}
	var keys []string
	for k := range srv.Objects(s3test.KeysBucket, "roll") {
		keys = append(keys, k)
	}
	if rolled != 32 || len(keys) != 10 { // events 1-32 rolled into one, 33 to 41 each alone
		t.Fatalf("rolled %d segments; %d key files: %v", rolled, len(keys), keys)
	}
	if vr, err := remote.Verify(ctx, s, ""); err != nil || !vr.OK() || vr.Events != 41 {
		t.Fatalf("verify: %+v %v", vr, err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	if _, err := remote.Clone(ctx, s, workspaceID(t, dir), clone, remote.CloneOptions{}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(files(t, clone)) != fmt.Sprint(files(t, dir)) || eventArgs(t, clone) != eventArgs(t, dir) {
		t.Fatal("the clone differs")
	}
}

// TestVerify_EncryptedDamage: on an encrypted remote, a flipped byte in a
// sealed chunk and in a sealed manifest is named by verify (the storage's checksum or the seal catches it), and a
// clone refuses instead of writing what it cannot check.
func TestVerify_EncryptedDamage(t *testing.T) {
	srv := s3test.Start(t)
	s := sealedStore(t, srv, "dmg")
	dir, e, env, big := secretWorkspace(t, "dmg")
	if _, err := remote.Push(ctx, s, e.Journal(), remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	flip := func(key string) {
		t.Helper()
		p := srv.Object(key)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)-20] ^= 1
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	envChunk := "dmg/chunks/" + env.String()[:2] + "/" + env.String()
	flip(envChunk)
	flip("dmg/contents/" + big.String())
	vr, err := remote.Verify(ctx, s, "")
	if err != nil {
		t.Fatal(err)
	}
	report := strings.Join(vr.Problems, "\n")
	for _, want := range []string{
		strings.TrimPrefix(envChunk, "dmg/") + ": altered",
		"contents/" + big.String() + ": ",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("verify does not name %q:\n%s", want, report)
		}
	}
	if _, err := remote.Clone(ctx, s, workspaceID(t, dir), filepath.Join(t.TempDir(), "c"), remote.CloneOptions{}); !errors.Is(err, remote.ErrDamaged) {
		t.Fatalf("clone of a damaged encrypted remote: %v", err)
	}
}

// TestEncrypted_OldJournal: a journal written before salted arguments
// (format 11 sample) pushes to an encrypted remote, verifies and clones;
// then one of its events' arguments is redacted (their hash covered them)
// and the redaction pushed: verify --remote reports them redacted, never
// altered; a clone refuses that event with a clear message.
func TestEncrypted_OldJournal(t *testing.T) {
	srv := s3test.Start(t)
	s := sealedStore(t, srv, "old")
	dir, e, old := oldJournal(t)
	if _, err := remote.Push(ctx, s, e.Journal(), remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	ws := workspaceID(t, dir)
	if vr, err := remote.Verify(ctx, s, ws); err != nil || !vr.OK() {
		t.Fatalf("verify: %+v %v", vr, err)
	}
	if _, err := remote.Clone(ctx, s, ws, filepath.Join(t.TempDir(), "c"), remote.CloneOptions{}); err != nil {
		t.Fatal(err)
	}
	by := redactArgs(t, e, old)
	rep, err := remote.Push(ctx, s, e.Journal(), remote.PushOptions{})
	if err != nil || rep.Shred == nil || rep.Shred.Events != 1 {
		t.Fatalf("push of the redaction: %+v %v", rep, err)
	}
	checkOldRedacted(t, s, ws, old, by)

	// redacted before its first push: the line says so
	dir2, e2, old2 := oldJournal(t)
	by2 := redactArgs(t, e2, old2)
	s2 := sealedStore(t, srv, "old2")
	if _, err := remote.Push(ctx, s2, e2.Journal(), remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	checkOldRedacted(t, s2, workspaceID(t, dir2), old2, by2)
}

// oldJournal is a workspace holding the format-11 sample journal, and an
// event of it with arguments (unsalted).
func oldJournal(t *testing.T) (string, *replay.Engine, uint64) {
	t.Helper()
	dir := sampleWorkspace(t, "baserefs-format11.db")
	for _, ev := range journalEvents(t, dir) {
		if len(ev.Args) > 0 && !ev.Salted() {
			e, err := replay.Open(replay.Options{Roots: []string{dir}, Actor: agent("old")})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Close() })
			return dir, e, ev.Seq
		}
	}
	t.Fatal("the sample has no unsalted event with arguments")
	return "", nil, 0
}

// redactArgs redacts event seq's arguments; it returns the redact event.
func redactArgs(t *testing.T, e *replay.Engine, seq uint64) uint64 {
	t.Helper()
	res, err := e.Redact(replay.RedactSelect{Events: []uint64{seq}, ArgsOnly: true, Why: "test", Actor: journal.Actor{Kind: "cli"}})
	if err != nil || !slices.Equal(res.Unsalted, []uint64{seq}) {
		t.Fatalf("redact: %+v %v", res, err)
	}
	return res.Event
}

// checkOldRedacted: verify reports event old's arguments redacted by
// event by, and a clone refuses the event, saying why.
func checkOldRedacted(t *testing.T, s *remote.Store, ws string, old, by uint64) {
	t.Helper()
	vr, err := remote.Verify(ctx, s, ws)
	if err != nil || !vr.OK() || len(vr.Redacted) != 1 || !strings.Contains(vr.Redacted[0], fmt.Sprintf("event %d's arguments, redacted by event %d", old, by)) {
		t.Fatalf("verify after the redaction: %+v %v", vr, err)
	}
	_, err = remote.Clone(ctx, s, ws, filepath.Join(t.TempDir(), "c"), remote.CloneOptions{})
	if !errors.Is(err, remote.ErrDamaged) || !strings.Contains(err.Error(), fmt.Sprintf("event %d was written before salted arguments and its arguments were redacted", old)) {
		t.Fatalf("clone of a redacted unsalted event: %v", err)
	}
}
