package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/journal/remote/s3test"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// leakedKey is an AWS secret access key in AWS's documentation style (no
// real key).
const leakedKey = "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY"

// shredSetup is an encrypted remote under --retain (Object Lock, 2 days)
// whose key store is versioned, and a workspace pushed to it in which an
// agent wrote leakedKey into .env (in the event's arguments too).
type shredSetup struct {
	srv    *s3test.Server
	s      *Store
	e      *replay.Engine
	dir    string
	ws     string
	env    snapshot.ID // the .env content
	envSeq uint64      // the event that wrote it
	big    snapshot.ID // a file of many chunks holding the secret in one
}

func newShredSetup(t *testing.T) *shredSetup {
	t.Helper()
	ctx := context.Background()
	srv := s3test.StartLocked(t)
	if _, err := srv.Client().PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(s3test.KeysBucket),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, Remote{Name: "audit", URL: "s3://" + s3test.LockedBucket + "/audit", Endpoint: srv.Endpoint(), Retain: "2d",
		Keys: "s3://" + s3test.KeysBucket + "/audit"})
	if err != nil {
		t.Fatal(err)
	}
	dir, e := newEngine(t)
	apply := func(tool, path, data string) uint64 { // the arguments hold the content of a small file
		t.Helper()
		args := fmt.Sprintf(`{"path":%q,"content":%q}`, path, data)
		if len(data) > 1000 {
			args = fmt.Sprintf(`{"path":%q}`, path)
		}
		r, err := e.Apply(ctx, &replay.Batch{Tool: tool, Args: []byte(args),
			Changes: []replay.Change{{Path: path, Data: []byte(data)}}})
		if err != nil {
			t.Fatal(err)
		}
		return r.Seq
	}
	for i := range 6 {
		apply("file_create_new", fmt.Sprintf("src/f%d.go", i), fmt.Sprintf("package f\n\nconst N = %d\n", i))
	}
	env := "AWS_SECRET_ACCESS_KEY=" + leakedKey + "\n"
	st := &shredSetup{srv: srv, s: s, e: e, dir: dir, env: snapshot.Sum([]byte(env))}
	st.envSeq = apply("file_create_new", ".env", env)
	var big strings.Builder
	for i := 0; big.Len() < 256<<10; i++ {
		if i == 2500 {
			big.WriteString("aws_secret_access_key = " + leakedKey + "\n")
		}
		fmt.Fprintf(&big, "line %d of a large configuration file %x\n", i, i*7919)
	}
	st.big = snapshot.Sum([]byte(big.String()))
	apply("file_create_new", "config/large.ini", big.String())
	for i := range 6 {
		apply("edit_file", fmt.Sprintf("src/f%d.go", i), fmt.Sprintf("package f\n\nconst N = %d\n", i+10))
	}
	if _, err := Push(ctx, s, e.Journal(), PushOptions{SegmentEvents: 4}); err != nil {
		t.Fatal(err)
	}
	e.Journal().View(func(tx *journal.Tx) error { st.ws = tx.Workspace(); return nil })
	return st
}

// everyKey is every 32-byte key any version of any key file holds.
func (st *shredSetup) everyKey(t *testing.T) []dataKey {
	t.Helper()
	var out []dataKey
	for k, b := range st.srv.Versions(s3test.KeysBucket, "audit/") {
		f, err := decodeKeyFile(b)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		for _, key := range f.events {
			out = append(out, key)
		}
		for _, key := range f.contents {
			out = append(out, key)
		}
	}
	return out
}

// recoverable is everything someone holding the data bucket (every
// version of every object) and every key left in the key store (every
// version of every key file, and every chunk key in a manifest one of
// them opens) can open: the plaintext of every sealed object and value.
func (st *shredSetup) recoverable(t *testing.T) [][]byte {
	t.Helper()
	keys := st.everyKey(t)
	var out [][]byte
	objs := map[string][]byte{}
	for k, b := range st.srv.Versions(s3test.LockedBucket, "audit/") {
		objs[strings.TrimPrefix(k[:strings.LastIndexByte(k, '@')], "audit/")+k[strings.LastIndexByte(k, '@'):]] = b
	}
	open := func(b, ad []byte) {
		for _, k := range keys {
			if p, err := unseal(k, b, ad); err == nil {
				out = append(out, p)
				if _, _, ks, err := parseSealedManifest(p); err == nil {
					keys = append(keys, ks...)
				}
			}
		}
	}
	for name, b := range objs { // manifests first: they hold chunk keys
		if strings.HasPrefix(name, "contents/") {
			id, _ := snapshot.ParseID(strings.TrimPrefix(name[:strings.LastIndexByte(name, '@')], "contents/"))
			open(b, id[:])
		}
	}
	for name, b := range objs {
		name = name[:strings.LastIndexByte(name, '@')]
		switch {
		case strings.HasPrefix(name, "chunks/"):
			id, _ := snapshot.ParseID(name[strings.LastIndexByte(name, '/')+1:])
			open(b, id[:])
		case strings.HasSuffix(name, ".jsonl.zst"):
			raw, err := zdec().DecodeAll(b, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range bytes.Split(raw, []byte("\n")) {
				var l sealedLine
				if json.Unmarshal(line, &l) == nil && len(l.Sealed) > 0 {
					open(l.Sealed, l.Hash[:])
				}
			}
		}
	}
	for i, p := range out { // chunks are compressed
		if z, err := zdec().DecodeAll(p, nil); err == nil {
			out[i] = z
		}
	}
	return out
}

// leaks reports whether any plaintext holds the secret.
func leaks(plain [][]byte) bool {
	for _, p := range plain {
		if bytes.Contains(p, []byte(leakedKey)) {
			return true
		}
	}
	return false
}

// TestShredStore_FaultsThenRetry: a shred of the .env content on a
// --retain remote whose versioned key store is killed in the middle (the
// S3 server, after the first key file is rewritten and before its older
// version is deleted) fails and leaves a key file version that still
// opens the secret; run again, it completes: no version of any key file
// opens the .env chunk, which stays in the data bucket under Object Lock,
// and nothing the bucket and the keys left open holds the secret; with no
// redaction event naming what was shredded, a clone refuses and verify
// names each value as keyless.
func TestShredStore_FaultsThenRetry(t *testing.T) {
	ctx := context.Background()
	st := newShredSetup(t)
	chunk, _, err := st.s.get(ctx, chunkKey(st.env))
	if err != nil {
		t.Fatal(err)
	}
	opens := func() bool {
		for _, k := range st.everyKey(t) {
			if _, err := unseal(k, chunk, st.env[:]); err == nil {
				return true
			}
		}
		return false
	}
	if !opens() || !leaks(st.recoverable(t)) {
		t.Fatal("before the shred the keys do not open the secret: the test would prove nothing")
	}
	st.s.keys.beforeWrite = func(op, name string) {
		if op == "delete" {
			st.srv.Kill()
		}
	}
	short, cancel := context.WithTimeout(ctx, 20e9)
	defer cancel()
	rep, err := ShredStore(short, st.s, st.ws, []uint64{st.envSeq}, []snapshot.ID{st.env, st.big})
	if !errors.Is(err, ErrUnreachable) || rep.Rewritten != 1 {
		t.Fatalf("shred with the server killed: %+v %v", rep, err)
	}
	st.srv.Restart()
	st.s.keys.beforeWrite = nil
	if !opens() {
		t.Fatal("the interrupted shred left no older version holding the key: the fault came too late to test anything")
	}
	rep, err = ShredStore(ctx, st.s, st.ws, []uint64{st.envSeq}, []snapshot.ID{st.env, st.big})
	if err != nil || rep.Versions == 0 {
		t.Fatalf("the retried shred: %+v %v", rep, err)
	}
	if opens() || leaks(st.recoverable(t)) {
		t.Fatal("after the shred the data bucket and the keys left still open the secret")
	}
	// the chunk is still there, locked, and sealed
	h, err := st.s.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s3test.LockedBucket), Key: aws.String(st.s.key(chunkKey(st.env)))})
	if err != nil || h.ObjectLockMode != types.ObjectLockModeCompliance {
		t.Fatalf("the .env chunk after the shred: %+v %v", h, err)
	}
	if _, err := st.s.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s3test.LockedBucket), Key: aws.String(st.s.key(chunkKey(st.env))), VersionId: h.VersionId}); err == nil {
		t.Fatal("the locked .env chunk was deleted")
	}
	for name, b := range st.srv.Objects(s3test.LockedBucket, "audit") {
		if strings.Contains(string(b), leakedKey) {
			t.Fatalf("%s holds the secret in clear", name)
		}
	}
	again, err := ShredStore(ctx, st.s, st.ws, []uint64{st.envSeq}, []snapshot.ID{st.env, st.big})
	if err != nil || again.Rewritten != 0 || again.Versions != 0 {
		t.Fatalf("a third shred: %+v %v", again, err)
	}
	// shredded without a redaction (this test called ShredStore by hand):
	// to a clone and to verify, keys missing
	_, err = Clone(ctx, st.s, st.ws, filepath.Join(t.TempDir(), "c"), CloneOptions{})
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), fmt.Sprintf("has no key for event %d's arguments, and no redaction names them", st.envSeq)) {
		t.Fatalf("clone after a shred no redaction names: %v", err)
	}
	vr, err := Verify(ctx, st.s, st.ws)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("content %s: the key store has no key for it", st.env.Short()); len(vr.Problems) != 3 || !strings.Contains(strings.Join(vr.Problems, "\n"), want) {
		t.Fatalf("verify of a content shredded without a redaction: %+v", vr)
	}
}

// TestShred_Remotes: a redaction reaches every remote the journal pushed
// to: the encrypted one is shredded; the plain one under --retain is
// named with the reason (its objects stay, locked), for journal redact to
// print.
func TestShred_Remotes(t *testing.T) {
	ctx := context.Background()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	st := newShredSetup(t)
	sealed := st.s.Remote()
	plain := Remote{Name: "locked", URL: "s3://" + s3test.LockedBucket + "/plain", Endpoint: st.srv.Endpoint(), Retain: "2d"}
	for _, r := range []Remote{sealed, plain} {
		if err := Add(r); err != nil {
			t.Fatal(err)
		}
		s, err := Open(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Push(ctx, s, st.e.Journal(), PushOptions{})
		if err != nil {
			t.Fatal(err)
		}
		st.e.Journal().WriteReplication(journal.Replication{Remote: r.Name, Workspace: rep.Workspace, Pushed: rep.Head})
	}
	rep, err := Shred(ctx, st.e.Journal(), nil, []snapshot.ID{st.env})
	if err != nil || len(rep.Shredded) != 1 || len(rep.NotShredded) != 1 {
		t.Fatalf("shred: %+v %v", rep, err)
	}
	lines := strings.Join(rep.Lines(), "\n")
	for _, want := range []string{
		"remote audit (workspace " + st.ws + "): shredded the keys of 0 event(s)' arguments and 1 content(s) in 1 key file(s)",
		"remote locked: not shredded: it is not encrypted: its segments keep the arguments and its objects the contents, under Object Lock for 2d from each push (they cannot be deleted)",
	} {
		if !strings.Contains(lines, want) {
			t.Errorf("the report lacks %q:\n%s", want, lines)
		}
	}
}

// TestRedact_PushShreds: the agent's secret redacted (journal redact
// --path .env --path config/large.ini), then pushed to the --retain
// encrypted remote with the S3 server killed during the push's shred: the
// push fails before the head moves; pushed again, it shreds and carries
// the redact event. Then no object of the data bucket opens to the
// secret with any key left; verify passes and reports the four values
// redacted; the clone holds the events (7 and 8 without their arguments),
// writes neither file, verifies, and its export carries no secret.
func TestRedact_PushShreds(t *testing.T) {
	ctx := context.Background()
	st := newShredSetup(t)
	res, err := st.e.Redact(replay.RedactSelect{Paths: []string{".env", "config/large.ini"}, Why: "a leaked AWS key",
		Actor: journal.Actor{Kind: "cli", User: "sec"}})
	if err != nil || !slices.Contains(res.Events, st.envSeq) || !slices.Contains(res.Contents, st.env) || !slices.Contains(res.Contents, st.big) {
		t.Fatalf("redact: %+v %v", res, err)
	}
	st.s.keys.beforeWrite = func(op, name string) {
		if op == "delete" {
			st.srv.Kill()
		}
	}
	short, cancel := context.WithTimeout(ctx, 20e9)
	defer cancel()
	if _, err := Push(short, st.s, st.e.Journal(), PushOptions{}); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("push with the server killed during the shred: %v", err)
	}
	st.srv.Restart()
	st.s.keys.beforeWrite = nil
	if h, _, err := st.s.readHead(ctx, st.ws); err != nil || h.Last >= res.Event {
		t.Fatalf("the head moved past the redact event though the shred failed: %+v %v", h, err)
	}
	rep, err := Push(ctx, st.s, st.e.Journal(), PushOptions{})
	// the first attempt rewrote the key file; this one deletes the older
	// version that still held the keys
	if err != nil || rep.To != res.Event || rep.Shred == nil || rep.Shred.Versions != 1 {
		t.Fatalf("push of the redaction: %+v %+v %v", rep, rep.Shred, err)
	}
	if leaks(st.recoverable(t)) {
		t.Fatal("after the push the data bucket and the keys left still open the secret")
	}
	vr, err := Verify(ctx, st.s, st.ws)
	if err != nil || !vr.OK() || len(vr.Redacted) != 4 { // two events' arguments (.env's and large.ini's), two contents
		t.Fatalf("verify after the redaction: %+v %v", vr, err)
	}
	for _, want := range []string{
		fmt.Sprintf("event %d's arguments, redacted by event %d", st.envSeq, res.Event),
		fmt.Sprintf("content %s, redacted by event %d", st.env.Short(), res.Event),
		fmt.Sprintf("content %s, redacted by event %d", st.big.Short(), res.Event),
	} {
		if !strings.Contains(strings.Join(vr.Redacted, "\n"), want) {
			t.Errorf("verify does not report %q: %v", want, vr.Redacted)
		}
	}
	clone := filepath.Join(t.TempDir(), "c")
	cr, err := Clone(ctx, st.s, st.ws, clone, CloneOptions{})
	slices.Sort(cr.Withheld)
	if err != nil || !slices.Equal(cr.WithheldArgs, []uint64{st.envSeq, st.envSeq + 1}) || !slices.Equal(cr.Withheld, []string{".env", "config/large.ini"}) || cr.Last != res.Event {
		t.Fatalf("clone: %+v %v", cr, err)
	}
	j, err := journal.Open(filepath.Join(clone, journal.DirName, journal.FileName), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var exported bytes.Buffer
	err = j.View(func(tx *journal.Tx) error {
		if _, err := tx.Verify(true, nil); err != nil {
			return err
		}
		_, err := audit.Export(tx, &exported, "jsonl", audit.ExportFilter{}, nil)
		return err
	})
	if err != nil || bytes.Contains(exported.Bytes(), []byte(leakedKey)) || !bytes.Contains(exported.Bytes(), []byte(`"args_withheld":"redacted"`)) {
		t.Fatalf("the clone's verify and export: %v\n%s", err, exported.String())
	}
}
