// Package s3test runs a real S3 server for tests: versitygw (installed by
// scripts/setup-s3.sh) with its posix backend in a temporary directory, on
// a loopback port, with one bucket. Tests fail — never skip — when it is
// not installed.
package s3test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Access and Secret are the server's root credentials.
const (
	Access = "AKIAJOURNALTEST"
	Secret = "journal-test-secret-key"
	Bucket = "journal-test"
	// LockedBucket is a bucket with Object Lock enabled (StartLocked).
	LockedBucket = "journal-locked"
	// KeysBucket is a second plain bucket, for an encrypted remote's key
	// store (which must not be the data's bucket).
	KeysBucket = "journal-keys"
)

// Server is a running versitygw.
type Server struct {
	t    testing.TB
	bin  string
	Root string // the posix backend's directory: Root/Bucket holds the objects
	Addr string // host:port
	cmd  *exec.Cmd
	ver  string // the versioning directory, when versioning is on
	iam  string // the internal IAM's directory, when accounts are on (StartIAM)
}

// Binary returns versitygw's path, failing the test when it is missing.
func Binary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	gopath, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		p := filepath.Join(strings.TrimSpace(string(gopath)), "bin", "versitygw")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatalf("versitygw (the S3 server the remote tests run against) is not installed: run scripts/setup-s3.sh")
	return ""
}

// Start starts a server with an empty bucket and points the AWS chain of
// this test at it: its credentials in the environment, no shared files.
func Start(t testing.TB) *Server { return start(t, false, "") }

// StartLocked is Start with bucket versioning on and a second bucket,
// LockedBucket, created with Object Lock enabled.
func StartLocked(t testing.TB) *Server {
	t.Helper()
	s := start(t, true, "")
	c := s.Client()
	if _, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(LockedBucket), ObjectLockEnabledForBucket: aws.Bool(true)}); err != nil {
		t.Fatalf("create a bucket with Object Lock: %v", err)
	}
	return s
}

// StartIAM is Start with versitygw's internal IAM on: accounts other than
// the root's can be made (ReadOnly).
func StartIAM(t testing.TB) *Server {
	t.Helper()
	return start(t, false, t.TempDir())
}

// ReadOnly makes an account that can only read Bucket — list it and get
// its objects, as a bucket policy granting it s3:ListBucket and
// s3:GetObject says (an account of role "user" has no other right on a
// bucket it does not own), its keys access and secret. The server must
// run with IAM on (StartIAM).
func (s *Server) ReadOnly(access, secret string) {
	s.t.Helper()
	if s.iam == "" {
		s.t.Fatal("s3test: ReadOnly needs a server started by StartIAM")
	}
	out, err := exec.Command(s.bin, "admin", "--access", Access, "--secret", Secret, "--endpoint-url", s.Endpoint(),
		"create-user", "--access", access, "--secret", secret, "--role", "user").CombinedOutput()
	if err != nil {
		s.t.Fatalf("versitygw admin create-user: %v\n%s", err, out)
	}
	policy := fmt.Sprintf(`{"Version": "2012-10-17", "Statement": [
		{"Effect": "Allow", "Principal": {"AWS": [%q]}, "Action": ["s3:ListBucket"], "Resource": ["arn:aws:s3:::%s"]},
		{"Effect": "Allow", "Principal": {"AWS": [%q]}, "Action": ["s3:GetObject"], "Resource": ["arn:aws:s3:::%s/*"]}]}`,
		access, Bucket, access, Bucket)
	if _, err := s.Client().PutBucketPolicy(context.Background(), &s3.PutBucketPolicyInput{Bucket: aws.String(Bucket), Policy: aws.String(policy)}); err != nil {
		s.t.Fatalf("put the read-only bucket policy: %v", err)
	}
}

func start(t testing.TB, versioning bool, iam string) *Server {
	t.Helper()
	s := &Server{t: t, bin: Binary(t), Root: t.TempDir(), iam: iam}
	if versioning {
		s.ver = t.TempDir()
	}
	for _, b := range []string{Bucket, KeysBucket} {
		if err := os.Mkdir(filepath.Join(s.Root, b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = ln.Addr().String()
	ln.Close()
	t.Setenv("AWS_ACCESS_KEY_ID", Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", Secret)
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(s.Root, "no-aws-config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(s.Root, "no-aws-credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	s.Restart()
	t.Cleanup(s.Kill)
	return s
}

// Client is an S3 client of the server, with its root credentials.
func (s *Server) Client() *s3.Client {
	s.t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"))
	if err != nil {
		s.t.Fatal(err)
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) { o.BaseEndpoint = aws.String(s.Endpoint()); o.UsePathStyle = true })
}

// Objects returns the bytes of every object under dir of bucket, by key
// (the posix backend's files; versions kept aside are not included).
func (s *Server) Objects(bucket, dir string) map[string][]byte {
	s.t.Helper()
	out := map[string][]byte{}
	root := filepath.Join(s.Root, bucket)
	filepath.WalkDir(filepath.Join(root, filepath.FromSlash(dir)), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			s.t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	return out
}

// Versions returns every version of every object under prefix of bucket,
// read through S3: key "@" version ID → bytes.
func (s *Server) Versions(bucket, prefix string) map[string][]byte {
	s.t.Helper()
	ctx := context.Background()
	c := s.Client()
	out := map[string][]byte{}
	p := s3.NewListObjectVersionsPaginator(c, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			s.t.Fatal(err)
		}
		for _, v := range page.Versions {
			in := &s3.GetObjectInput{Bucket: aws.String(bucket), Key: v.Key}
			if id := aws.ToString(v.VersionId); id != "" && id != "null" {
				in.VersionId = v.VersionId
			}
			o, err := c.GetObject(ctx, in)
			if err != nil {
				s.t.Fatal(aws.ToString(v.Key), err)
			}
			b, err := io.ReadAll(o.Body)
			o.Body.Close()
			if err != nil {
				s.t.Fatal(aws.ToString(v.Key), err)
			}
			out[aws.ToString(v.Key)+"@"+aws.ToString(v.VersionId)] = b
		}
	}
	return out
}

// Endpoint is the server's URL.
func (s *Server) Endpoint() string { return "http://" + s.Addr }

// Restart starts the server (again) on its address and directory, and
// waits until it answers.
func (s *Server) Restart() {
	s.t.Helper()
	args := []string{"--port", s.Addr, "--access", Access, "--secret", Secret, "posix"}
	if s.ver != "" {
		args = append(args, "--versioning-dir", s.ver)
	}
	if s.iam != "" {
		args = append([]string{"--iam-dir", s.iam}, args...)
	}
	s.cmd = exec.Command(s.bin, append(args, s.Root)...)
	s.cmd.Stdout, s.cmd.Stderr = nil, nil
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start versitygw: %v", err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", s.Addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("versitygw did not listen on %s: %v", s.Addr, err)
		}
	}
}

// Kill stops the server at once (SIGKILL).
func (s *Server) Kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}

// Object is the path of an object's file in the backend.
func (s *Server) Object(key string) string {
	return filepath.Join(s.Root, Bucket, filepath.FromSlash(key))
}

// String names the server.
func (s *Server) String() string { return fmt.Sprintf("versitygw on %s", s.Addr) }
