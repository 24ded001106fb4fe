package secrets_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/journalfs/journal/journal/secrets"
)

// chopped yields b in reads of random sizes, from one byte to more than a
// window, as pieces of a content read in short transactions come.
type chopped struct {
	b []byte
	r *rand.Rand
}

func (c *chopped) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.b), 1+c.r.IntN(100<<10))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

// secretText is n bytes or more of ordinary lines with secrets among them,
// one PEM key (11 lines) straddling each multiple of 64 KiB (a window's cut)
// and others at random.
func secretText(r *rand.Rand, n int) []byte {
	pieces := []string{
		"AWS_ACCESS_KEY_ID=" + awsKeyID + "\n", "AWS_SECRET_ACCESS_KEY=" + awsSecret + "\n", "token := \"" + ghToken + "\"\n",
		"password = \"hunter2\"\n", "// an ordinary comment\n", "x := key + 1\n", "\n",
	}
	var b bytes.Buffer
	for next := 64<<10 - 200; b.Len() < n; {
		if b.Len() >= next {
			b.WriteString(pemKey + "\n")
			next += 64 << 10
			continue
		}
		if r.IntN(50) == 0 {
			b.WriteString(pieces[r.IntN(len(pieces))])
			continue
		}
		b.WriteString(strings.Repeat("y", r.IntN(120)) + " = ordinary(line)\n")
	}
	return b.Bytes()
}

// TestScanReader_SameAsScanFile: a content read in pieces of any size gives
// exactly what ScanFile gives on it whole — with and without a cache, with
// secrets spanning the windows' cuts, a final line without a newline, and a
// line longer than a window.
func TestScanReader_SameAsScanFile(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	long := secretText(r, 300<<10)
	long = append(long, []byte(strings.Repeat("z", 200<<10)+"\n"+pemKey+"\nAPI_TOKEN="+awsSecret)...)
	for _, b := range [][]byte{secretText(r, 700<<10), long, []byte(pemKey), nil} {
		for _, path := range []string{"x.go", ".env", "go.sum", "cert.p12"} {
			want := secrets.ScanFile(path, b)
			if len(b) > 1000 && (path == "x.go" || path == ".env") && len(want) < 10 {
				t.Fatalf("%s: only %d findings: the text is not what the test means", path, len(want))
			}
			c := secrets.NewCache()
			for i, rd := range []io.Reader{&chopped{b, r}, iotest.OneByteReader(bytes.NewReader(b)), bytes.NewReader(b), &chopped{b, r}} {
				cache := c
				if i == 0 {
					cache = nil
				}
				got, err := cache.ScanReader(path, int64(len(b)), rd)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, %d bytes, reader %d: %d findings %+v\nwant %d %+v", path, len(b), i, len(got), got, len(want), want)
				}
			}
		}
	}
}

// TestScanReader_Errors: a read error, or a content of another size than
// said, gives no findings and an error: the content was not scanned.
func TestScanReader_Errors(t *testing.T) {
	b := secretText(rand.New(rand.NewPCG(5, 6)), 200<<10)
	boom := errors.New("boom")
	if fs, err := secrets.NewCache().ScanReader("x.go", int64(len(b)), io.MultiReader(bytes.NewReader(b[:100<<10]), iotest.ErrReader(boom))); !errors.Is(err, boom) || fs != nil {
		t.Fatalf("read error: %v, %d findings", err, len(fs))
	}
	for _, n := range []int{len(b) - 1, len(b) + 1} {
		if fs, err := secrets.NewCache().ScanReader("x.go", int64(n), bytes.NewReader(b)); err == nil || fs != nil {
			t.Fatalf("size %d of %d: %v, %d findings", n, len(b), err, len(fs))
		}
	}
	// over MaxSize: not read, only the path's findings
	if fs, err := secrets.NewCache().ScanReader("x.go", secrets.MaxSize+1, iotest.ErrReader(boom)); err != nil || len(fs) != 0 {
		t.Fatalf("over MaxSize: %v, %+v", err, fs)
	}
}
