package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// TeamSource is what the team page reads: the events of every workspace on
// a remote, each verified against its hash and the chain back from its
// workspace's head, and the contents an event's diff needs. cmd/journal
// implements it with the reading code of `journal team` (teamweb.go).
type TeamSource interface {
	// Remote is the remote's name, for titles.
	Remote() string
	// Timeline returns the events q selects, newest first: at most n, or
	// with n = 0 all of them and the lines they add per day and author.
	// A q the source cannot read (a bad time) is an error wrapping
	// ErrTeamQuery.
	Timeline(ctx context.Context, q TeamQuery, n int) (*TeamTimeline, error)
	// Event returns event seq of workspace ws, verified (nil when it is
	// not there or not verified), and the objects found missing or
	// altered while reading it.
	Event(ctx context.Context, ws string, seq uint64) (*TeamRow, []string, error)
	// Content returns content id, read from the remote and checked
	// against id; a content larger than limit has its size and no bytes.
	Content(ctx context.Context, id snapshot.ID, limit int64) ([]byte, int64, error)
}

// ErrTeamQuery is a team page's filter the source cannot read.
var ErrTeamQuery = errors.New("web: bad team filter")

// TeamQuery is the team page's filters; "" selects all.
type TeamQuery struct {
	Workspace string // a workspace ID or a prefix of it
	// Repo is a git repository: a root commit, a prefix of one, or its
	// origin URL (every checkout of it).
	Repo  string
	Agent string // an agent's client name
	Actor string // who made the event, as `journal team log --actor` matches it
	Since string // a time as the CLI reads it (RFC 3339, a date, or 2d)
}

// TeamRow is one event of the team timeline, its secrets masked.
type TeamRow struct {
	Workspace string
	// Repository names the workspace's git repository (its origin without
	// credentials, else its short root commit); "" when its pushes
	// recorded none.
	Repository string
	*journal.Event
	Agent  string // the agent's client name, for an agent's event
	Person string // cli:USER, for a person's edit
	Who    string // the author shown: the agent, the person or the actor
	Model  string
	Prompt string // the text of the prompt it served (an excerpt)
}

// TeamLines is what one author's verified events added and removed on one
// day (UTC), as `journal team stats` counts them.
type TeamLines struct {
	Day            string // 2006-01-02
	Author, Kind   string // Kind: agent, person or other
	Events         int
	Added, Removed int
}

// TeamTimeline is what the team page shows of a remote.
type TeamTimeline struct {
	Rows     []TeamRow
	Lines    []TeamLines // with Timeline's n = 0 only
	Problems []string    // objects missing or altered: nothing of them is shown or counted
	Notes    []string
}

const (
	// teamPage is how many events the team timeline shows at first and
	// fetches at a time (?n= changes it, up to teamPageMax).
	teamPage    = 50
	teamPageMax = 500
	// plotW and plotH are the plots' drawing area, in SVG units.
	plotW, plotH = 720.0, 180.0
	// plotBarMax is the widest a day's bar is drawn (a plot of few days).
	plotBarMax = 48.0
	// plotSlots bounds a plot's bars per series: over more days, a bar
	// stands for several (its Day is the first).
	plotSlots = 120
)

// palette colours the plots' series, in order of their lines: the
// authors past its last but one are drawn as one series (otherAuthors), so
// a plot's size is bounded by its days, not by the team's size.
var palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

// NewTeam returns the app's team page over a remote: /team (the merged
// timeline, the plots, the damage found), /team/events (the timeline's
// next pages, JSON) and /team/event/WS/SEQ (an event's diffs, read from
// the remote); / leads to /team. It serves no workspace of its own.
func NewTeam(t TeamSource) (*Server, error) {
	s, err := newServer()
	if err != nil {
		return nil, err
	}
	s.team = t
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/team", http.StatusSeeOther) })
	s.mux.HandleFunc("GET /team", s.teamPage)
	s.mux.HandleFunc("GET /team/events", s.teamEvents)
	s.mux.HandleFunc("GET /team/event/{ws}/{seq}", s.teamEvent)
	return s, nil
}

// teamQuery reads the filters and the page size (?n) of a team request.
func teamQuery(r *http.Request) (TeamQuery, int, error) {
	v := r.URL.Query()
	q := TeamQuery{Workspace: v.Get("workspace"), Repo: v.Get("repo"), Agent: v.Get("agent"), Actor: v.Get("actor"), Since: v.Get("since")}
	n := teamPage
	if s := v.Get("n"); s != "" {
		k, err := strconv.Atoi(s)
		if err != nil || k < 1 || k > teamPageMax {
			return q, 0, fmt.Errorf("n=%q: the page size is a number of events from 1 to %d", s, teamPageMax)
		}
		n = k
	}
	return q, n, nil
}

// teamLink is the address of the timeline's page from `from` under q.
func teamLink(q TeamQuery, n, from int) string {
	v := url.Values{}
	for k, x := range map[string]string{"workspace": q.Workspace, "repo": q.Repo, "agent": q.Agent, "actor": q.Actor, "since": q.Since} {
		if x != "" {
			v.Set(k, x)
		}
	}
	if n != teamPage {
		v.Set("n", strconv.Itoa(n))
	}
	v.Set("from", strconv.Itoa(from))
	return "/team/events?" + v.Encode()
}

// The hints of a team request that failed.
const (
	sinceHint  = "since takes a time (2026-12-01, 2026-12-01T10:00:00Z) or an age (2d, 3h)"
	remoteHint = "the remote could not be read: `journal team log` says the same from the command line"
)

// teamFail answers a team request that failed: 400 for a bad filter.
func (s *Server) teamFail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, ErrTeamQuery) {
		s.fail(w, r, http.StatusBadRequest, err, sinceHint)
		return
	}
	s.fail(w, r, http.StatusBadGateway, err, remoteHint)
}

// teamPage is the team page: the plots of every event the filters select,
// the newest events (a page of them), and the objects found damaged.
func (s *Server) teamPage(w http.ResponseWriter, r *http.Request) {
	q, n, err := teamQuery(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err, "")
		return
	}
	tl, err := s.team.Timeline(r.Context(), q, 0)
	if err != nil {
		s.teamFail(w, r, err)
		return
	}
	rows, next := tl.Rows, ""
	if len(rows) > n {
		rows, next = rows[:n], teamLink(q, n, n)
	}
	added, lines := 0, tl.Lines
	for _, l := range lines {
		added += l.Added
	}
	s.render(w, r, "team.html", map[string]any{"Title": "Team · " + s.team.Remote(), "Remote": s.team.Remote(), "Q": q, "Rows": rows, "Next": next,
		"Total": len(tl.Rows), "Added": added, "Problems": tl.Problems, "Notes": tl.Notes,
		"Lines": linesPlot(lines, false), "Share": linesPlot(lines, true), "Legend": legend(lines)})
}

// teamRowJSON is a timeline row as /team/events gives it.
type teamRowJSON struct {
	Workspace  string         `json:"workspace"`
	Repository string         `json:"repository,omitempty"`
	Seq        uint64         `json:"seq"`
	Time       time.Time      `json:"time"`
	When       string         `json:"when"`
	Who        string         `json:"who"`
	Agent      string         `json:"agent,omitempty"`
	Person     string         `json:"person,omitempty"`
	Host       string         `json:"host,omitempty"`
	What       string         `json:"what"`
	Status     journal.Status `json:"status"`
	Paths      []string       `json:"paths,omitempty"`
	Added      int            `json:"added"`
	Removed    int            `json:"removed"`
	Model      string         `json:"model,omitempty"`
	Prompt     string         `json:"prompt,omitempty"`
	Href       string         `json:"href"`
}

// teamEvents is the timeline's page from ?from (JSON: rows, the next
// page's address, the damage found), which the page appends when its
// "older events" link is followed. It reads from + n events of each
// workspace at most, not every event.
func (s *Server) teamEvents(w http.ResponseWriter, r *http.Request) {
	q, n, err := teamQuery(r)
	from, ferr := strconv.Atoi(r.URL.Query().Get("from"))
	switch {
	case err != nil:
		writeJSONError(w, http.StatusBadRequest, err, "")
		return
	case ferr != nil || from < 0:
		writeJSONError(w, http.StatusBadRequest, fmt.Errorf("from=%q is not a number of events", r.URL.Query().Get("from")), "the team page's next link gives from, the events before the page")
		return
	}
	tl, err := s.team.Timeline(r.Context(), q, from+n+1)
	if errors.Is(err, ErrTeamQuery) {
		writeJSONError(w, http.StatusBadRequest, err, sinceHint)
		return
	} else if err != nil {
		writeJSONError(w, http.StatusBadGateway, err, remoteHint)
		return
	}
	rows, next := tl.Rows[min(from, len(tl.Rows)):], ""
	if len(rows) > n {
		rows, next = rows[:n], teamLink(q, n, from+n)
	}
	out := struct {
		Rows     []teamRowJSON `json:"rows"`
		Next     string        `json:"next,omitempty"`
		Problems []string      `json:"problems,omitempty"`
	}{Rows: []teamRowJSON{}, Next: next, Problems: tl.Problems}
	for _, t := range rows {
		j := teamRowJSON{Workspace: t.Workspace, Repository: t.Repository, Seq: t.Seq, Time: t.Time, When: t.Time.Local().Format("2006-01-02 15:04:05"), Who: t.Who,
			Agent: t.Agent, Person: t.Person, Host: t.Actor.Host, What: what(t.Event), Status: t.Status, Model: t.Model, Prompt: t.Prompt,
			Href: fmt.Sprintf("/team/event/%s/%d", t.Workspace, t.Seq)}
		listed := t.Listed()
		for _, f := range listed {
			j.Paths = append(j.Paths, f.Path)
		}
		j.Added, j.Removed = lineCounts(listed)
		out.Rows = append(out.Rows, j)
	}
	writeJSON(w, http.StatusOK, out)
}

// what is an event's tool, or its kind when no tool made it.
func what(e *journal.Event) string {
	if e.Tool != "" {
		return e.Tool
	}
	return string(e.Kind)
}

// workspaceID is the form of a workspace's ID.
var workspaceID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// teamEvent is one event of a workspace on the remote: who, when, its
// prompt and model, and each file's diff, read from the remote (the
// workspace's head, its index's pages down to the event, and the
// contents the event names: nothing else).
func (s *Server) teamEvent(w http.ResponseWriter, r *http.Request) {
	ws := r.PathValue("ws")
	if !workspaceID.MatchString(ws) {
		s.fail(w, r, http.StatusBadRequest, fmt.Errorf("%q is not a workspace ID", ws), "the team page links each event")
		return
	}
	seq, err := seqParam(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err, "")
		return
	}
	row, problems, err := s.team.Event(r.Context(), ws, seq)
	if err != nil {
		s.teamFail(w, r, err)
		return
	}
	if row == nil {
		s.renderCode(w, r, http.StatusNotFound, "teamevent.html", map[string]any{"Title": fmt.Sprintf("Event %d of %s", seq, ws[:8]), "Missing": true,
			"WS": ws, "Seq": seq, "Problems": problems})
		return
	}
	listed := row.Listed()
	win, err := fileWindow(r, len(listed))
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err, windowHint)
		return
	}
	added, removed := lineCounts(listed)
	files := make([]fileDiff, 0, win.To-win.From)
	for _, f := range diffSides(row.Event, listed[win.From:win.To]) {
		d := s.remoteDiff(r.Context(), f)
		d.Remote = true
		files = append(files, d)
	}
	s.render(w, r, "teamevent.html", map[string]any{"Title": fmt.Sprintf("Event %d of %s", seq, ws[:8]), "R": row, "E": row.Event,
		"Files": files, "Window": win, "Added": added, "Removed": removed, "Problems": problems})
}

// remoteDiff diffs a file change from the contents on the remote, or says
// why it is not shown (too large, or an object missing or altered: named).
func (s *Server) remoteDiff(ctx context.Context, f journal.FileChange) fileDiff {
	var sides [2][]byte
	for i, id := range []snapshot.ID{f.Before, f.After} {
		if id.IsZero() {
			continue
		}
		b, n, err := s.team.Content(ctx, id, maxLoad)
		switch {
		case err != nil:
			return summarised(f, err.Error())
		case b == nil:
			return summarised(f, fmt.Sprintf("%d bytes: too large to diff here (`journal clone` the workspace, then `journal diff`)", n))
		}
		sides[i] = b
	}
	return s.makeDiff(f, sides[0], sides[1])
}

// plot is an SVG chart of lines per day, one stacked bar a day, a series
// per author.
type plot struct {
	W, H  float64
	Share bool // each day's bar is its authors' shares (of 100%)
	Span  int  // the days a bar stands for: 1, or more over a long time
	Max   int  // the y axis' top, in lines (or 100 for shares)
	Bars  []plotBar
	Ticks []plotTick
}

// plotBar is one author's part of a day's bar.
type plotBar struct {
	X, Y, W, H  float64
	Day, Author string
	Lines       int
	Share       string // of the day's lines, in percent with one decimal
	Color       string
}

// plotTick is a day named under the x axis.
type plotTick struct {
	X   float64
	Day string
}

// legendItem is one author's series: its colour and share of every line.
type legendItem struct {
	Author, Kind, Color string
	Added, Removed      int
	Events              int
	Share               string
}

// authors orders the authors of lines by the lines they added, most first
// (then by name): their series' order and colours.
func authors(lines []TeamLines) []legendItem {
	by := map[string]*legendItem{}
	for _, l := range lines {
		it := by[l.Author]
		if it == nil {
			it = &legendItem{Author: l.Author, Kind: l.Kind}
			by[l.Author] = it
		}
		it.Added += l.Added
		it.Removed += l.Removed
		it.Events += l.Events
	}
	out := make([]legendItem, 0, len(by))
	for _, it := range by {
		out = append(out, *it)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Added != out[j].Added {
			return out[i].Added > out[j].Added
		}
		return out[i].Author < out[j].Author
	})
	for i := range out {
		out[i].Color = palette[i%len(palette)]
	}
	return out
}

// legend is the plots' legend: each author's lines and share of them.
func legend(lines []TeamLines) []legendItem {
	out := authors(lines)
	total := 0
	for _, it := range out {
		total += it.Added
	}
	for i := range out {
		out[i].Share = percent(out[i].Added, total)
	}
	return out
}

func percent(n, of int) string {
	if of == 0 {
		return "0.0"
	}
	return strconv.FormatFloat(float64(n)*100/float64(of), 'f', 1, 64)
}

// otherAuthors is the series of the authors the palette leaves out.
const otherAuthors = "other authors"

// linesPlot lays out the lines added per day (every day from the first to
// the last, those without lines empty; over more than plotSlots days, per
// run of days), stacked by author; with share, each bar is 100% high and
// split by the authors' shares.
func linesPlot(lines []TeamLines, share bool) *plot {
	if len(lines) == 0 {
		return nil
	}
	order := authors(lines)
	series := map[string]string{} // author → its series: itself, or otherAuthors past the palette
	if len(order) > len(palette) {
		for _, it := range order[len(palette)-1:] {
			series[it.Author] = otherAuthors
		}
		order = append(order[:len(palette)-1:len(palette)-1], legendItem{Author: otherAuthors, Color: palette[len(palette)-1]})
	}
	color := map[string]string{}
	for _, it := range order {
		color[it.Author] = it.Color
	}
	first, last := lines[0].Day, lines[0].Day
	for _, l := range lines {
		first, last = min(first, l.Day), max(last, l.Day)
	}
	d0, _ := time.Parse("2006-01-02", first)
	d1, _ := time.Parse("2006-01-02", last)
	span := int(d1.Sub(d0).Hours()/24)/plotSlots + 1 // days a bar stands for
	n := int(d1.Sub(d0).Hours()/24)/span + 1
	slotDay := func(i int) string { return d0.AddDate(0, 0, i*span).Format("2006-01-02") }
	days := map[string]map[string]int{} // a bar's first day → series → lines
	for _, l := range lines {
		d, _ := time.Parse("2006-01-02", l.Day)
		day := slotDay(int(d.Sub(d0).Hours()/24) / span)
		if days[day] == nil {
			days[day] = map[string]int{}
		}
		a := l.Author
		if s, ok := series[a]; ok {
			a = s
		}
		days[day][a] += l.Added
	}
	p := &plot{W: plotW, H: plotH, Share: share, Max: 100, Span: span}
	if !share {
		p.Max = 1
		for _, m := range days {
			t := 0
			for _, k := range m {
				t += k
			}
			p.Max = max(p.Max, t)
		}
	}
	slot := plotW / float64(n)
	bw := min(slot*0.8, plotBarMax)
	step := int(math.Ceil(float64(n) / 8))
	for i := range n {
		day := slotDay(i)
		x := float64(i) * slot
		if i%step == 0 {
			p.Ticks = append(p.Ticks, plotTick{X: x + slot/2, Day: day})
		}
		total := 0
		for _, k := range days[day] {
			total += k
		}
		y := plotH
		for _, it := range order {
			k := days[day][it.Author]
			if k == 0 {
				continue
			}
			h := float64(k) / float64(p.Max) * plotH
			if share {
				h = float64(k) / float64(total) * plotH
			}
			y -= h
			p.Bars = append(p.Bars, plotBar{X: x + (slot-bw)/2, Y: y, W: bw, H: h, Day: day, Author: it.Author, Lines: k,
				Share: percent(k, total), Color: color[it.Author]})
		}
	}
	p.Bars = slices.Clip(p.Bars)
	return p
}

// writeJSON answers code with v as JSON.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "web: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

// writeJSONError answers code with {"error": err, "hint": hint}.
func writeJSONError(w http.ResponseWriter, code int, err error, hint string) {
	writeJSON(w, code, struct {
		Error string `json:"error"`
		Hint  string `json:"hint,omitempty"`
	}{err.Error(), hint})
}
