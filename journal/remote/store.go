package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

var (
	// ErrUsage is a remote named or configured wrongly.
	ErrUsage = errors.New("remote: bad usage")
	// ErrAuth means the storage refused the credentials.
	ErrAuth = errors.New("remote: credentials refused")
	// ErrNoBucket means the remote's bucket does not exist.
	ErrNoBucket = errors.New("remote: no such bucket")
	// ErrNotFound is a missing object.
	ErrNotFound = errors.New("remote: object not found")
	// ErrConflict means another writer moved the workspace's head.
	ErrConflict = errors.New("remote: another writer")
	// ErrDamaged is an object whose bytes are not what its name or its
	// head says.
	ErrDamaged = errors.New("remote: object damaged")
	// ErrUnreachable means the storage could not be reached.
	ErrUnreachable = errors.New("remote: unreachable")
)

// failure is an error of this package: its message, in words, and the
// sentinel it is (errors.Is).
type failure struct {
	msg  string
	kind error
}

func (f *failure) Error() string { return f.msg }
func (f *failure) Unwrap() error { return f.kind }

// fail makes a failure of kind with a formatted message.
func fail(kind error, format string, a ...any) error {
	return &failure{msg: fmt.Sprintf(format, a...), kind: kind}
}

// Store is one remote's bucket and prefix, opened.
type Store struct {
	r      Remote
	c      *s3.Client
	bucket string
	prefix string        // "" or ending in "/"
	retain time.Duration // Object Lock retention of immutable objects (0: none)
	keys   *Store        // an encrypted remote's key store (another bucket); nil: plain
	// beforeWrite, if set (tests), is called before each write or delete
	// a shred makes in the key store: a fault seam.
	beforeWrite func(op, name string)
}

// Open connects to the remote (credentials from the AWS chain) and checks
// that its bucket exists and the credentials are accepted.
func Open(ctx context.Context, r Remote) (*Store, error) {
	bucket, prefix, err := splitURL(r.URL)
	if err != nil {
		return nil, err
	}
	var opts []func(*config.LoadOptions) error
	if r.Region != "" {
		opts = append(opts, config.WithRegion(r.Region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("remote %s: AWS configuration: %w", r.Name, err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	// as many idle connections as a push keeps requests in flight
	cfg.HTTPClient = awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConnsPerHost = 2 * uploaders
	})
	c := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if r.Endpoint != "" {
			o.BaseEndpoint = aws.String(r.Endpoint)
			o.UsePathStyle = true
		}
		o.RetryMaxAttempts = 4
	})
	s := &Store{r: r, c: c, bucket: bucket}
	if prefix != "" {
		s.prefix = prefix + "/"
	}
	if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)}); err != nil {
		return nil, s.wrap(err, "bucket "+bucket)
	}
	if s.retain, err = r.Retention(); err != nil {
		return nil, err
	}
	if s.retain > 0 {
		lc, err := c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: aws.String(bucket)})
		if err != nil || lc.ObjectLockConfiguration == nil || lc.ObjectLockConfiguration.ObjectLockEnabled != types.ObjectLockEnabledEnabled {
			return nil, fail(ErrUsage, "remote %s: --retain %s needs Object Lock, and bucket %q does not have it enabled (it is chosen when the bucket is created)", r.Name, r.Retain, bucket)
		}
	}
	if r.Keys != "" {
		err = s.openKeys(ctx)
	} else {
		err = s.checkMarker(ctx, false)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Remote is the remote the store was opened for.
func (s *Store) Remote() Remote { return s.r }

// key is the object key of name under the prefix.
func (s *Store) key(name string) string { return s.prefix + name }

// wrap turns an SDK error into one of the package's, naming what was asked.
func (s *Store) wrap(err error, what string) error {
	if err == nil {
		return nil
	}
	var re *smithyhttp.ResponseError
	status := 0
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	code := ""
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code = ae.ErrorCode()
	}
	switch {
	case strings.Contains(err.Error(), "checksum did not match"): // the SDK checks what the storage recorded at upload
		return fail(ErrDamaged, "remote %s: %s: its bytes are not those stored (altered)", s.r.Name, what)
	case code == "NoSuchBucket" || (status == http.StatusNotFound && strings.HasPrefix(what, "bucket ")):
		return fail(ErrNoBucket, "remote %s: bucket %q does not exist (create it, or check the URL and --endpoint)", s.r.Name, s.bucket)
	case code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch" || code == "AccessDenied" || code == "InvalidToken" ||
		code == "ExpiredToken" || status == http.StatusForbidden || status == http.StatusUnauthorized:
		return fail(ErrAuth, "remote %s: the storage refused the credentials (%s; they come from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE or ~/.aws)", s.r.Name, orStatus(code, status))
	case code == "NoSuchKey" || code == "NotFound" || status == http.StatusNotFound:
		return fail(ErrNotFound, "remote %s: %s", s.r.Name, what)
	case code == "PreconditionFailed" || code == "ConditionalRequestConflict" || status == http.StatusPreconditionFailed || status == http.StatusConflict:
		return fail(ErrConflict, "remote %s: %s changed since it was read", s.r.Name, what)
	case status == 0:
		return &failure{msg: fmt.Sprintf("remote %s: %s: the storage does not answer (%v)", s.r.Name, what, err), kind: ErrUnreachable}
	}
	return fmt.Errorf("remote %s: %s: %w", s.r.Name, what, err)
}

func orStatus(code string, status int) string {
	if code != "" {
		return code
	}
	return fmt.Sprintf("HTTP %d", status)
}

// get returns an object's bytes and ETag.
func (s *Store) get(ctx context.Context, name string) ([]byte, string, error) {
	out, err := s.c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(s.key(name))})
	if err != nil {
		return nil, "", s.wrap(err, name)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, "", s.wrap(err, name)
	}
	return b, aws.ToString(out.ETag), nil
}

// exists reports whether an object is there.
func (s *Store) exists(ctx context.Context, name string) (bool, error) {
	_, err := s.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(s.key(name))})
	err = s.wrap(err, name)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// put writes an object and returns its new ETag. ifMatch, if set, is the
// ETag the object must still have; create asks that it not exist yet
// (If-None-Match: *).
func (s *Store) put(ctx context.Context, name string, data []byte, ifMatch string, create bool) (string, error) {
	in := &s3.PutObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(s.key(name)), Body: bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data)))}
	if ifMatch != "" {
		in.IfMatch = aws.String(ifMatch)
	}
	if create {
		in.IfNoneMatch = aws.String("*")
	}
	if s.retain > 0 && !strings.HasSuffix(name, "/head.json") && !strings.HasSuffix(name, "/index.json") { // immutable objects only: a head and an index move
		in.ObjectLockMode = types.ObjectLockModeCompliance
		in.ObjectLockRetainUntilDate = aws.Time(time.Now().Add(s.retain).UTC())
	}
	out, err := s.c.PutObject(ctx, in)
	if err != nil {
		return "", s.wrap(err, name)
	}
	return aws.ToString(out.ETag), nil
}

// remove deletes an object (gone already is fine).
func (s *Store) remove(ctx context.Context, name string) error {
	_, err := s.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(s.key(name))})
	if err = s.wrap(err, name); errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// list returns the names under dir (relative to the prefix).
func (s *Store) list(ctx context.Context, dir string) ([]string, error) {
	var out []string
	p := s3.NewListObjectsV2Paginator(s.c, &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket), Prefix: aws.String(s.key(dir))})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, s.wrap(err, dir)
		}
		for _, o := range page.Contents {
			out = append(out, strings.TrimPrefix(aws.ToString(o.Key), s.prefix))
		}
	}
	return out, nil
}
