package remote

import (
	"context"
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
	apply := func(tool, path, data string) uint64 {
		t.Helper()
		r, err := e.Apply(ctx, &replay.Batch{Tool: tool, Args: []byte(fmt.Sprintf(`{"path":%q,"content":%q}`, path, data)),
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
	for i := range 6 {
		apply("edit_file", fmt.Sprintf("src/f%d.go", i), fmt.Sprintf("package f\n\nconst N = %d\n", i+10))
	}
	if _, err := Push(ctx, s, e.Journal(), PushOptions{SegmentEvents: 4}); err != nil {
		t.Fatal(err)
	}
	e.Journal().View(func(tx *journal.Tx) error { st.ws = tx.Workspace(); return nil })
	return st
}

// keyVersions returns the bytes of every version of every key file of the
// key store.
func (st *shredSetup) keyVersions(t *testing.T) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	c := st.srv.Client()
	out := map[string][]byte{}
	l, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(s3test.KeysBucket), Prefix: aws.String("audit/")})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range l.Versions {
		o, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s3test.KeysBucket), Key: v.Key, VersionId: v.VersionId})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		buf := make([]byte, 1<<16)
		for {
			n, err := o.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		o.Body.Close()
		out[aws.ToString(v.Key)+"@"+aws.ToString(v.VersionId)] = []byte(b.String())
	}
	return out
}

// everyKey is every 32-byte key any version of any key file holds.
func (st *shredSetup) everyKey(t *testing.T) []dataKey {
	t.Helper()
	var out []dataKey
	for k, b := range st.keyVersions(t) {
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

// TestShredStore_FaultsThenRetry: a shred of the .env content on a
// --retain remote whose versioned key store is killed in the middle (the
// S3 server, after the first key file is rewritten and before its older
// version is deleted) fails and leaves a key file version that still
// opens the secret; run again, it completes: no version of any key file
// opens the .env chunk, which stays in the data bucket under Object Lock;
// a clone reports .env withheld and writes every other file; verify names
// the content as keyless.
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
	if !opens() {
		t.Fatal("before the shred no key opens the .env chunk")
	}
	st.s.keys.beforeWrite = func(op, name string) {
		if op == "delete" {
			st.srv.Kill()
		}
	}
	short, cancel := context.WithTimeout(ctx, 20e9)
	defer cancel()
	rep, err := ShredStore(short, st.s, st.ws, nil, []snapshot.ID{st.env})
	if !errors.Is(err, ErrUnreachable) || rep.Rewritten != 1 {
		t.Fatalf("shred with the server killed: %+v %v", rep, err)
	}
	st.srv.Restart()
	st.s.keys.beforeWrite = nil
	if !opens() {
		t.Fatal("the interrupted shred left no older version holding the key: the fault came too late to test anything")
	}
	rep, err = ShredStore(ctx, st.s, st.ws, nil, []snapshot.ID{st.env})
	if err != nil || rep.Versions == 0 {
		t.Fatalf("the retried shred: %+v %v", rep, err)
	}
	if opens() {
		t.Fatal("after the shred a key in the key store still opens the .env chunk")
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
	again, err := ShredStore(ctx, st.s, st.ws, nil, []snapshot.ID{st.env})
	if err != nil || again.Rewritten != 0 || again.Versions != 0 {
		t.Fatalf("a third shred: %+v %v", again, err)
	}
	clone := filepath.Join(t.TempDir(), "c")
	cr, err := Clone(ctx, st.s, st.ws, clone, CloneOptions{})
	if err != nil || !slices.Equal(cr.Withheld, []string{".env"}) || !slices.Equal(cr.WithheldContents, []snapshot.ID{st.env}) || cr.Files != 6 {
		t.Fatalf("clone after the shred: %+v %v", cr, err)
	}
	vr, err := Verify(ctx, st.s, st.ws)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("content %s: the key store has no key for it", st.env.Short()); len(vr.Problems) != 1 || !strings.Contains(vr.Problems[0], want) {
		t.Fatalf("verify of a content shredded without a redaction: %+v", vr)
	}
}
