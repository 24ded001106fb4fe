package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/journalfs/journal/journal"
)

// Remote is a named S3 location: where to push and clone from. It holds no
// credentials (they come from the AWS chain when it is opened).
type Remote struct {
	Name     string `json:"name"`
	URL      string `json:"url"`                // s3://bucket/prefix
	Endpoint string `json:"endpoint,omitempty"` // e.g. http://127.0.0.1:7070; empty: AWS
	Region   string `json:"region,omitempty"`   // empty: the AWS chain's, else us-east-1
	// Retain, if set (e.g. "7y", "90d"), puts every chunk, content and
	// segment a push writes under Object Lock (compliance mode) for that
	// long; the bucket must have Object Lock enabled.
	Retain string `json:"retain,omitempty"`
	// Keys, if set (s3://bucket/prefix, another bucket on the same
	// endpoint), makes the remote encrypted: what a push sends is sealed
	// with keys kept there, never in the data bucket, and a redaction
	// shreds them (doc.go "Encryption and crypto-shredding").
	Keys string `json:"keys,omitempty"`
}

// Retention parses r.Retain (journal.ParseDuration); 0 when unset.
func (r Remote) Retention() (time.Duration, error) {
	if r.Retain == "" {
		return 0, nil
	}
	d, err := journal.ParseDuration(r.Retain)
	if err != nil || d <= 0 {
		return 0, fail(ErrUsage, "remote: --retain %q: want a positive number of days, weeks or years (90d, 12w, 7y)", r.Retain)
	}
	return d, nil
}

// Bucket and Prefix split the remote's URL.
func (r Remote) Bucket() string { b, _, _ := splitURL(r.URL); return b }

// Prefix is the key prefix under the bucket, without slashes at its ends.
func (r Remote) Prefix() string { _, p, _ := splitURL(r.URL); return p }

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// splitURL parses s3://bucket[/prefix].
func splitURL(s string) (bucket, prefix string, err error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "s3" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", "", fail(ErrUsage, "remote: %q is not an s3://bucket/prefix URL", s)
	}
	return u.Host, strings.Trim(u.Path, "/"), nil
}

// ConfigPath is the file that keeps this user's remotes:
// os.UserConfigDir()/journal/remotes.json ($XDG_CONFIG_HOME on Linux).
func ConfigPath() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("remote: no configuration directory for this user: %w", err)
	}
	return filepath.Join(d, "journal", "remotes.json"), nil
}

type configFile struct {
	Remotes []Remote `json:"remotes"`
}

// List returns this user's remotes, by name.
func List() ([]Remote, error) {
	p, err := ConfigPath()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("remote: %w", err)
	}
	var c configFile
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("remote: %s: %v (fix or remove the file)", p, err)
	}
	sort.Slice(c.Remotes, func(i, j int) bool { return c.Remotes[i].Name < c.Remotes[j].Name })
	return c.Remotes, nil
}

// Add records r (replacing a remote of the same name).
func Add(r Remote) error {
	if !nameRE().MatchString(r.Name) {
		return fail(ErrUsage, "remote: %q is not a remote name (letters, digits, . _ -)", r.Name)
	}
	if _, _, err := splitURL(r.URL); err != nil {
		return err
	}
	if _, err := r.Retention(); err != nil {
		return err
	}
	if r.Keys != "" {
		kb, _, err := splitURL(r.Keys)
		if err != nil {
			return fail(ErrUsage, "remote: --keys %q is not an s3://bucket/prefix URL", r.Keys)
		}
		if kb == r.Bucket() {
			return fail(ErrUsage, "remote: --keys %s is in the data bucket %q: keep the keys in another bucket (holding the data bucket must not give the keys)", r.Keys, kb)
		}
	}
	if r.Endpoint != "" {
		if u, err := url.Parse(r.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fail(ErrUsage, "remote: --endpoint %q is not an http(s):// URL", r.Endpoint)
		}
	}
	rs, err := List()
	if err != nil {
		return err
	}
	rs = slicesDeleteName(rs, r.Name)
	return save(append(rs, r))
}

// Remove forgets the remote name.
func Remove(name string) error {
	rs, err := List()
	if err != nil {
		return err
	}
	left := slicesDeleteName(rs, name)
	if len(left) == len(rs) {
		return fail(ErrUsage, "remote: no remote named %q", name)
	}
	return save(left)
}

// Lookup returns the remote named name; a URL (s3://...) stands for itself.
func Lookup(name string) (Remote, error) {
	if strings.HasPrefix(name, "s3://") {
		_, _, err := splitURL(name)
		return Remote{Name: name, URL: name}, err
	}
	rs, err := List()
	if err != nil {
		return Remote{}, err
	}
	for _, r := range rs {
		if r.Name == name {
			return r, nil
		}
	}
	return Remote{}, fail(ErrUsage, "remote: no remote named %q (journal remote add %s s3://bucket/prefix)", name, name)
}

func slicesDeleteName(rs []Remote, name string) []Remote {
	out := rs[:0:0]
	for _, r := range rs {
		if r.Name != name {
			out = append(out, r)
		}
	}
	return out
}

// save writes the remotes file atomically (journal.WriteFileAtomic).
func save(rs []Remote) error {
	p, err := ConfigPath()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("remote: %w", err)
	}
	b, _ := json.MarshalIndent(configFile{Remotes: rs}, "", "  ")
	if err := journal.WriteFileAtomic(p, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("remote: %w", err)
	}
	return nil
}
