package report_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/bench/report"
)

func TestReplaceSection_ReplacesOnlyOwnSection(t *testing.T) {
	doc := "# Benchmarks\n\nintro\n\n## Other (issue 3)\n\nkeep me\n\n" + report.Heading + "\n\nold table\n### sub\nold\n\n## Later\n\nkeep too\n"
	got := report.ReplaceSection(doc, report.Heading, report.Heading+"\n\nnew\n")
	want := "# Benchmarks\n\nintro\n\n## Other (issue 3)\n\nkeep me\n\n" + report.Heading + "\n\nnew\n\n## Later\n\nkeep too\n"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	// idempotent
	if again := report.ReplaceSection(got, report.Heading, report.Heading+"\n\nnew\n"); again != got {
		t.Fatalf("second replace changed the doc:\n%s", again)
	}
}

func TestReplaceSection_AppendsAndCreates(t *testing.T) {
	if got := report.ReplaceSection("", report.Heading, "S\n"); got != "S\n" {
		t.Errorf("empty doc: %q", got)
	}
	if got := report.ReplaceSection("# B\n\n## A\nx\n", report.Heading, "S"); got != "# B\n\n## A\nx\n\nS\n" {
		t.Errorf("append: %q", got)
	}
	// section at the end of the doc
	if got := report.ReplaceSection("## A\n"+report.Heading+"\nold\n", report.Heading, "S\n"); got != "## A\nS\n" {
		t.Errorf("last section: %q", got)
	}
}

func TestReplaceSection_IgnoresHeadingsInCodeFences(t *testing.T) {
	doc := report.Heading + "\n```sh\n## not a heading\n```\nold\n## Next\n"
	if got := report.ReplaceSection(doc, report.Heading, "S\n"); got != "S\n\n## Next\n" {
		t.Errorf("got %q", got)
	}
}

func sample() *report.Report {
	r := &report.Report{Mode: "short", Date: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Rounds: 2,
		Commands: []string{"bash bench/setup.sh", "go run ./bench/cmd/mcpbench -short"},
		Targets:  []report.Target{{ID: report.Ours, Command: "journal serve --root {DIR}"}},
		Workloads: []report.Workload{{ID: "small", Title: "small edits", Method: []string{"edit_content."},
			Metrics: []report.Metric{
				{Name: "median", Unit: "ms", Values: map[string]report.Value{
					report.Ours: report.Num(0.5), report.Ref: report.Num(1), report.RefGit: report.Num(10)}},
				{Name: "history", Unit: "B/edit", Values: map[string]report.Value{
					report.Ours: report.Num(300), report.Ref: {NA: "keeps no history"}, report.RefGit: {Failed: "file | differs"}}},
			}}},
	}
	r.ComputeRatios()
	return r
}

func TestComputeRatios_EveryRowWithBothSides(t *testing.T) {
	r := sample()
	m := r.Workloads[0].Metrics
	if m[0].Ratios[report.Ref] != 0.5 || m[0].Ratios[report.RefGit] != 0.05 {
		t.Errorf("ratios = %v", m[0].Ratios)
	}
	if len(m[1].Ratios) != 0 {
		t.Errorf("ratios against n/a and failed cells: %v", m[1].Ratios)
	}
	if !math.IsNaN(report.Value{Failed: "x", V: m[0].Values[report.Ours].V}.Number()) {
		t.Error("a failed value has a number")
	}
	if r.OursFailed() {
		t.Error("OursFailed with no failure of ours")
	}
	r.Workloads[0].Metrics[0].Values[report.Ours] = report.Value{Failed: "wrong content"}
	if !r.OursFailed() {
		t.Error("OursFailed missed a failure")
	}
}

func TestMarkdown_TableAndNotes(t *testing.T) {
	md := sample().Markdown("bench/results/x.json")
	for _, want := range []string{
		report.Heading + "\n",
		"| small edits | median (ms) | 0.500 | 1.00 | 0.50× | 10.0 | 0.05× |",
		"|  | history (B/edit) | 300 | — [1] | — | **FAILED** [2] | — |",
		"1. keeps no history", "2. file \\| differs",
		"go run ./bench/cmd/mcpbench -short",
		"2026-01-02 03:04 UTC",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestReport_JSONRoundTrip(t *testing.T) {
	r := sample()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back report.Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Markdown("p") != r.Markdown("p") {
		t.Error("markdown differs after a JSON round trip")
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{{0.1234, "ms", "0.123"}, {1.234, "ms", "1.23"}, {12.34, "ms", "12.3"}, {1234.5, "ms", "1234"}, {12.34, "MiB", "12.3"}, {1234.5, "B/edit", "1234"}, {math.NaN(), "ms", "—"}} {
		if got := report.FormatNumber(c.v, c.unit); got != c.want {
			t.Errorf("FormatNumber(%v, %s) = %s, want %s", c.v, c.unit, got, c.want)
		}
	}
	if got := report.FormatRatio(0.004); got != "0.0040×" {
		t.Errorf("FormatRatio(0.004) = %s", got)
	}
	if got := report.FormatRatio(25); got != "25×" {
		t.Errorf("FormatRatio(25) = %s", got)
	}
}
