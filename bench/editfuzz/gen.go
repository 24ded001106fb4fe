package editfuzz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/journalfs/journal/ops/merge"
)

// Call is one tool call; a string argument starting with "$FILE" has the
// fuzzed file's absolute path in its place (corpus.Substitute).
type Call struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// Trial is one request made from a real edit and mutated as agents err,
// with the outcomes the oracle accepts. It is what a regression case
// stores: everything needed to send it again, nothing the generator must
// recompute.
type Trial struct {
	Form     string `json:"form"`
	Mutation string `json:"mutation"`
	Source   string `json:"source"`
	Path     string `json:"path"` // the pair's path in its source
	// Before is the file when the session reads it; Outside, if set, is
	// written behind the server's back after the read (someone else's
	// change the session has not seen).
	Before  string `json:"before"`
	Outside string `json:"outside,omitempty"`
	Call    Call   `json:"call"`
	// Repeat: the call is sent a second time (an agent's retry).
	Repeat bool `json:"repeat,omitempty"`
	// Intended is the file the agent meant; "" with MustRefuse.
	Intended string `json:"intended"`
	// Literal lists other files a success may leave: the request's literal
	// meaning, where the mutation leaves a request that unambiguously asks
	// for it (see the mutations' table).
	Literal []string `json:"literal,omitempty"`
	// MustRefuse: no success is right (the lines to edit were changed by
	// someone else since the read).
	MustRefuse bool `json:"must_refuse,omitempty"`
}

// Tool is the tool the trial calls.
func (t Trial) Tool() string { return t.Call.Tool }

// Forms are the requests an agent sends for one real edit.
var Forms = []string{
	"edit_content/minimal", // search/replace, the fewest whole lines that are unique
	"edit_content/context", // the same with two more lines each side
	"edit_content/changes", // one change per changed region, in a batch
	"file_replace/lines",
	"ai_code_editing.edit_file/lines",
	"file_edit/lines",
}

// Mutation is one way agents err, applied to the request of a form.
type Mutation struct {
	Name string
	// Literal: a success may leave the request's literal result (the
	// mutation leaves a request whose literal meaning is unambiguous and
	// differs from the intent). TextOnly / LinesOnly restrict the forms.
	Literal   bool
	TextOnly  bool
	LinesOnly bool
	About     string
	apply     func(d *draft, r *rand.Rand) bool
}

// edit is one change of a draft: for a text form the search and replace
// texts, for a line form the content (in replace) of lines start..end
// (1-based, inclusive) whose text is search.
type edit struct {
	search, replace string
	start, end      int
}

// draft is a request being made: the form's edits, the file around them
// and the oracle's expectations.
type draft struct {
	form       string
	ext        string
	before     string // the file at the read
	outside    string
	intended   string
	edits      []edit
	repeat     bool
	mustRefuse bool
	dupOp      bool // send the first change twice in one call
	crlfFile   bool
	literalOK  bool // this draft's request literally asks for something else, unambiguously
}

func (d *draft) textForm() bool { return strings.HasPrefix(d.form, "edit_content") }

// Mutations, the ways agents err. Strict ones (Literal false) must give the
// intended file or refuse.
var Mutations = []Mutation{
	{Name: "none", About: "the request as a careful agent sends it", apply: func(*draft, *rand.Rand) bool { return true }},
	{Name: "retry", About: "the same request sent twice: the second must say already_applied or refuse, never apply again",
		apply: func(d *draft, _ *rand.Rand) bool { d.repeat = true; return true }},
	{Name: "indent-restyle", About: "tabs sent as 4 spaces, or the file's spaces as tabs (literal allowed where no search changed: line tools write as sent, and an exact match shows nothing of the agent's style)",
		apply: restyleDraft},
	{Name: "indent-dedent", About: "the block's common indentation left out (literal allowed as for indent-restyle)",
		apply: dedent},
	{Name: "elide-search", TextOnly: true, About: "middle lines of the search replaced by an elision marker",
		apply: elideSearch},
	{Name: "elide-replace", About: "unchanged lines of the replacement (content) replaced by an elision marker",
		apply: elideReplace},
	{Name: "trunc-search-lines", TextOnly: true, Literal: true, About: "the search's last lines cut off (whole lines: a unique match literally asks for less)",
		apply: truncSearchLines},
	{Name: "trunc-search-mid", TextOnly: true, About: "the search cut inside its last line",
		apply: truncSearchMid},
	{Name: "trunc-replace", Literal: true, About: "the replacement (content) cut short: literally a shorter text",
		apply: truncReplace},
	{Name: "escape-twice", About: "the texts JSON-escaped once more (\\n, \\t, \\\" as two characters)",
		apply: escapeTwiceDraft},
	{Name: "lineno-prefix", About: "the read's line-number prefixes (`12: `) copied into the search, or into a line tool's content",
		apply: linenoPrefix(false)},
	{Name: "lineno-prefix-both", TextOnly: true, About: "line-number prefixes copied into both search and replace",
		apply: linenoPrefix(true)},
	{Name: "lookalike", About: "curly quotes, en dashes, no-break spaces in the search (a line tool's content)",
		apply: lookalike(false)},
	{Name: "lookalike-both", TextOnly: true, About: "look-alike characters in both search and replace",
		apply: lookalike(true)},
	{Name: "nl-drop-search", TextOnly: true, About: "the search's final newline left out, the replacement's kept",
		apply: nlDrop(true, false)},
	{Name: "nl-drop-replace", About: "the replacement's (content's) final newline left out, the search's kept",
		apply: nlDrop(false, true)},
	{Name: "nl-drop-both", TextOnly: true, About: "both final newlines left out",
		apply: nlDrop(true, true)},
	{Name: "nl-extra-replace", Literal: true, About: "an extra newline at the end of the replacement (content): literally one more blank line",
		apply: nlExtra},
	{Name: "partial-search", TextOnly: true, About: "the search starts inside its first line (its indentation and first word left out)",
		apply: partial(false)},
	{Name: "partial-both", TextOnly: true, About: "search and replace both start inside the first line, at the same place",
		apply: partial(true)},
	{Name: "crlf-file", About: "the file has CRLF line endings, the request LF",
		apply: crlfFile},
	{Name: "crlf-request", About: "the request has CRLF line endings, the file LF",
		apply: mutText(true, true, func(s string, _ *rand.Rand) string { return toCRLF(s) })},
	{Name: "stale-lines", About: "someone else inserted lines above the edit after the session's read",
		apply: staleLines},
	{Name: "stale-changed", About: "someone else changed a line the edit replaces after the read: only a refusal is right",
		apply: staleChanged},
	{Name: "repeat-change", About: "the same change twice in one call (a batch of changes or of ops)",
		apply: repeatChange},
}

// MutationByName returns the named mutation.
func MutationByName(name string) (Mutation, bool) {
	for _, m := range Mutations {
		if m.Name == name {
			return m, true
		}
	}
	return Mutation{}, false
}

// splitLines splits s after each "\n"; the last element lacks one only if
// s does not end with one.

func lines(s string) []string {
	ls := strings.SplitAfter(s, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// Generate makes the trial of pair p for form and mutation, drawing the
// mutation's choices from r; ok is false when the mutation does not apply
// to this pair and form.
func Generate(p Pair, form string, m Mutation, r *rand.Rand) (Trial, bool) {
	d, ok := newDraft(p, form)
	if !ok {
		return Trial{}, false
	}
	if (m.TextOnly && !d.textForm()) || (m.LinesOnly && d.textForm()) {
		return Trial{}, false
	}
	if !m.apply(d, r) {
		return Trial{}, false
	}
	t := Trial{Form: form, Mutation: m.Name, Source: p.Source, Path: p.Path, Before: d.before, Outside: d.outside,
		Repeat: d.repeat, Intended: d.intended, MustRefuse: d.mustRefuse}
	if d.mustRefuse {
		t.Intended = ""
	}
	t.Call = d.call()
	if (m.Literal || d.literalOK) && !d.mustRefuse {
		base := d.before
		if d.outside != "" {
			base = d.outside
		}
		for _, lit := range d.literal(base) {
			if lit != t.Intended && !slices.Contains(t.Literal, lit) {
				t.Literal = append(t.Literal, lit)
			}
		}
	}
	return t, true
}

// newDraft derives form's request from the pair's edit, unmutated.
func newDraft(p Pair, form string) (*draft, bool) {
	B, A := lines(p.Before), lines(p.After)
	hs := merge.DiffStrings(B, A)
	if len(hs) == 0 {
		return nil, false
	}
	d := &draft{form: form, ext: p.Ext(), before: p.Before, intended: p.After}
	if d.textForm() {
		var groups []merge.Hunk
		if form == "edit_content/changes" {
			groups = hs
		} else {
			groups = []merge.Hunk{{A0: hs[0].A0, A1: hs[len(hs)-1].A1, B0: hs[0].B0, B1: hs[len(hs)-1].B1}}
		}
		ctx := 0
		if form == "edit_content/context" {
			ctx = 2
		}
		var spans [][2]int
		for _, h := range groups {
			s0, s1, ok := uniqueSpan(B, max(h.A0-ctx, 0), min(h.A1+ctx, len(B)))
			if !ok {
				return nil, false
			}
			if n := len(spans); n > 0 && s0 <= spans[n-1][1] {
				return nil, false // overlapping changes: the batch form needs separate ones
			}
			spans = append(spans, [2]int{s0, s1})
		}
		for i, h := range groups {
			s0, s1 := spans[i][0], spans[i][1]
			d.edits = append(d.edits, edit{search: strings.Join(B[s0:s1], ""),
				replace: strings.Join(B[s0:h.A0], "") + strings.Join(A[h.B0:h.B1], "") + strings.Join(B[h.A1:s1], ""),
				start:   s0 + 1, end: s1})
		}
		return d, true
	}
	a0, a1, b0, b1 := hs[0].A0, hs[len(hs)-1].A1, hs[0].B0, hs[len(hs)-1].B1
	content := strings.Join(A[b0:b1], "")
	if a0 == a1 { // a pure insertion: replace a neighbour line with itself and the new lines
		if a0 > 0 {
			a0--
			content = B[a0] + content
		} else {
			a1++
			content += B[0]
		}
	}
	d.edits = []edit{{search: strings.Join(B[a0:a1], ""), replace: content, start: a0 + 1, end: a1}}
	return d, true
}

// uniqueSpan widens lines [s0,s1) of B, alternately up and down, until
// their text occurs once in the file.
func uniqueSpan(B []string, s0, s1 int) (int, int, bool) {
	whole := strings.Join(B, "")
	for up := true; ; up = !up {
		if s1 > s0 {
			if t := strings.Join(B[s0:s1], ""); strings.TrimSpace(t) != "" && strings.Count(whole, t) == 1 {
				return s0, s1, true
			}
		}
		switch {
		case up && s0 > 0:
			s0--
		case !up && s1 < len(B):
			s1++
		case s0 == 0 && s1 == len(B):
			return 0, 0, false
		}
	}
}

// call is the draft's request.
func (d *draft) call() Call {
	e := d.edits
	switch {
	case d.textForm():
		if len(e) == 1 && d.form != "edit_content/changes" && !d.dupOp {
			return Call{Tool: "edit_content", Args: map[string]any{"absolute_file_path": "$FILE", "search_text": e[0].search, "replace_text": e[0].replace, "preview": false}}
		}
		var cs []any
		for _, x := range e {
			cs = append(cs, map[string]any{"search_text": x.search, "replace_text": x.replace})
		}
		if d.dupOp {
			cs = append(cs, cs[0])
		}
		return Call{Tool: "edit_content", Args: map[string]any{"absolute_file_path": "$FILE", "changes": cs, "preview": false}}
	case strings.HasPrefix(d.form, "file_replace"):
		op := map[string]any{"path": "$FILE", "start_line": e[0].start, "end_line": e[0].end, "content": e[0].replace}
		opsList := []any{op}
		if d.dupOp {
			opsList = append(opsList, op)
		}
		return Call{Tool: "file_replace", Args: map[string]any{"ops": opsList}}
	case strings.HasPrefix(d.form, "ai_code_editing"):
		a := map[string]any{"target_file": "$FILE", "edit_instruction": "apply the change", "start_line": e[0].start, "end_line": e[0].end,
			"code_block": e[0].replace, "edit_type": "replace"}
		if e[0].replace == "" {
			a["edit_type"] = "delete"
			delete(a, "code_block")
		}
		return Call{Tool: "ai_code_editing.edit_file", Args: a}
	default:
		return Call{Tool: "file_edit", Args: map[string]any{"file": "$FILE", "startLine": e[0].start, "endLine": e[0].end, "code": e[0].replace}}
	}
}

// literal returns what the request literally asks of file base, if that
// is unambiguous: every search found exactly once, byte for byte, the
// spans not overlapping; for a line form the lines replaced by the
// content, with and without a line ending added to a content that lacks
// one.
func (d *draft) literal(base string) []string {
	if d.textForm() {
		type span struct {
			at, n int
			with  string
		}
		// whole: a search ending with a line break and a replacement
		// without it read as whole lines (edit_content's rule, as the line
		// tools' below): the replacement's last line keeps its line break
		build := func(whole bool) (string, bool) {
			var sp []span
			for _, e := range d.edits {
				if e.search == "" || strings.Count(base, e.search) != 1 {
					return "", false
				}
				with := e.replace
				if whole && strings.HasSuffix(e.search, "\n") && with != "" && !strings.HasSuffix(with, "\n") {
					with += "\n"
				}
				sp = append(sp, span{strings.Index(base, e.search), len(e.search), with})
			}
			slices.SortFunc(sp, func(a, b span) int { return a.at - b.at })
			var b strings.Builder
			at := 0
			for _, s := range sp {
				if s.at < at {
					return "", false
				}
				b.WriteString(base[at:s.at])
				b.WriteString(s.with)
				at = s.at + s.n
			}
			b.WriteString(base[at:])
			return b.String(), true
		}
		var out []string
		for _, whole := range []bool{false, true} {
			if lit, ok := build(whole); ok && !slices.Contains(out, lit) {
				out = append(out, lit)
			}
		}
		return out
	}
	B := lines(base)
	e := d.edits[0]
	if e.end > len(B) || d.outside != "" {
		return nil
	}
	content := e.replace
	eol := "\n"
	if d.crlfFile {
		eol = "\r\n"
		content = toCRLF(content)
	}
	head, tail := strings.Join(B[:e.start-1], ""), strings.Join(B[e.end:], "")
	out := []string{head + content + tail}
	if content != "" && !strings.HasSuffix(content, "\n") {
		out = append(out, head+content+eol+tail)
	}
	return out
}

// mutText applies f to the searches and/or replacements (a line form's
// content is its replacement); it applies when f changed something.
func mutText(search, replace bool, f func(string, *rand.Rand) string) func(*draft, *rand.Rand) bool {
	return func(d *draft, r *rand.Rand) bool {
		changed := false
		for i := range d.edits {
			e := &d.edits[i]
			if search && d.textForm() {
				s := f(e.search, r)
				changed = changed || s != e.search
				e.search = s
			}
			if replace {
				s := f(e.replace, r)
				changed = changed || s != e.replace
				e.replace = s
			}
		}
		return changed
	}
}

// indentUnit is the file's indentation: "\t", or the smallest positive
// run of leading spaces.
func indentUnit(s string) string {
	n := 0
	for _, l := range lines(s) {
		if strings.HasPrefix(l, "\t") {
			return "\t"
		}
		k := len(l) - len(strings.TrimLeft(l, " "))
		if k > 0 && strings.TrimSpace(l) != "" && (n == 0 || k < n) {
			n = k
		}
	}
	return strings.Repeat(" ", n)
}

// restyleDraft restyles the texts in one style, the file's indentation
// unit turned into tabs (or its tabs into 4 spaces): an agent that
// restyles writes every text of its request so, and a unit taken from
// each text alone (8 spaces a tab in a one-line search, 4 in its
// replacement) made requests whose intended file no reading can give.
// Where no search changed (a line form, or searches without indentation)
// the request's literal meaning is the replacement as sent, and allowed.
func restyleDraft(d *draft, r *rand.Rand) bool {
	searches := d.searches()
	unit := indentUnit(d.before)
	if !mutText(true, true, func(s string, _ *rand.Rand) string { return restyle(s, unit) })(d, r) {
		return false
	}
	d.literalOK = slices.Equal(searches, d.searches())
	return true
}

// searches returns the draft's search texts (none for a line form).
func (d *draft) searches() []string {
	var out []string
	for _, e := range d.edits {
		if d.textForm() {
			out = append(out, e.search)
		}
	}
	return out
}

// restyle turns unit (the file's indentation unit) into tabs in each
// line's leading whitespace, or tabs into 4 spaces where unit is a tab.
func restyle(s, unit string) string {
	var b strings.Builder
	for _, l := range lines(s) {
		body := strings.TrimLeft(l, " \t")
		lead := l[:len(l)-len(body)]
		switch {
		case unit == "\t":
			lead = strings.ReplaceAll(lead, "\t", "    ")
		case unit != "":
			lead = strings.ReplaceAll(lead, unit, "\t")
		}
		b.WriteString(lead + body)
	}
	return b.String()
}

func dedent(d *draft, _ *rand.Rand) bool {
	common := ""
	first := true
	for _, e := range d.edits {
		for _, s := range []string{e.search, e.replace} {
			if !d.textForm() && s == e.search {
				continue
			}
			for _, l := range lines(s) {
				if strings.TrimSpace(l) == "" {
					continue
				}
				lead := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
				if first {
					common, first = lead, false
				}
				for !strings.HasPrefix(lead, common) {
					common = common[:len(common)-1]
				}
			}
		}
	}
	if common == "" {
		return false
	}
	searches := d.searches()
	defer func() { d.literalOK = slices.Equal(searches, d.searches()) }()
	cut := func(s string) string {
		var b strings.Builder
		for _, l := range lines(s) {
			b.WriteString(strings.TrimPrefix(l, common))
		}
		return b.String()
	}
	for i := range d.edits {
		if d.textForm() {
			d.edits[i].search = cut(d.edits[i].search)
		}
		d.edits[i].replace = cut(d.edits[i].replace)
	}
	return true
}

// marker is an elision marker an agent writes, indented as lead.
func marker(ext, lead string, r *rand.Rand) string {
	comment := "// "
	switch ext {
	case ".py", ".yml", ".yaml", ".sh":
		comment = "# "
	case ".md":
		comment = ""
	}
	ms := []string{"...", "…", comment + "... existing code ...", comment + "... rest unchanged ..."}
	return lead + ms[r.IntN(len(ms))] + "\n"
}

func elideSearch(d *draft, r *rand.Rand) bool {
	e := &d.edits[0]
	ls := lines(e.search)
	if len(ls) < 5 || !strings.HasSuffix(e.search, "\n") {
		return false
	}
	i := 1 + r.IntN(len(ls)-3)
	j := i + 1 + r.IntN(len(ls)-1-i-1)
	lead := ls[i][:len(ls[i])-len(strings.TrimLeft(ls[i], " \t"))]
	e.search = strings.Join(ls[:i], "") + marker(d.ext, lead, r) + strings.Join(ls[j:], "")
	return true
}

// elideReplace replaces a run of at least two lines the replacement keeps
// unchanged from the text it replaces by a marker.
func elideReplace(d *draft, r *rand.Rand) bool {
	nonBlank := func(ls []string) int {
		n := 0
		for _, l := range ls {
			if strings.TrimSpace(l) != "" {
				n++
			}
		}
		return n
	}
	e := &d.edits[0]
	old, nw := lines(e.search), lines(e.replace)
	if !strings.HasSuffix(e.replace, "\n") {
		return false
	}
	hs := merge.DiffStrings(old, nw)
	// runs of equal lines in nw between hunks, but for a run next to a
	// change that deletes lines (leaves fewer lines, or fewer non-blank
	// ones — blank lines are layout to a marker — than it replaces): a
	// marker there says the lines next to it stay, and which of the
	// change's old lines go no request with it can say
	var runs [][2]int
	prev, cut := 0, false
	for _, h := range append(hs, merge.Hunk{B0: len(nw), B1: len(nw)}) {
		deletes := h.B1-h.B0 < h.A1-h.A0 || nonBlank(nw[h.B0:h.B1]) < nonBlank(old[h.A0:h.A1])
		if h.B0-prev >= 2 && !cut && !deletes {
			runs = append(runs, [2]int{prev, h.B0})
		}
		prev, cut = h.B1, deletes
	}
	if len(runs) == 0 {
		return false
	}
	run := runs[r.IntN(len(runs))]
	lead := nw[run[0]][:len(nw[run[0]])-len(strings.TrimLeft(nw[run[0]], " \t"))]
	e.replace = strings.Join(nw[:run[0]], "") + marker(d.ext, lead, r) + strings.Join(nw[run[1]:], "")
	return true
}

func truncSearchLines(d *draft, r *rand.Rand) bool {
	if len(d.edits) != 1 {
		return false
	}
	e := &d.edits[0]
	ls := lines(e.search)
	if len(ls) < 2 {
		return false
	}
	e.search = strings.Join(ls[:1+r.IntN(len(ls)-1)], "")
	return strings.TrimSpace(e.search) != ""
}

func truncSearchMid(d *draft, r *rand.Rand) bool {
	if len(d.edits) != 1 {
		return false
	}
	e := &d.edits[0]
	s := strings.TrimSuffix(e.search, "\n")
	i := strings.LastIndexByte(s, '\n') + 1
	last := []rune(s[i:])
	if len(strings.TrimSpace(string(last))) < 3 {
		return false
	}
	e.search = s[:i] + string(last[:1+r.IntN(len(last)-1)])
	return true
}

func truncReplace(d *draft, r *rand.Rand) bool {
	e := &d.edits[0]
	rs := []rune(e.replace)
	if len(rs) < 2 {
		return false
	}
	e.replace = string(rs[:1+r.IntN(len(rs)-1)])
	return true
}

// escapeTwiceDraft escapes the texts once more, unless an escaped search
// stands in the file as it is (a Go test's string literal holding "\t}\n}\n"):
// then its literal match is the request's plain meaning, not an artefact.
func escapeTwiceDraft(d *draft, r *rand.Rand) bool {
	if !mutText(true, true, escapeTwice)(d, r) {
		return false
	}
	for _, s := range d.searches() {
		if strings.Contains(d.before, s) {
			return false
		}
	}
	return true
}

func escapeTwice(s string, _ *rand.Rand) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\t", `\t`, "\n", `\n`).Replace(s)
}

// linenoPrefix puts the read's line numbers (read_content's "N: ") before
// each line of the searches (and the replacements, numbered on from the
// search's first line, with both); a line form's content gets them from
// its first line.
func linenoPrefix(both bool) func(*draft, *rand.Rand) bool {
	return func(d *draft, r *rand.Rand) bool {
		formats := []string{"%d: ", "%d→", "%6d\t"}
		f := formats[r.IntN(len(formats))]
		number := func(s string, from int) string {
			var b strings.Builder
			for i, l := range lines(s) {
				fmt.Fprintf(&b, f, from+i)
				b.WriteString(l)
			}
			return b.String()
		}
		for i := range d.edits {
			e := &d.edits[i]
			if d.textForm() {
				e.search = number(e.search, e.start)
				if both {
					e.replace = number(e.replace, e.start)
				}
			} else {
				if e.replace == "" {
					return false
				}
				e.replace = number(e.replace, e.start)
			}
		}
		return true
	}
}

// lookalike swaps ASCII quotes, hyphens and a space for their look-alikes
// in the searches (and the replacements, with both; a line form's content).
func lookalike(both bool) func(*draft, *rand.Rand) bool {
	swap := func(s string) string {
		var b strings.Builder
		dq := false
		spaced := false
		for i, c := range s {
			switch {
			case c == '"':
				if dq {
					b.WriteRune('”')
				} else {
					b.WriteRune('“')
				}
				dq = !dq
			case c == '\'':
				b.WriteRune('’')
			case c == '-' && i > 0 && s[i-1] == ' ':
				b.WriteRune('–')
			case c == ' ' && !spaced && i > 0 && s[i-1] != ' ' && s[i-1] != '\n' && s[i-1] != '\t':
				b.WriteRune('\u00a0')
				spaced = true
			default:
				b.WriteRune(c)
			}
		}
		return b.String()
	}
	return func(d *draft, r *rand.Rand) bool {
		if d.textForm() {
			return mutText(true, both, func(s string, _ *rand.Rand) string { return swap(s) })(d, r)
		}
		return mutText(false, true, func(s string, _ *rand.Rand) string { return swap(s) })(d, r)
	}
}

func nlDrop(search, replace bool) func(*draft, *rand.Rand) bool {
	return func(d *draft, _ *rand.Rand) bool {
		e := &d.edits[0]
		// a text ending with an empty line would lose that line, not
		// its newline
		if (search && (!strings.HasSuffix(e.search, "\n") || strings.HasSuffix(e.search, "\n\n"))) ||
			(replace && (!strings.HasSuffix(e.replace, "\n") || strings.HasSuffix(e.replace, "\n\n") || e.replace == "\n")) {
			return false
		}
		if search && d.textForm() {
			e.search = strings.TrimSuffix(e.search, "\n")
		}
		if replace {
			e.replace = strings.TrimSuffix(e.replace, "\n")
		}
		return e.search != "" && e.replace != ""
	}
}

func nlExtra(d *draft, _ *rand.Rand) bool {
	e := &d.edits[0]
	if e.replace == "" {
		return false
	}
	e.replace += "\n"
	return true
}

// partial drops the first line's indentation and first word from the
// search (and, with both, the same prefix from the replacement, when it
// starts with it).
func partial(both bool) func(*draft, *rand.Rand) bool {
	return func(d *draft, _ *rand.Rand) bool {
		e := &d.edits[0]
		first := strings.SplitAfter(e.search, "\n")[0]
		body := strings.TrimLeft(first, " \t")
		k := strings.IndexFunc(body, unicode.IsSpace)
		if k <= 0 || strings.TrimSpace(body[k:]) == "" {
			return false
		}
		for k < len(body) && (body[k] == ' ' || body[k] == '\t') {
			k++
		}
		prefix := first[:len(first)-len(body)+k]
		if both {
			if !strings.HasPrefix(e.replace, prefix) {
				return false
			}
			e.replace = e.replace[len(prefix):]
		} else if !strings.HasPrefix(e.replace, prefix) {
			// the replacement does not repeat the part of the line left
			// out: literally a change from inside the line on
			d.literalOK = true
		}
		e.search = e.search[len(prefix):]
		return true
	}
}

func toCRLF(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

func crlfFile(d *draft, _ *rand.Rand) bool {
	d.before, d.intended, d.crlfFile = toCRLF(d.before), toCRLF(d.intended), true
	return true
}

// comment is a line someone else adds: a comment in the file's language.
func comment(ext string, n int) string {
	switch ext {
	case ".py", ".yml", ".yaml", ".sh":
		return fmt.Sprintf("# added by someone else %d\n", n)
	case ".md":
		return fmt.Sprintf("Added by someone else %d.\n", n)
	}
	return fmt.Sprintf("// added by someone else %d\n", n)
}

// staleLines inserts 1-4 lines somewhere above the edit behind the
// session's back; the intended file has them too.
func staleLines(d *draft, r *rand.Rand) bool {
	first := d.edits[0].start - 1 // lines above the first edit, which stay
	for _, e := range d.edits {
		first = min(first, e.start-1)
	}
	if !d.textForm() {
		// the line forms keep one unchanged line above when inserting
		first = max(first-1, 0)
	}
	at := r.IntN(first + 1)
	var add strings.Builder
	for i := range 1 + r.IntN(4) {
		add.WriteString(comment(d.ext, i+1))
	}
	insert := func(s string) string {
		ls := lines(s)
		return strings.Join(ls[:at], "") + add.String() + strings.Join(ls[at:], "")
	}
	d.outside, d.intended = insert(d.before), insert(d.intended)
	return true
}

// staleChanged changes, behind the session's back, a line the edit
// replaces (one that differs in the intended file).
func staleChanged(d *draft, r *rand.Rand) bool {
	B, A := lines(d.before), lines(d.intended)
	var cand []int
	for _, h := range merge.DiffStrings(B, A) {
		for i := h.A0; i < h.A1; i++ {
			if t := strings.TrimRight(B[i], "\n"); strings.TrimSpace(t) != "" {
				if last, _ := utf8.DecodeLastRuneInString(t); unicode.IsLetter(last) || unicode.IsDigit(last) {
					cand = append(cand, i)
				}
			}
		}
	}
	if len(cand) == 0 {
		return false
	}
	i := cand[r.IntN(len(cand))]
	B[i] = strings.TrimSuffix(B[i], "\n") + "zz\n"
	d.outside, d.mustRefuse = strings.Join(B, ""), true
	return true
}

func repeatChange(d *draft, _ *rand.Rand) bool {
	if strings.HasPrefix(d.form, "ai_code") || strings.HasPrefix(d.form, "file_edit") {
		return false
	}
	d.dupOp = true
	return true
}
