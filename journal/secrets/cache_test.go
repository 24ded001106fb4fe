package secrets_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/journalfs/journal/journal/secrets"
)

// TestCache_SameAsScanFile: a file edited again and again (lines inserted,
// removed, changed; keys, tokens and PEM blocks among them), scanned through
// one Cache, gives at every version exactly what ScanFile gives.
func TestCache_SameAsScanFile(t *testing.T) {
	seedFiles := []string{filepath.Join("..", "..", "replay", "apply.go"), filepath.Join("..", "..", "mcp", "history.go")}
	pieces := []string{
		"AWS_ACCESS_KEY_ID=" + awsKeyID + "\n", "AWS_SECRET_ACCESS_KEY=" + awsSecret + "\n", "token := \"" + ghToken + "\"\n",
		pemKey + "\n", "password = \"hunter2\"\n", "// an ordinary comment\n", "x := key + 1\n", "\n",
	}
	c := secrets.NewCache()
	r := rand.New(rand.NewPCG(1, 2))
	for _, sf := range seedFiles {
		b, err := os.ReadFile(sf)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 80<<10 { // past one window, so windows and their overlap are exercised too
			b = bytes.Repeat(b, 80<<10/len(b)+1)
		}
		lines := strings.SplitAfter(string(b), "\n")
		for step := 0; step < 40; step++ {
			i := r.IntN(len(lines))
			switch r.IntN(3) {
			case 0:
				lines = append(lines[:i], append([]string{pieces[r.IntN(len(pieces))]}, lines[i:]...)...)
			case 1:
				lines = append(lines[:i], lines[i+1:]...)
			default:
				lines[i] = pieces[r.IntN(len(pieces))]
			}
			text := []byte(strings.Join(lines, ""))
			for _, path := range []string{"x.go", ".env"} {
				want, got := secrets.ScanFile(path, text), c.ScanFile(path, text)
				if !reflect.DeepEqual(want, got) {
					t.Fatalf("%s step %d (%s): cached %+v\nwant %+v", sf, step, path, got, want)
				}
			}
		}
	}
}
