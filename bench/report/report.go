// Package report holds the comparison harness's JSON result and renders the
// "Comparison harness (issue 9)" section of BENCHMARKS.md from it.
//
// The JSON file is the record; the Markdown is generated from it and never
// edited by hand. Every metric row carries one value per target, and the
// rendered table shows the ratio ours/peer for every row where both sides
// have a value.
package report

import (
	"math"
	"time"

	"github.com/journalfs/journal/bench/stats"
)

// Target IDs, in table order. Ours is the one every ratio is taken of.
const (
	Ours   = "journal"
	Ref    = "reference"
	RefGit = "reference+git"
)

// Peers are the targets ours is compared with, in table order.
var Peers = []string{Ref, RefGit}

// Report is one run of the harness.
type Report struct {
	Mode      string     `json:"mode"` // "full" or "short"
	Date      time.Time  `json:"date"`
	Duration  float64    `json:"duration_s"`
	Machine   Machine    `json:"machine"`
	Commands  []string   `json:"commands"` // to reproduce, in order, from the repository root
	Rounds    int        `json:"rounds"`
	Targets   []Target   `json:"targets"`
	Floor     []Floor    `json:"durability_floor"`
	Workloads []Workload `json:"workloads"`
	// Failed lists every run that failed, "workload/target: reason".
	Failed []string `json:"failed,omitempty"`
	// Retried lists the runs that timed out and were run again (-short
	// only), "workload/target round N: reason"; the retry's figures are the
	// ones reported.
	Retried []string `json:"retried,omitempty"`
}

// Machine describes where the run happened.
type Machine struct {
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	MemoryGiB int    `json:"memory_gib"`
	Kernel    string `json:"kernel"`
	Disk      string `json:"disk"` // filesystem type of the work directory
	Go        string `json:"go"`
	Node      string `json:"node"`
	Git       string `json:"git"`
	// Load is /proc/loadavg's 1-minute figure at the start and the end of
	// the run: other work on the machine shows up in every timing.
	Load string `json:"load,omitempty"`
}

// Target is one server (or server + checkpoint) that the workloads ran on.
type Target struct {
	ID         string `json:"id"`
	Command    string `json:"command"`
	ServerInfo string `json:"server_info,omitempty"`
	Note       string `json:"note,omitempty"`
}

// Floor is one durability primitive measured on the work directory's disk.
type Floor struct {
	Name    string        `json:"name"`
	What    string        `json:"what"`
	Latency stats.Summary `json:"latency"`
}

// Workload is one workload's results across targets.
type Workload struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Method  []string `json:"method"` // how each target does it (tools, emulation)
	Metrics []Metric `json:"metrics"`
}

// Metric is one table row: a quantity measured on each target.
type Metric struct {
	Name   string           `json:"name"`
	Unit   string           `json:"unit"` // "ms", "MiB", "B/edit", "B"
	Values map[string]Value `json:"values"`
	// Ratios holds ours/peer by peer ID, where both have a value.
	Ratios map[string]float64 `json:"ratios,omitempty"`
}

// Value is one cell: a number, a failure, or not applicable.
type Value struct {
	V      *float64 `json:"value,omitempty"`
	Failed string   `json:"failed,omitempty"` // the run's result was wrong or it errored
	NA     string   `json:"na,omitempty"`     // the target has no such operation
}

// Num returns a Value holding v.
func Num(v float64) Value { return Value{V: &v} }

// Number returns the cell's value, or NaN when it has none.
func (v Value) Number() float64 {
	if v.V == nil || v.Failed != "" {
		return math.NaN()
	}
	return *v.V
}

// ComputeRatios fills Metric.Ratios for every row.
func (r *Report) ComputeRatios() {
	for wi := range r.Workloads {
		for mi := range r.Workloads[wi].Metrics {
			m := &r.Workloads[wi].Metrics[mi]
			m.Ratios = nil
			ours := m.Values[Ours].Number()
			for _, p := range Peers {
				q := stats.Ratio(ours, m.Values[p].Number())
				if math.IsNaN(q) || math.IsInf(q, 0) {
					continue
				}
				if m.Ratios == nil {
					m.Ratios = map[string]float64{}
				}
				m.Ratios[p] = q
			}
		}
	}
}

// OursFailed reports whether any run of our server failed.
func (r *Report) OursFailed() bool {
	for _, w := range r.Workloads {
		for _, m := range w.Metrics {
			if m.Values[Ours].Failed != "" {
				return true
			}
		}
	}
	return false
}
