package web

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// barsOf is a plot's bars as "day author lines share%", in order.
func barsOf(p *plot) string {
	var out []string
	for _, b := range p.Bars {
		out = append(out, fmt.Sprintf("%s %s %d %s%%", b.Day, b.Author, b.Lines, b.Share))
	}
	return strings.Join(out, ", ")
}

// The plots over days with gaps and more authors than colours: a bar a
// day from the first to the last (an empty day has none, its slot kept),
// the largest author at the bottom, the authors past the palette drawn as
// one series (the legend still lists each); over a long time a bar stands
// for a run of days (its Day the run's first, a later day of the run in
// it) and their count stays bounded.
func TestWebTeam_PlotDays(t *testing.T) {
	lines := []TeamLines{
		{Day: "2026-12-01", Author: "codex", Kind: "agent", Added: 6, Events: 2},
		{Day: "2026-12-01", Author: "cli:bob", Kind: "person", Added: 2, Events: 1},
		{Day: "2026-12-03", Author: "codex", Kind: "agent", Added: 1, Events: 1},
		{Day: "2026-12-03", Author: "claude-code", Kind: "agent", Added: 3, Events: 1},
	}
	p := linesPlot(lines, false)
	if got, want := barsOf(p), "2026-12-01 codex 6 75.0%, 2026-12-01 cli:bob 2 25.0%, 2026-12-03 codex 1 25.0%, 2026-12-03 claude-code 3 75.0%"; got != want {
		t.Errorf("bars:\n%s\nwant\n%s", got, want)
	}
	if p.Max != 8 || p.Span != 1 || len(p.Ticks) != 3 || p.Ticks[1].Day != "2026-12-02" {
		t.Errorf("max %d, span %d, ticks %+v", p.Max, p.Span, p.Ticks)
	}
	if b := p.Bars; b[0].H != plotH*6/8 || b[1].Y != plotH-plotH*8/8 || b[2].X <= b[0].X+plotW/3 {
		t.Errorf("bar geometry: %+v", b)
	}
	s := linesPlot(lines, true)
	if s.Max != 100 || s.Bars[3].H != plotH*0.75 || s.Bars[2].Y+s.Bars[2].H != plotH {
		t.Errorf("share plot: %+v", s.Bars)
	}
	if got := fmt.Sprint(legend(lines)); !strings.HasPrefix(got, "[{codex agent #4e79a7 7 0 3 58.3} {claude-code agent #f28e2b 3 0 1 25.0} {cli:bob person") {
		t.Errorf("legend: %s", got)
	}

	var many []TeamLines
	d0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 2 * len(palette) {
		many = append(many, TeamLines{Day: d0.AddDate(0, 0, i*50).Format("2006-01-02"), Author: fmt.Sprintf("agent-%02d", i), Added: 100 - i})
	}
	p = linesPlot(many, false)
	series := map[string]bool{}
	for _, b := range p.Bars {
		series[b.Author] = true
	}
	if len(series) != len(palette) || !series[otherAuthors] || series["agent-19"] || !series["agent-08"] {
		t.Errorf("series over %d authors: %v", len(many), series)
	}
	if p.Span != 950/plotSlots+1 || len(p.Ticks) > 9 || p.Bars[len(p.Bars)-1].Day != "2026-08-02" {
		t.Errorf("a plot over 950 days: span %d, %d ticks, last bar %+v", p.Span, len(p.Ticks), p.Bars[len(p.Bars)-1])
	}
	if got := len(legend(many)); got != len(many) {
		t.Errorf("legend of %d authors: %d items", len(many), got)
	}
}
