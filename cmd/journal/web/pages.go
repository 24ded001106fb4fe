package web

import (
	"bytes"
	"crypto/hmac"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/journalfs/journal/cmd/journal/web/hl"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
)

// pageSize is how many events a timeline page shows.
const pageSize = 50

// maxArgs bounds the bytes of an event's arguments its page prints: a
// batch of thousands of files may carry megabytes of them.
const maxArgs = 16 << 10

// clip is an event's arguments as its page prints them: whole up to
// maxArgs bytes, else their first maxArgs bytes (whole characters) and how
// many there are.
func clip(args []byte) string {
	if len(args) <= maxArgs {
		return string(args)
	}
	n := maxArgs
	for n > 0 && !utf8.RuneStart(args[n]) { // not inside a character
		n--
	}
	return fmt.Sprintf("%s… (%d bytes in all: cut here)", args[:n], len(args))
}

var funcs = template.FuncMap{
	"who":   who,
	"short": func(id snapshot.ID) string { return id.Short() },
	"when":  func(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") },
	"ago":   ago,
	"kind":  journal.FileChange.What,
	"lineSeq": func(l replay.BlameLine) string {
		if l.Seq == replay.Unjournaled {
			return "*"
		}
		return strconv.FormatUint(l.Seq, 10)
	},
	"instruction": instruction,
	"command":     command,
	"span":        span,
	"lag":         func(d time.Duration) string { return d.Round(100 * time.Millisecond).String() },
	"inc":         func(i int) int { return i + 1 },
	"clip":        clip,
	"fmt":         func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
	"add":         func(a, b float64) float64 { return a + b },
	"lineCounts": func(e *journal.Event) struct{ Added, Removed int } {
		var c struct{ Added, Removed int }
		c.Added, c.Removed = lineCounts(e.Files)
		return c
	},
	"rewound": replay.RewindChange,
	"perm":    func(m uint32) string { return fmt.Sprintf("%o", m) },
	"agentActor": func(p *replay.Prompt) journal.Actor {
		return journal.Actor{Kind: "agent", Name: p.Agent, Session: p.Session}
	},
	"promptRef": func(p *replay.Prompt) string {
		if p.Seq != 0 {
			return strconv.FormatUint(p.Seq, 10)
		}
		return p.ID
	},
}

// who is the short form of who made an event.
func who(a journal.Actor) string {
	switch a.Kind {
	case "cli":
		if a.Origin == "web" {
			return "web:" + a.User
		}
		return "cli:" + a.User
	case "mcp", "agent": // an MCP client, an agent through its hooks
		s := a.Name
		if s == "" {
			s = a.Kind
		}
		if a.Version != "" {
			s += " " + a.Version
		}
		if a.Session != "" {
			s += " /" + a.Session
		}
		return s
	}
	return a.Kind
}

// span is a time range in few words: "2026-11-26 14:02:11 – 14:09:40",
// the second date only when it differs, one time when they are the same
// second.
func span(from, to time.Time) string {
	from, to = from.Local(), to.Local()
	a := from.Format("2006-01-02 15:04:05")
	switch {
	case to.Truncate(time.Second).Equal(from.Truncate(time.Second)):
		return a
	case to.Format("2006-01-02") == from.Format("2006-01-02"):
		return a + " – " + to.Format("15:04:05")
	}
	return a + " – " + to.Format("2006-01-02 15:04:05")
}

// callInput is the input of the call an event records: its arguments, or
// for an agent's call recorded by its hooks the input they hold (beside
// "call", under "input", or the first of "calls" open at once); nil when
// they are not an object.
func callInput(e *journal.Event) map[string]json.RawMessage {
	if len(e.Args) == 0 || e.Args[0] != '{' {
		return nil
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(e.Args, &args) != nil {
		return nil
	}
	var calls []struct {
		Input map[string]json.RawMessage `json:"input"`
	}
	if json.Unmarshal(args["calls"], &calls) == nil && len(calls) > 0 && calls[0].Input != nil {
		return calls[0].Input
	}
	var in map[string]json.RawMessage
	if _, call := args["call"]; call && json.Unmarshal(args["input"], &in) == nil && in != nil {
		return in
	}
	return args
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

// instruction is what the agent said it was doing, where its tool call
// carries it (file_edit's edit_instruction, a Bash call's description and
// the like), cut to a line.
func instruction(e *journal.Event) string {
	in := callInput(e)
	for _, k := range []string{"edit_instruction", "instruction", "description", "explanation"} {
		var v string
		if json.Unmarshal(in[k], &v) == nil && strings.TrimSpace(v) != "" {
			return oneLine(v, 120)
		}
	}
	return ""
}

// command is the shell command an agent's call ran (Bash's command, Cline
// CLI's commands), cut to a line: shown beside its description, which is
// what the agent said of it, not what ran.
func command(e *journal.Event) string {
	in := callInput(e)
	var c string
	if json.Unmarshal(in["command"], &c) == nil && strings.TrimSpace(c) != "" {
		return oneLine(c, 120)
	}
	var cs []string
	if json.Unmarshal(in["commands"], &cs) == nil && len(cs) > 0 {
		return oneLine(strings.Join(cs, "; "), 120)
	}
	return ""
}

// ago is a short relative time.
func ago(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// row is an event in the timeline.
type row struct {
	*journal.Event
	Added, Removed int
	RevertedBy     uint64
}

// group is a run of consecutive timeline events by one session, with the
// session's record (all its events, not only those on the page).
type group struct {
	Session     journal.Session
	Known       bool      // Session is the journal's record
	From, To    time.Time // the session's first and last events' times (Known)
	Start, Stop time.Time
	Rows        []row
	// Prompt is the agent's prompt the group's events served
	// (replay.PromptOf; its text masked), nil for events of no prompt: a
	// session's run of events is split where its prompt changes.
	Prompt *replay.Prompt
}

// timeFormat is the form of the timeline's time filters (an
// <input type="datetime-local">), in the server's local time.
const timeFormat = "2006-01-02T15:04"

// timeline lists events newest first, grouped by session, filtered by
// ?path, ?session, ?tool, ?q (text in the tool, the paths or the arguments)
// and ?since/?until (local times), a page at a time (?before=N: events
// numbered below N).
func (s *Server) timeline(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	path, session, tool, text := q.Get("path"), q.Get("session"), q.Get("tool"), q.Get("q")
	var before uint64
	if v := q.Get("before"); v != "" {
		if n, err := strconv.ParseUint(v, 10, 64); err == nil {
			before = n
		}
	}
	var since, until time.Time
	for _, tf := range []struct {
		name string
		t    *time.Time
	}{{"since", &since}, {"until", &until}} {
		if v := q.Get(tf.name); v != "" {
			t, err := time.ParseInLocation(timeFormat, v, time.Local)
			if err != nil {
				s.fail(w, r, http.StatusBadRequest, fmt.Errorf("%s=%q is not a time", tf.name, v), "give it as 2026-11-26T14:30 (local time)")
				return
			}
			*tf.t = t
		}
	}
	if !until.IsZero() {
		until = until.Add(time.Minute) // the whole minute named
	}
	var rows []row
	var last uint64
	more := false
	keep := func(tx *journal.Tx) func(*journal.Event) error {
		return func(e *journal.Event) error {
			if before != 0 && e.Seq >= before {
				return nil
			}
			if !since.IsZero() && e.Time.Before(since) {
				return journal.ErrStop // newest first: the rest are older
			}
			if !until.IsZero() && !e.Time.Before(until) {
				return nil
			}
			e = s.mask().Event(e) // the instruction shown and the text searched hold no secret
			if tool != "" && e.Tool != tool || session != "" && e.Actor.Session != session || text != "" && !matches(e, text) {
				return nil
			}
			if len(rows) == pageSize {
				more = true
				return journal.ErrStop
			}
			rw := row{Event: e, RevertedBy: tx.RevertedBy(e.Seq)}
			rw.Added, rw.Removed = lineCounts(e.Files)
			rows = append(rows, rw)
			return nil
		}
	}
	var groups []*group
	err := s.e.Journal().View(func(tx *journal.Tx) error {
		last = tx.Last()
		var err error
		switch {
		case path != "":
			err = tx.EachIndexed("path", path, keep(tx))
		case session != "":
			err = tx.EachIndexed("session", session, keep(tx))
		default:
			from := last
			if before != 0 && before-1 < from {
				from = before - 1
			}
			if from != 0 {
				err = tx.Scan(from, true, keep(tx), nil)
			}
		}
		if err != nil && !errors.Is(err, journal.ErrStop) {
			return err
		}
		for _, rw := range rows {
			p, err := replay.PromptOf(tx, rw.Event)
			if err != nil {
				return err
			}
			p = s.maskPrompt(tx, p)
			g := groups[max(len(groups)-1, 0):]
			if len(g) == 0 || g[0].Rows[0].Actor.Session != rw.Actor.Session || g[0].Rows[0].Actor.Kind != rw.Actor.Kind || !samePrompt(g[0].Prompt, p) {
				ng := &group{Session: journal.Session{ID: rw.Actor.Session, Actor: rw.Actor}, Stop: rw.Time, Prompt: p}
				if rw.Actor.Session != "" {
					ng.Session, ng.Known = tx.Session(rw.Actor.Session)
					if !ng.Known {
						ng.Session = journal.Session{ID: rw.Actor.Session, Actor: rw.Actor}
					}
					if e, err := tx.Event(ng.Session.First); err == nil {
						ng.From = e.Time
					}
					if e, err := tx.Event(ng.Session.Last); err == nil {
						ng.To = e.Time
					}
				}
				groups = append(groups, ng)
			}
			cur := groups[len(groups)-1]
			cur.Rows = append(cur.Rows, rw)
			cur.Start = rw.Time
		}
		return nil
	})
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err, "`journal verify` checks the journal")
		return
	}
	next := ""
	if more && len(rows) > 0 {
		v := r.URL.Query()
		v.Set("before", strconv.FormatUint(rows[len(rows)-1].Seq, 10))
		next = "/?" + v.Encode()
	}
	reps, _ := s.e.Journal().Replications() // where each remote stands (journal serve --replicate, journal push)
	s.render(w, r, "timeline.html", map[string]any{"Title": "Timeline", "Groups": groups, "Last": last, "Next": next, "Replication": reps,
		"Path": path, "Session": session, "Tool": tool, "Q": text, "Since": q.Get("since"), "Until": q.Get("until"),
		"Filtered": path != "" || session != "" || tool != "" || text != "" || !since.IsZero() || !until.IsZero(),
		"Live":     before == 0})
}

// samePrompt reports whether a and b are the same prompt (or both none).
func samePrompt(a, b *replay.Prompt) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Session == b.Session && a.ID == b.ID && a.Seq == b.Seq
}

// matches reports whether text is in e's tool, paths or arguments.
func matches(e *journal.Event, text string) bool {
	if strings.Contains(e.Tool, text) || bytes.Contains(e.Args, []byte(text)) {
		return true
	}
	for _, f := range e.Files {
		if strings.Contains(f.Path, text) {
			return true
		}
	}
	return false
}

// event shows an event: its files with their counts, a page of them at a
// time (?from), each with its diff, in place or fetched (inPlace).
func (s *Server) event(w http.ResponseWriter, r *http.Request) {
	seq, err := seqParam(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err, "")
		return
	}
	var ev *journal.Event
	var files []fileDiff
	var revertedBy uint64
	var win window
	var werr error
	added, removed := 0, 0
	err = s.e.Journal().View(func(tx *journal.Tx) error {
		if ev, err = tx.Event(seq); err != nil {
			return err
		}
		ev = s.mask().Event(ev)
		revertedBy = tx.RevertedBy(seq)
		listed := ev.Listed()
		added, removed = lineCounts(listed)
		if win, werr = fileWindow(r, len(listed)); werr != nil {
			return nil
		}
		page := diffSides(ev, listed[win.From:win.To])
		files = inPlace(len(page), func(i int) bool { return large(tx, page[i]) },
			func(i int) fileDiff {
				d := s.diffFile(tx, page[i])
				d.Seq = seq
				return d
			},
			func(i int) fileDiff { return fileDiff{FileChange: page[i], Seq: seq} },
			func(i int) string { return fmt.Sprintf("/event/%d/diff?path=%s", seq, url.QueryEscape(page[i].Path)) })
		return nil
	})
	switch {
	case errors.Is(err, journal.ErrNotFound):
		s.fail(w, r, http.StatusNotFound, fmt.Errorf("event %d does not exist", seq), "the timeline lists the events")
		return
	case err != nil:
		s.fail(w, r, http.StatusInternalServerError, err, "")
		return
	case werr != nil:
		s.fail(w, r, http.StatusBadRequest, werr, windowHint)
		return
	}
	s.render(w, r, "event.html", map[string]any{"Title": fmt.Sprintf("Event %d", seq), "E": ev, "Files": files, "RevertedBy": revertedBy,
		"Window": win, "Added": added, "Removed": removed,
		"Revertable": ev.Kind != journal.KindGC && ev.Kind != journal.KindDamaged && ev.Status == journal.StatusCommitted && len(ev.Files) > 0})
}

// large reports whether a side of f is larger than an event page diffs
// in place: its diff is then loaded when the reader opens it.
func large(tx *journal.Tx, f journal.FileChange) bool {
	for _, id := range []snapshot.ID{f.Before, f.After} {
		if n, err := snapshot.Size(tx.Bolt(), id); err == nil && !id.IsZero() && n > lazyBytes {
			return true
		}
	}
	return false
}

// eventDiff is one file's diff of an event (?path), alone on a page: what
// an event page fetches when the file's entry is opened or comes into
// view, and where its link leads without JavaScript.
func (s *Server) eventDiff(w http.ResponseWriter, r *http.Request) {
	seq, err := seqParam(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err, "")
		return
	}
	path := r.URL.Query().Get("path")
	var d *fileDiff
	err = s.e.Journal().View(func(tx *journal.Tx) error {
		ev, err := tx.Event(seq)
		if err != nil {
			return err
		}
		if f, ok := ev.File(path); ok {
			if src, ok := ev.MoveSource(f); ok { // as the event page diffs it
				f.Before, f.BeforeMode = src.Before, src.BeforeMode
			}
			fd := s.diffFile(tx, f)
			fd.Seq, fd.Open = seq, true
			d = &fd
		}
		return nil
	})
	switch {
	case errors.Is(err, journal.ErrNotFound):
		s.fail(w, r, http.StatusNotFound, fmt.Errorf("event %d does not exist", seq), "the timeline lists the events")
	case err != nil:
		s.fail(w, r, http.StatusInternalServerError, err, "")
	case d == nil:
		s.fail(w, r, http.StatusNotFound, fmt.Errorf("event %d did not change %q", seq, path), fmt.Sprintf("/event/%d lists its files", seq))
	default:
		s.render(w, r, "filediff.html", map[string]any{"Title": fmt.Sprintf("%s in event %d", path, seq), "Up": fmt.Sprintf("/event/%d", seq), "Files": []fileDiff{*d}})
	}
}

// sessionFile is one file of a session page: its diff from before the
// session's first change to it to after its last, and how many changes by
// others that span holds.
type sessionFile struct {
	Diff   fileDiff
	Others int
}

// sessionSpan is one file a session changed: from before its first change
// to it to after its last (f), the events first and last.
type sessionSpan struct {
	first, last uint64
	f           journal.FileChange
}

// session shows what one session (an MCP client's connection, or a CLI
// user's commands) did: its events and a combined diff per file, a page of
// files at a time (?from), each diff in place or fetched (inPlace) from
// ?file=PATH, which shows that file's diff alone.
func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	file := r.URL.Query().Get("file")
	var evs []*journal.Event
	var files []sessionFile
	var win window
	var werr error
	err := s.e.Journal().View(func(tx *journal.Tx) error {
		err := tx.EachIndexed("session", id, func(e *journal.Event) error {
			evs = append(evs, e)
			return nil
		})
		if err != nil {
			return err
		}
		slices.Reverse(evs) // oldest first
		spans := map[string]*sessionSpan{}
		var order []string
		for _, e := range evs {
			if e.Status != journal.StatusCommitted {
				continue
			}
			for _, f := range e.Files {
				sp := spans[f.Path]
				if sp == nil {
					sp = &sessionSpan{first: e.Seq, f: f}
					spans[f.Path] = sp
					order = append(order, f.Path)
				}
				sp.last, sp.f.After, sp.f.AfterMode = e.Seq, f.After, f.AfterMode
				if f.MovedFrom != "" {
					sp.f.MovedFrom = f.MovedFrom
				}
			}
		}
		if file != "" {
			if sp := spans[file]; sp != nil {
				d := s.diffFile(tx, sp.f)
				d.Open = true
				files = []sessionFile{{Diff: d}}
			}
			return nil
		}
		if win, werr = fileWindow(r, len(order)); werr != nil {
			return nil
		}
		page := order[win.From:win.To]
		diffs := inPlace(len(page), func(int) bool { return false },
			func(i int) fileDiff { return s.diffFile(tx, spans[page[i]].f) },
			func(i int) fileDiff { return fileDiff{FileChange: spans[page[i]].f} },
			func(i int) string { return "/session/" + url.PathEscape(id) + "?file=" + url.QueryEscape(page[i]) })
		for i, p := range page {
			sp := spans[p]
			sf := sessionFile{Diff: diffs[i]}
			err := tx.EachIndexed("path", p, func(e *journal.Event) error {
				if e.Seq < sp.first {
					return journal.ErrStop
				}
				if e.Seq < sp.last && e.Actor.Session != id {
					sf.Others++
				}
				return nil
			})
			if err != nil {
				return err
			}
			files = append(files, sf)
		}
		return nil
	})
	switch {
	case err != nil:
		s.fail(w, r, http.StatusInternalServerError, err, "")
	case len(evs) == 0:
		s.fail(w, r, http.StatusNotFound, fmt.Errorf("no events of session %q", id), "the timeline names each event's session")
	case werr != nil:
		s.fail(w, r, http.StatusBadRequest, werr, windowHint)
	case file != "" && len(files) == 0:
		s.fail(w, r, http.StatusNotFound, fmt.Errorf("session %q did not change %q", id, file), "/session/"+id+" lists its files")
	case file != "":
		s.render(w, r, "filediff.html", map[string]any{"Title": fmt.Sprintf("%s in session %s", file, id), "Up": "/session/" + url.PathEscape(id), "Files": []fileDiff{files[0].Diff}})
	default:
		s.render(w, r, "session.html", map[string]any{"Title": "Session " + id, "ID": id, "Events": evs, "First": evs[0], "Last": evs[len(evs)-1], "Files": files, "Window": win})
	}
}

// revertPreview shows what reverting an event would do (a dry run), and the
// form that does it.
func (s *Server) revertPreview(w http.ResponseWriter, r *http.Request) {
	seq, err := seqParam(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err, "")
		return
	}
	res, err := s.e.Revert(r.Context(), seq, replay.RevertOptions{DryRun: true, Actor: &s.actor, WriteReadOnly: true})
	data := map[string]any{"Title": fmt.Sprintf("Revert event %d", seq), "Seq": seq, "Token": s.token("revert", seq)}
	s.preview(w, r, "revert.html", data, res, err, "")
}

// preview renders page with a dry run's outcome: its planned changes as
// diffs (Files), the conflict that blocks it (Conflict), or why it would
// change nothing (Nothing); another error fails the page with hint.
func (s *Server) preview(w http.ResponseWriter, r *http.Request, page string, data map[string]any, res *replay.Result, err error, hint string) {
	var ce *replay.ConflictError
	switch {
	case errors.As(err, &ce):
		data["Conflict"] = ce
	case errors.Is(err, replay.ErrNothing):
		data["Nothing"] = strings.TrimSuffix(err.Error(), ": "+replay.ErrNothing.Error()) // the reason, in words
	case errors.Is(err, replay.ErrBadEvent):
		s.fail(w, r, http.StatusNotFound, err, hint)
		return
	case err != nil:
		s.fail(w, r, http.StatusConflict, err, hint)
		return
	case r.URL.Query().Has("file"): // one file's diff, alone: what the page fetches for its entry
		s.plannedFile(w, r, res)
		return
	default:
		win, err := fileWindow(r, len(res.Files))
		if err != nil {
			s.fail(w, r, http.StatusBadRequest, err, windowHint)
			return
		}
		files, err := s.planned(r, res, win)
		if err != nil {
			s.fail(w, r, http.StatusInternalServerError, err, "")
			return
		}
		data["Files"], data["Window"] = files, win
	}
	s.render(w, r, page, data)
}

// plannedFile shows the diff of one file (?file) of a dry run's planned
// changes alone, under a link back to its preview.
func (s *Server) plannedFile(w http.ResponseWriter, r *http.Request, res *replay.Result) {
	file := r.URL.Query().Get("file")
	up := withoutFile(r)
	i := slices.IndexFunc(res.Files, func(f journal.FileChange) bool { return f.Path == file })
	if i < 0 {
		s.fail(w, r, http.StatusNotFound, fmt.Errorf("this change does not touch %q", file), up+" lists the files it changes")
		return
	}
	var d fileDiff
	if err := s.e.Journal().View(func(tx *journal.Tx) error { d = s.plannedDiff(tx, res, i); return nil }); err != nil {
		s.fail(w, r, http.StatusInternalServerError, err, "")
		return
	}
	d.Open = true
	s.render(w, r, "filediff.html", map[string]any{"Title": file, "Up": up, "Files": []fileDiff{d}})
}

// withoutFile is the request's address without ?file and ?from: the
// preview a file's diff belongs to.
func withoutFile(r *http.Request) string {
	u := *r.URL
	q := u.Query()
	q.Del("file")
	q.Del("from")
	u.RawQuery = q.Encode()
	return u.RequestURI()
}

// revert applies the revert the preview offered, as a new event.
func (s *Server) revert(w http.ResponseWriter, r *http.Request) {
	seq, err := seqParam(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err, "")
		return
	}
	if !s.confirmed(w, r, "revert", seq, "the event's revert page") {
		return
	}
	res, err := s.e.Revert(r.Context(), seq, replay.RevertOptions{Actor: &s.actor, WriteReadOnly: true})
	var ce *replay.ConflictError
	switch {
	case errors.As(err, &ce):
		s.fail(w, r, http.StatusConflict, err, "a later change overlaps it: open the revert page again to see the lines")
		return
	case err != nil:
		s.fail(w, r, http.StatusConflict, err, "")
		return
	case res.Seq == 0:
		http.Redirect(w, r, fmt.Sprintf("/event/%d", seq), http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, fmt.Sprintf("/event/%d", res.Seq), http.StatusSeeOther)
}

// restorePreview shows what restoring ?path to its state right after event
// ?at would change (a dry run), and the form that does it.
func (s *Server) restorePreview(w http.ResponseWriter, r *http.Request) {
	path, at, err := restoreParams(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err, "")
		return
	}
	data := map[string]any{"Title": fmt.Sprintf("Restore %s", path), "Path": path, "At": at, "Token": s.token("restore "+path, at)}
	res, err := s.e.Restore(r.Context(), path, at, replay.RevertOptions{DryRun: true, Actor: &s.actor, WriteReadOnly: true})
	s.preview(w, r, "restore.html", data, res, err, "the file's history lists the events it can be restored to")
}

// restore applies the restore the preview offered, as a new event.
func (s *Server) restore(w http.ResponseWriter, r *http.Request) {
	path, at, err := restoreParams(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err, "")
		return
	}
	if !s.confirmed(w, r, "restore "+path, at, "the restore page") {
		return
	}
	res, err := s.e.Restore(r.Context(), path, at, replay.RevertOptions{Actor: &s.actor, WriteReadOnly: true})
	switch {
	case errors.Is(err, replay.ErrNothing):
		http.Redirect(w, r, "/blame?path="+url.QueryEscape(path), http.StatusSeeOther)
	case err != nil:
		s.fail(w, r, http.StatusConflict, err, "")
	default:
		http.Redirect(w, r, fmt.Sprintf("/event/%d", res.Seq), http.StatusSeeOther)
	}
}

// restoreParams reads ?path and ?at (or the form's).
func restoreParams(r *http.Request) (string, uint64, error) {
	path := r.FormValue("path")
	at, err := strconv.ParseUint(r.FormValue("at"), 10, 64)
	if path == "" || err != nil || at == 0 {
		return "", 0, errors.New("a restore needs a file (path) and an event number (at)")
	}
	return path, at, nil
}

// confirmed checks that a POST carries the CSRF token of the page that
// offered action (page names it in the hint), and answers 403 if not.
func (s *Server) confirmed(w http.ResponseWriter, r *http.Request, action string, seq uint64, page string) bool {
	if hmacEqual(r.PostFormValue("token"), s.token(action, seq)) {
		return true
	}
	s.fail(w, r, http.StatusForbidden, errors.New("this form is not one this app offered (missing or wrong token)"), "open "+page+" again and confirm there")
	return false
}

// hmacEqual compares two tokens in constant time.
func hmacEqual(a, b string) bool {
	x, err1 := hex.DecodeString(a)
	y, err2 := hex.DecodeString(b)
	return err1 == nil && err2 == nil && len(x) > 0 && hmac.Equal(x, y)
}

// blame shows ?path's blame (as journaled at ?at, default the newest).
func (s *Server) blame(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Query().Get("path")
	var at uint64
	if v := r.URL.Query().Get("at"); v != "" {
		at, _ = strconv.ParseUint(v, 10, 64)
	}
	var b *replay.Blame
	err := s.e.Journal().View(func(tx *journal.Tx) (err error) { b, err = replay.BlameTx(tx, path, at); return })
	if errors.Is(err, journal.ErrNotFound) {
		s.fail(w, r, http.StatusNotFound, err, "the timeline lists the files the journal knows")
		return
	}
	if err != nil {
		s.fail(w, r, http.StatusUnprocessableEntity, err, "")
		return
	}
	// the code, highlighted as a whole where it is not too large
	lines := make([]string, len(b.Lines))
	for i, l := range b.Lines {
		lines[i] = strings.TrimRight(string(l.Text), "\r\n")
	}
	lines = s.mask().Lines(b.Path, lines)
	var code []template.HTML
	if lx := hl.Match(b.Path); lx != nil {
		code = highlight(lx, lines)
	}
	if code == nil {
		code = make([]template.HTML, len(lines))
		for i, l := range lines {
			code[i] = template.HTML(template.HTMLEscapeString(l))
		}
	}
	s.render(w, r, "blame.html", map[string]any{"Title": "Blame " + path, "B": b, "Code": code, "AtGiven": at != 0})
}

// live streams the journal's newest event number (server-sent events) each
// time it changes, whichever process committed it.
func (s *Server) live(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	var sent uint64
	tick := time.NewTicker(s.Poll)
	defer tick.Stop()
	for {
		var last uint64
		if err := s.e.Journal().View(func(tx *journal.Tx) error { last = tx.Last(); return nil }); err == nil && last != sent {
			fmt.Fprintf(w, "event: last\ndata: %d\n\n", last)
			fl.Flush()
			sent = last
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}

// sessionUndoPreview shows what undoing a whole session would do (a dry
// run), or what blocks it, and the form that does it.
func (s *Server) sessionUndoPreview(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var through uint64
	if err := s.e.Journal().View(func(tx *journal.Tx) error { through = tx.Last(); return nil }); err != nil {
		s.fail(w, r, http.StatusInternalServerError, err, "")
		return
	}
	data := map[string]any{"Title": "Undo session " + id, "ID": id, "Through": through, "Token": s.token("undo-session "+id, through)}
	res, err := s.e.UndoSession(r.Context(), id, replay.RevertOptions{DryRun: true, Through: through, Actor: &s.actor, WriteReadOnly: true})
	s.preview(w, r, "undo.html", data, res, err, "the timeline names each event's session")
}

// sessionUndo applies the undo the preview offered, as one new event.
func (s *Server) sessionUndo(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	through, _ := strconv.ParseUint(r.PostFormValue("through"), 10, 64) // a wrong one fails the token
	if !s.confirmed(w, r, "undo-session "+id, through, "the session's undo page") {
		return
	}
	// what the preview showed: the session's events up to then, not any it made since
	res, err := s.e.UndoSession(r.Context(), id, replay.RevertOptions{Through: through, Actor: &s.actor, WriteReadOnly: true})
	s.undone(w, r, res, err)
}

// planned diffs the planned changes of a dry run in win: each file as it
// is now against what the change would make it, in place or fetched from
// the page's address with ?file (inPlace).
func (s *Server) planned(r *http.Request, res *replay.Result, win window) ([]fileDiff, error) {
	var files []fileDiff
	base := withoutFile(r)
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	err := s.e.Journal().View(func(tx *journal.Tx) error {
		files = inPlace(win.To-win.From, func(int) bool { return false },
			func(i int) fileDiff {
				d := s.plannedDiff(tx, res, win.From+i)
				d.Open = true
				return d
			},
			func(i int) fileDiff { return fileDiff{FileChange: res.Files[win.From+i]} },
			func(i int) string { return base + sep + "file=" + url.QueryEscape(res.Files[win.From+i].Path) })
		return nil
	})
	return files, err
}

// plannedDiff diffs planned change i of a dry run: the file as it is now
// against what the change would make it.
func (s *Server) plannedDiff(tx *journal.Tx, res *replay.Result, i int) fileDiff {
	f := res.Files[i]
	cur, why := version(tx, f.Before)
	var next []byte
	if why == "" && i < len(res.Planned) {
		switch c := res.Planned[i]; {
		case c.Delete:
		case c.Data != nil:
			next = c.Data
		case c.Source != nil:
			next, why = source(c.Source)
		default:
			next = []byte{} // an empty file
		}
	}
	if why != "" {
		return summarised(f, why)
	}
	return s.makeDiff(f, cur, next)
}

// undone answers an undo the user confirmed (a session's, a prompt's): the
// new event's page, or why it was refused.
func (s *Server) undone(w http.ResponseWriter, r *http.Request, res *replay.Result, err error) {
	var ce *replay.ConflictError
	switch {
	case errors.As(err, &ce):
		s.fail(w, r, http.StatusConflict, err, "a later change overlaps it: open the undo page again to see where")
	case err != nil:
		s.fail(w, r, http.StatusConflict, err, "")
	default:
		http.Redirect(w, r, fmt.Sprintf("/event/%d", res.Seq), http.StatusSeeOther)
	}
}
