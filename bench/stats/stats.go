// Package stats summarizes latency samples for the comparison harness.
//
// Quantiles use the nearest-rank definition (the value at rank ⌈p·n⌉ of the
// sorted samples), the same as /work/shared/peers/bench-raw.mjs, so figures
// from the two harnesses can be compared. For an even n the median is the
// lower of the two middle samples.
package stats

import (
	"math"
	"slices"
	"time"
)

// Summary describes a set of latencies, in milliseconds.
type Summary struct {
	N      int     `json:"n"`
	Min    float64 `json:"min_ms"`
	Median float64 `json:"median_ms"`
	P95    float64 `json:"p95_ms"`
	Max    float64 `json:"max_ms"`
	Mean   float64 `json:"mean_ms"`
}

// Of summarizes ds; the zero Summary when ds is empty. ds is not modified.
func Of(ds []time.Duration) Summary {
	if len(ds) == 0 {
		return Summary{}
	}
	ms := make([]float64, len(ds))
	sum := 0.0
	for i, d := range ds {
		ms[i] = float64(d.Nanoseconds()) / 1e6
		sum += ms[i]
	}
	slices.Sort(ms)
	return Summary{
		N:      len(ms),
		Min:    ms[0],
		Median: Quantile(ms, 0.5),
		P95:    Quantile(ms, 0.95),
		Max:    ms[len(ms)-1],
		Mean:   sum / float64(len(ms)),
	}
}

// Quantile returns the nearest-rank p-quantile (0 < p ≤ 1) of sorted, which
// must be sorted ascending and non-empty.
func Quantile(sorted []float64, p float64) float64 {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	i = max(0, min(i, len(sorted)-1))
	return sorted[i]
}

// Ratio returns a/b, or NaN when either is missing (≤ 0 for b).
func Ratio(a, b float64) float64 {
	if b <= 0 || math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return a / b
}
