package secrets_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/journalfs/journal/journal/secrets"
)

// source returns n bytes of this repository's Go sources, repeated.
func source(b *testing.B, n int) []byte {
	ps, err := filepath.Glob(filepath.Join("..", "..", "replay", "*.go"))
	if err != nil || len(ps) == 0 {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for buf.Len() < n {
		for _, p := range ps {
			c, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			buf.Write(c)
		}
	}
	return buf.Bytes()[:n]
}

// BenchmarkScan: a 10 MiB Go source, a 100 KiB .env file, and a 12 KiB
// source (an ordinary edit's file); then a 48 MiB source scanned first
// through a new Cache (as the detector scans a file's first version) whole
// and read in pieces (ScanReader).
func BenchmarkScan(b *testing.B) {
	var env bytes.Buffer
	for i := 0; env.Len() < 100<<10; i++ {
		env.WriteString("SERVICE_URL=https://example.internal/path\nDEBUG=false\nAPI_TOKEN=" + awsSecret + "\n")
	}
	for _, c := range []struct {
		name, path string
		b          []byte
	}{
		{"go-10MiB", "big.go", source(b, 10<<20)},
		{"env-100KiB", ".env", env.Bytes()},
		{"go-12KiB", "x.go", source(b, 12<<10)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.b)))
			for b.Loop() {
				secrets.ScanFile(c.path, c.b)
			}
		})
	}
	big := source(b, 48<<20)
	b.Run("go-48MiB-cache", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		for b.Loop() {
			secrets.NewCache().ScanFile("big.go", big)
		}
	})
	b.Run("go-48MiB-cache-reader", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		for b.Loop() {
			if _, err := secrets.NewCache().ScanReader("big.go", int64(len(big)), bytes.NewReader(big)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
