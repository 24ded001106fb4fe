package snapshot_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/iotest"

	"github.com/kalbasit/fastcdc"

	"github.com/journalfs/journal/snapshot"
)

// fastCDCCut is the reference: the library every stored content was cut
// with, configured as the store was (min 2 KiB, target 8 KiB, max 64 KiB).
func fastCDCCut(t testing.TB, data []byte) []int {
	t.Helper()
	c, err := fastcdc.NewChunker(bytes.NewReader(data), fastcdc.WithMinSize(2<<10), fastcdc.WithTargetSize(8<<10), fastcdc.WithMaxSize(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	var n []int
	for {
		ch, err := c.Next()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		n = append(n, len(ch.Data))
	}
}

func checkCut(t testing.TB, name string, data []byte) {
	t.Helper()
	want := fastCDCCut(t, data)
	if got := snapshot.Cut(data); !slices.Equal(got, want) {
		t.Fatalf("%s (%d bytes): in-memory cut %v, fastcdc %v", name, len(data), head(got), head(want))
	}
	// A reader returning one byte at a time exercises every refill path.
	for _, r := range []io.Reader{bytes.NewReader(data), iotest.HalfReader(bytes.NewReader(data))} {
		got, err := snapshot.StreamCut(r)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%s (%d bytes): streamed cut %v (%v), fastcdc %v", name, len(data), head(got), err, head(want))
		}
	}
}

func head(n []int) []int { return n[:min(len(n), 8)] }

// TestCut_MatchesFastCDC: the store's chunker cuts exactly where the library
// does, so contents stored before it deduplicate against contents stored now.
func TestCut_MatchesFastCDC(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2047, 2048, 2049, 3583, 3584, 3585, 8192, 65535, 65536, 65537, 200000, 3 << 20} {
		checkCut(t, "random", randBytes(r, n))
		checkCut(t, "source", source(r, n))
		checkCut(t, "zeros", make([]byte, n))
		checkCut(t, "ab", bytes.Repeat([]byte("ab"), n)[:n])
	}
	// Every chunk ends on each possible side of the two-byte step.
	data := randBytes(r, 8<<20)
	odd, even := 0, 0
	for _, k := range snapshot.Cut(data) {
		if k%2 == 1 {
			odd++
		} else {
			even++
		}
	}
	if odd == 0 || even == 0 {
		t.Fatalf("chunk lengths all of one parity (%d odd, %d even)", odd, even)
	}
	checkCut(t, "random 8 MiB", data)
}

func FuzzCut(f *testing.F) {
	f.Add([]byte("hello"), uint16(3000), uint8(1))
	f.Add([]byte{0, 1, 2, 3}, uint16(20000), uint8(7))
	f.Fuzz(func(t *testing.T, unit []byte, reps uint16, flip uint8) {
		if len(unit) == 0 {
			return
		}
		data := bytes.Repeat(unit, int(reps)%(1<<17/len(unit)+1))
		for i := int(flip); i < len(data); i += 997 {
			data[i] ^= flip
		}
		checkCut(t, "fuzz", data)
	})
}

// cutInputs are 16 MiB of text lines and of random bytes.
func cutInputs() map[string][]byte {
	r := rand.New(rand.NewPCG(1, 1))
	var text bytes.Buffer
	for text.Len() < 16<<20 {
		fmt.Fprintf(&text, "%d %x a line of some text\n", r.IntN(1e6), r.Uint64())
	}
	return map[string][]byte{"text": text.Bytes(), "random": randBytes(r, 16<<20)}
}

// BenchmarkCut cuts text and random bytes in memory; BenchmarkCut_FastCDC
// cuts the same with the library.
func BenchmarkCut(b *testing.B) {
	for name, data := range cutInputs() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				snapshot.Cut(data)
			}
		})
	}
}

func BenchmarkCut_FastCDC(b *testing.B) {
	for name, data := range cutInputs() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				fastCDCCut(b, data)
			}
		})
	}
}
