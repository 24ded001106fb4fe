package match_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/journalfs/journal/ops/match"
)

var bigOnce = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 256<<20; i++ {
		fmt.Fprintf(&b, "%08d INFO request handled in %d ms path=/api/v1/items/%d status=200\n", i, i%997, i%7919)
		if i%100000 == 0 {
			b.WriteString("ERROR database connection refused\n")
		}
	}
	return b.Bytes()
})

// BenchmarkSearch_Exact scans 256 MiB of log lines for a rare string.
func BenchmarkSearch_Exact(b *testing.B) {
	data := bigOnce()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := match.Search(data, "connection refused", match.SearchOptions{MaxResults: 1000}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchReader_Exact is the same through the streaming reader.
func BenchmarkSearchReader_Exact(b *testing.B) {
	data := bigOnce()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := match.SearchReader(bytes.NewReader(data), "connection refused", match.SearchOptions{MaxResults: 1000, ContextLines: 2}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch_Regex scans 16 MiB with a regular expression.
func BenchmarkSearch_Regex(b *testing.B) {
	data := bigOnce()[:16<<20]
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := match.Search(data, `ERROR \w+ connection`, match.SearchOptions{Regex: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch_Fuzzy scans 16 MiB for an approximate string.
func BenchmarkSearch_Fuzzy(b *testing.B) {
	data := bigOnce()[:16<<20]
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := match.Search(data, "conection refused", match.SearchOptions{Fuzzy: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func sourceFile(n int) string {
	var b strings.Builder
	for i := range n / 6 {
		fmt.Fprintf(&b, "func handler%d(w http.ResponseWriter, r *http.Request) {\n\tid := r.URL.Query().Get(\"id%d\")\n\tif id == \"\" {\n\t\treturn\n\t}\n}\n", i, i)
	}
	return b.String()
}

// BenchmarkFind_Normalized: a 3-line search with look-alike quotes, other
// spacing and indentation in a 10k-line file (the normalized level).
func BenchmarkFind_Normalized(b *testing.B) {
	content := sourceFile(10000)
	search := "func handler1234(w http.ResponseWriter, r *http.Request) {\n    id := r.URL.Query().Get(\u201cid1234\u201d)\n    if id==\"\" {"
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if _, err := match.Find(content, search, match.Options{Fuzzy: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFind_Miss: the nearest-candidates search over a 10k-line file.
func BenchmarkFind_Miss(b *testing.B) {
	content := sourceFile(10000)
	search := "func handlerX(w http.ResponseWriter) {\n\tid := q.Get(\"idX\")\n\tif id == nil {"
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if _, err := match.Find(content, search, match.Options{}); err == nil {
			b.Fatal("want a miss")
		}
	}
}

// BenchmarkApply_Exact: a batch of 10 exact changes to a 10k-line file.
func BenchmarkApply_Exact(b *testing.B) {
	content := sourceFile(10000)
	var cs []match.Change
	for i := range 10 {
		cs = append(cs, match.Change{Search: fmt.Sprintf("\"id%d\"", i*100+1), Replace: "x"})
	}
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if _, _, err := match.Apply(content, cs); err != nil {
			b.Fatal(err)
		}
	}
}
