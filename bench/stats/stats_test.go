package stats_test

import (
	"math"
	"testing"
	"time"

	"github.com/journalfs/journal/bench/stats"
)

func ms(xs ...float64) []time.Duration {
	out := make([]time.Duration, len(xs))
	for i, x := range xs {
		out[i] = time.Duration(x * float64(time.Millisecond))
	}
	return out
}

func TestOf_NearestRank(t *testing.T) {
	// 1..20 shuffled: median = rank 10, p95 = rank 19
	in := ms(7, 3, 20, 1, 14, 9, 2, 18, 11, 5, 16, 4, 13, 8, 19, 6, 12, 17, 10, 15)
	s := stats.Of(in)
	want := stats.Summary{N: 20, Min: 1, Median: 10, P95: 19, Max: 20, Mean: 10.5}
	if s != want {
		t.Fatalf("Of = %+v, want %+v", s, want)
	}
	if in[0] != 7*time.Millisecond {
		t.Fatal("Of sorted its input")
	}
}

func TestOf_SmallSets(t *testing.T) {
	if s := stats.Of(nil); s != (stats.Summary{}) {
		t.Fatalf("empty: %+v", s)
	}
	s := stats.Of(ms(4))
	if s.Median != 4 || s.P95 != 4 || s.N != 1 {
		t.Fatalf("one sample: %+v", s)
	}
	s = stats.Of(ms(1, 2))
	if s.Median != 1 || s.P95 != 2 {
		t.Fatalf("two samples: %+v", s)
	}
	s = stats.Of(ms(5, 1, 3))
	if s.Median != 3 || s.P95 != 5 {
		t.Fatalf("three samples: %+v", s)
	}
}

func TestQuantile_Bounds(t *testing.T) {
	xs := []float64{1, 2, 3, 4}
	for _, c := range []struct{ p, want float64 }{{0, 1}, {0.25, 1}, {0.26, 2}, {0.5, 2}, {0.75, 3}, {0.99, 4}, {1, 4}} {
		if got := stats.Quantile(xs, c.p); got != c.want {
			t.Errorf("Quantile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
}

func TestRatio(t *testing.T) {
	if r := stats.Ratio(3, 2); r != 1.5 {
		t.Errorf("Ratio(3,2) = %v", r)
	}
	for _, c := range [][2]float64{{1, 0}, {1, -1}, {math.NaN(), 1}, {1, math.NaN()}} {
		if r := stats.Ratio(c[0], c[1]); !math.IsNaN(r) {
			t.Errorf("Ratio(%v) = %v, want NaN", c, r)
		}
	}
}
