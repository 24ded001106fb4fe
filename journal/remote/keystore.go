package remote

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// markerKey is the object at the root of an encrypted remote's prefix that
// says so, and names its key store: a binary that would push plaintext
// there, or read it without keys, is stopped by it (Open).
const markerKey = "journal-remote.json"

// marker is markerKey's JSON. It holds no key.
type marker struct {
	Version   int    `json:"version"` // 1
	Encrypted bool   `json:"encrypted"`
	Keys      string `json:"keys"` // the key store's URL
}

// keyFileKey is the key store's object beside segment key sk
// (workspaces/<ws>/segments/<first>-<last>.jsonl.zst → ….keys).
func keyFileKey(sk string) string { return strings.TrimSuffix(sk, ".jsonl.zst") + ".keys" }

// openKeys opens the key store of an encrypted remote (s.r.Keys) on the
// same endpoint and credentials: its bucket must exist, be another bucket
// than the data's, and put no default retention on what is written there
// (a locked key could not be shredded). Then it checks the data prefix's
// marker, writing it on an empty prefix.
func (s *Store) openKeys(ctx context.Context) error {
	bucket, prefix, err := splitURL(s.r.Keys)
	if err != nil {
		return err
	}
	if bucket == s.bucket {
		return fail(ErrUsage, "remote %s: --keys %s is in the data bucket %q: keys must be kept outside it (another bucket), or holding the bucket would be holding the keys", s.r.Name, s.r.Keys, s.bucket)
	}
	ks := &Store{r: s.r, c: s.c, bucket: bucket}
	if prefix != "" {
		ks.prefix = prefix + "/"
	}
	if _, err := s.c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)}); err != nil {
		err = ks.wrap(err, "bucket "+bucket)
		if errors.Is(err, ErrNoBucket) {
			return fail(ErrNoBucket, "remote %s: the key store's bucket %q does not exist (create it, without Object Lock)", s.r.Name, bucket)
		}
		return err
	}
	lc, err := s.c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: aws.String(bucket)})
	if err == nil && lc.ObjectLockConfiguration != nil && lc.ObjectLockConfiguration.Rule != nil && lc.ObjectLockConfiguration.Rule.DefaultRetention != nil {
		return fail(ErrUsage, "remote %s: the key store's bucket %q locks every object by default (Object Lock retention): its keys could never be shredded; use a bucket without a default retention", s.r.Name, bucket)
	}
	s.keys = ks
	return s.checkMarker(ctx, true)
}

// checkMarker refuses a remote whose prefix was made for the other kind:
// an encrypted remote (encrypted) whose prefix holds plaintext objects
// and no marker, or a plain remote whose prefix has a marker. An
// encrypted remote writes the marker on an empty prefix.
func (s *Store) checkMarker(ctx context.Context, encrypted bool) error {
	b, _, err := s.get(ctx, markerKey)
	switch {
	case err == nil:
		var m marker
		if json.Unmarshal(b, &m) != nil || m.Version != 1 {
			return fail(ErrDamaged, "remote %s: %s is not a remote's marker", s.r.Name, markerKey)
		}
		if m.Encrypted && !encrypted {
			return fail(ErrUsage, "remote %s: %s is an encrypted remote: add it with --keys %s (its key store)", s.r.Name, s.r.URL, m.Keys)
		}
		return nil
	case !errors.Is(err, ErrNotFound):
		return err
	case !encrypted:
		return nil
	}
	for _, dir := range []string{"chunks/", "contents/", "workspaces/"} {
		out, err := s.c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket), Prefix: aws.String(s.key(dir)), MaxKeys: aws.Int32(1)})
		if err != nil {
			return s.wrap(err, dir)
		}
		if len(out.Contents) > 0 {
			return fail(ErrUsage, "remote %s: %s holds objects pushed unencrypted: an encrypted remote needs a prefix of its own (another s3://bucket/prefix)", s.r.Name, s.r.URL)
		}
	}
	mb, _ := json.Marshal(marker{Version: 1, Encrypted: true, Keys: s.r.Keys})
	if _, err := s.put(ctx, markerKey, mb, "", true); err != nil && !errors.Is(err, ErrConflict) {
		return err
	}
	return nil
}

// Encrypted reports whether the store encrypts what it is sent.
func (s *Store) Encrypted() bool { return s.keys != nil }

// readKeys returns the key file beside segment key sk.
func (s *Store) readKeys(ctx context.Context, sk string) (*keyFile, error) {
	b, _, err := s.keys.get(ctx, keyFileKey(sk))
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, fail(ErrNotFound, "remote %s: key store %s: %s (the keys of %s)", s.r.Name, s.r.Keys, keyFileKey(sk), sk)
		}
		return nil, err
	}
	f, err := decodeKeyFile(b)
	if err != nil {
		return nil, fail(ErrDamaged, "remote %s: key store %s: %s: %v", s.r.Name, s.r.Keys, keyFileKey(sk), err)
	}
	return f, nil
}

// writeKeys writes the key file beside segment key sk.
func (s *Store) writeKeys(ctx context.Context, sk string, f *keyFile) error {
	_, err := s.keys.put(ctx, keyFileKey(sk), f.encode(), "", false)
	return err
}

// version is one version of an object, or a delete marker.
type version struct {
	id     string
	latest bool
}

// versions lists the versions of the object name, delete markers
// included. A store without versioning lists the one object it has.
func (s *Store) versions(ctx context.Context, name string) ([]version, error) {
	var out []version
	err := s.eachVersion(ctx, name, func(key string, v version) {
		if key == name {
			out = append(out, v)
		}
	})
	return out, err
}

// eachVersion calls fn with every version (and delete marker) of every
// object whose name starts with prefix.
func (s *Store) eachVersion(ctx context.Context, prefix string, fn func(name string, v version)) error {
	p := s3.NewListObjectVersionsPaginator(s.c, &s3.ListObjectVersionsInput{Bucket: aws.String(s.bucket), Prefix: aws.String(s.key(prefix))})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return s.wrap(err, prefix)
		}
		for _, v := range page.Versions {
			fn(strings.TrimPrefix(aws.ToString(v.Key), s.prefix), version{aws.ToString(v.VersionId), aws.ToBool(v.IsLatest)})
		}
		for _, m := range page.DeleteMarkers {
			fn(strings.TrimPrefix(aws.ToString(m.Key), s.prefix), version{aws.ToString(m.VersionId), false})
		}
	}
	return nil
}

// purge deletes the versions of name that are not its current one (all:
// every version, and the object), so that a key rewritten out of a key
// file is not left in an older version of it. It returns how many
// versions it deleted.
func (s *Store) purge(ctx context.Context, name string, all bool) (int, error) {
	vs, err := s.versions(ctx, name)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, v := range vs {
		if v.latest && !all {
			continue
		}
		if s.beforeWrite != nil {
			s.beforeWrite("delete", name)
		}
		in := &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(s.key(name))}
		if v.id != "" && v.id != "null" {
			in.VersionId = aws.String(v.id)
		}
		if _, err := s.c.DeleteObject(ctx, in); err != nil {
			if err = s.wrap(err, name); !errors.Is(err, ErrNotFound) {
				return n, err
			}
		}
		n++
	}
	if all { // whatever a store that lists no versions holds
		return n, s.remove(ctx, name)
	}
	return n, nil
}
