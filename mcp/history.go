package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/journal/secrets"
	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/replay"
)

// RevertIn is revert_edit's input (seed 004's names).
type RevertIn struct {
	AbsoluteFilePath string `json:"absolute_file_path"`
	BackupID         string `json:"backup_id,omitempty" jsonschema:"event id; default: your newest edit of the file"`
	Force            bool   `json:"force,omitempty" jsonschema:"restore exactly, over later changes"`
	writeOpts
}

// ChangeOut is the result of revert_edit, undo and redo.
type ChangeOut struct {
	Event    uint64            `json:"event"`    // the new event
	Reverted uint64            `json:"reverted"` // the event taken back
	Files    []string          `json:"files"`
	Versions map[string]string `json:"versions"`
	Message  string            `json:"message"`
}

// SessionIn is the input of undo and redo.
type SessionIn struct {
	writeOpts
}

// UndoIn is undo's input.
type UndoIn struct {
	All   bool `json:"all,omitempty" jsonschema:"everything this session did, as one event"`
	Force bool `json:"force,omitempty" jsonschema:"with all: over others' later changes"`
	writeOpts
}

// LogIn is journal_log's input.
type LogIn struct {
	Path        string `json:"path,omitempty" jsonschema:"only events on this file"`
	Limit       int    `json:"limit,omitempty" jsonschema:"default 20, max 200"`
	ThisSession bool   `json:"this_session,omitempty"`
}

// LogEntry is one event in journal_log's result.
type LogEntry struct {
	Seq        uint64   `json:"event"`
	Time       string   `json:"time"`
	Kind       string   `json:"kind"`
	Tool       string   `json:"tool,omitempty"`
	Actor      string   `json:"actor"`
	Status     string   `json:"status"`
	Files      []string `json:"files"`
	Reverts    uint64   `json:"reverts,omitempty"`
	Undone     []uint64 `json:"undone,omitempty"` // an undo of a whole session: the events it took back
	RevertedBy uint64   `json:"reverted_by,omitempty"`
}

// LogOut is journal_log's result.
type LogOut struct {
	Events []LogEntry `json:"events"`
	// Damaged lists the events the journal could not read (JOURNAL_DAMAGED):
	// the others are listed around them.
	Damaged []string `json:"damaged,omitempty"`
	// FileDamage is damage the structural check found in the journal file
	// (JOURNAL_DAMAGED), though the events listed read.
	FileDamage string `json:"file_damage,omitempty"`
}

// StatusIn is journal_status's input.
type StatusIn struct{}

// LanguageServer is one configured language server, as journal_status lists it.
type LanguageServer struct {
	Language   string   `json:"language"`
	Extensions []string `json:"extensions"`
	Command    string   `json:"command"`
	Found      bool     `json:"found"`             // the binary is on JOURNAL_LSP_PATH or PATH
	Running    []string `json:"running,omitempty"` // "name (pid N) for ROOT" per started process
}

// StatusOut is journal_status's result.
type StatusOut struct {
	Roots   []string       `json:"roots"`
	Journal string         `json:"journal"`
	Events  uint64         `json:"events"`
	Changed []replay.Drift `json:"changed_outside"`
	Pending []uint64       `json:"pending_recoveries"`
	// Damage says what is damaged in the journal file, when it is (edits
	// are then refused with JOURNAL_DAMAGED; reads still work).
	Damage string `json:"damage,omitempty"`
	// LanguageServers are the configured language servers (none when they
	// are off: serve --lsp=false).
	LanguageServers []LanguageServer `json:"language_servers"`
	// Replication is each continuous replication of the journal to a remote
	// (journal serve --replicate): how far behind it is and its last error.
	Replication []Replication `json:"replication,omitempty"`
}

// Replication is where one continuous replication stands.
type Replication struct {
	Remote    string  `json:"remote"`
	Workspace string  `json:"workspace"`
	Pushed    uint64  `json:"pushed"`          // the newest event the remote holds
	Behind    uint64  `json:"behind"`          // events not on it yet
	LagMS     float64 `json:"lag_ms"`          // the age of the oldest of them
	Error     string  `json:"error,omitempty"` // while the remote fails
}

func init() { registrars = append(registrars, (*Server).registerHistory) }

func (s *Server) registerHistory() {
	addTool(s, def{name: "revert_edit", toolset: ToolsetHistory, title: "Revert an edit",
		desc:        "Take back a journaled edit (a batch whole) as a new event; later changes are merged, overlaps refused with REVERT_CONFLICT.",
		destructive: true},
		func(ctx context.Context, c *call, in *RevertIn) (*ChangeOut, string, error) {
			var seq uint64
			if in.BackupID != "" {
				n, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(in.BackupID), "#"), 10, 64)
				if err != nil {
					return nil, "", invalid("backup_id is an event id such as \"42\" (see journal_log)", "backup_id %q is not an event id", in.BackupID)
				}
				seq = n
				ev, err := s.eng.Event(seq)
				if err != nil {
					return nil, "", err
				}
				if p, err := s.eng.Resolve(in.AbsoluteFilePath); err == nil {
					if _, ok := ev.File(p.Key); !ok {
						return nil, "", invalid("journal_log path=... lists the events that touched the file", "event %d did not change %s", seq, p.Rel)
					}
				}
			} else {
				var err error
				if seq, err = s.eng.FindEdit(in.AbsoluteFilePath, c.session); err != nil {
					return nil, "", err
				}
			}
			o := c.revertOptions()
			o.Force = in.Force
			res, err := s.eng.Revert(ctx, seq, o)
			if err != nil {
				return nil, "", err
			}
			return s.changeOut(c, res, seq, "reverted")
		})
	addTool(s, def{name: "undo", toolset: ToolsetHistory, title: "Undo",
		desc:        "Undo this session's newest change not yet undone, as a new event; repeat to go back further. Later changes by others are merged; overlaps refuse it with REVERT_CONFLICT.",
		destructive: true},
		func(ctx context.Context, c *call, in *UndoIn) (*ChangeOut, string, error) {
			if in.Force && !in.All {
				return nil, "", invalid("force goes with all (a single undo is revert_edit with force)", "force without all")
			}
			if in.All {
				o := c.revertOptions()
				o.Force = in.Force
				res, err := s.eng.UndoSession(ctx, c.session, o)
				var ce *replay.ConflictError
				if errors.As(err, &ce) {
					return nil, "", withRetry(err, map[string]any{"all": true, "force": true},
						"puts every file back exactly as it was before this session, over the later changes (as one new event)")
				}
				if err != nil {
					return nil, "", err
				}
				out, _, err := s.changeOut(c, res, 0, "undid")
				if err == nil {
					ev, _ := s.eng.Event(res.Seq)
					out.Message = fmt.Sprintf("undid this session's %d change(s) as event %d: %s", len(ev.Undone), res.Seq, strings.Join(out.Files, ", "))
				}
				return out, out.Message, err
			}
			o := c.revertOptions()
			o.Session = c.session
			res, err := s.eng.Undo(ctx, o)
			if err != nil {
				return nil, "", err
			}
			ev, _ := s.eng.Event(res.Seq)
			return s.changeOut(c, res, ev.Reverts, "undid")
		})
	addTool(s, def{name: "redo", toolset: ToolsetHistory, title: "Redo",
		desc:        "Redo this session's newest undo, unless a new change came after it.",
		destructive: true},
		func(ctx context.Context, c *call, in *SessionIn) (*ChangeOut, string, error) {
			o := c.revertOptions()
			o.Session = c.session
			res, err := s.eng.Redo(ctx, o)
			if err != nil {
				return nil, "", err
			}
			ev, _ := s.eng.Event(res.Seq)
			return s.changeOut(c, res, ev.Reverts, "redid (reverted undo)")
		})
	addTool(s, def{name: "journal_log", toolset: ToolsetHistory, title: "Journal log",
		desc:     "Recent journal events, newest first: id, time, who, tool, files, status.",
		readOnly: true, idempotent: true},
		func(ctx context.Context, c *call, in *LogIn) (*LogOut, string, error) {
			return s.log(c, in)
		})
	addTool(s, def{name: "journal_status", toolset: ToolsetHistory, title: "Journal status",
		desc:     "The workspace roots, the journal, files changed outside it, batches awaiting recovery and the language servers.",
		readOnly: true, idempotent: true},
		func(ctx context.Context, c *call, in *StatusIn) (*StatusOut, string, error) {
			st, err := s.eng.Status()
			var damage string
			if errors.Is(err, journal.ErrDamaged) || errors.Is(err, journal.ErrCorrupt) {
				st, damage = &replay.Status{}, err.Error()
			} else if err != nil {
				return nil, "", err
			}
			if d := s.eng.Journal().Damaged(); d != nil && damage == "" {
				damage = d.Error()
			}
			out := &StatusOut{Journal: s.eng.Journal().Path(), Events: st.Events, Changed: st.Changed, Pending: st.Pending, Damage: damage}
			if out.Changed == nil {
				out.Changed = []replay.Drift{}
			}
			if out.Pending == nil {
				out.Pending = []uint64{}
			}
			for _, r := range s.eng.Roots() {
				out.Roots = append(out.Roots, r.Dir)
			}
			text := fmt.Sprintf("roots: %s\njournal: %s (%d events)\n", strings.Join(out.Roots, ", "), out.Journal, out.Events)
			if damage != "" {
				text = fmt.Sprintf("roots: %s\njournal: %s\nJOURNAL_DAMAGED: %s\nhint: %s\n", strings.Join(out.Roots, ", "), out.Journal, damage, journal.DamageHint)
			}
			if len(out.Changed) == 0 {
				text += "no file changed outside the journal\n"
			}
			for _, d := range out.Changed {
				mode := ""
				if d.ModeChanged() {
					mode = fmt.Sprintf(", mode %o -> %o", d.HeadMode, d.DiskMode)
				}
				text += fmt.Sprintf("changed outside: %s (journal %s, disk %s%s)\n", d.Path, orAbsent(version(d.Head)), orAbsent(version(d.Disk)), mode)
			}
			for _, p := range out.Pending {
				text += fmt.Sprintf("pending recovery: event %d\n", p)
			}
			for _, r := range st.Replication {
				out.Replication = append(out.Replication, Replication{Remote: r.Remote, Workspace: r.Workspace, Pushed: r.Pushed,
					Behind: r.Behind, LagMS: float64(r.Lag.Microseconds()) / 1000, Error: r.Error})
				line := fmt.Sprintf("replication to %s: up to date (event %d)\n", r.Remote, r.Pushed)
				if r.Behind > 0 {
					line = fmt.Sprintf("replication to %s: %d event(s) behind, lag %s\n", r.Remote, r.Behind, r.Lag.Round(time.Millisecond))
				}
				if r.Error != "" {
					line = strings.TrimSuffix(line, "\n") + "; failing: " + r.Error + "\n"
				}
				text += line
			}
			out.LanguageServers = s.languageServers()
			if s.opts.LSP == nil {
				text += "language servers: off\n"
			}
			for _, ls := range out.LanguageServers {
				state := "not found on JOURNAL_LSP_PATH or PATH"
				if ls.Found {
					state = "available, not started"
				}
				if len(ls.Running) > 0 {
					state = strings.Join(ls.Running, "; ")
				}
				text += fmt.Sprintf("language server %s (%s): %s — %s\n", ls.Language, strings.Join(ls.Extensions, " "), ls.Command, state)
			}
			return out, text, nil
		})
	s.registerResources()
}

func (s *Server) changeOut(c *call, res *replay.Result, reverted uint64, verb string) (*ChangeOut, string, error) {
	s.synced(context.Background(), res)
	out := &ChangeOut{Event: res.Seq, Reverted: reverted, Versions: map[string]string{}}
	for _, f := range res.Files {
		out.Files = append(out.Files, f.Path)
		out.Versions[f.Path] = version(f.After)
		s.wrote(c.session, f.Path, f.After, false) // the reply names the files, not their lines
	}
	out.Message = fmt.Sprintf("%s event %d as event %d: %s", verb, reverted, res.Seq, strings.Join(out.Files, ", "))
	return out, out.Message, nil
}

func entry(tx *journal.Tx, ev *journal.Event) LogEntry {
	e := LogEntry{Seq: ev.Seq, Time: ev.Time.UTC().Format(time.RFC3339), Kind: string(ev.Kind), Tool: ev.Tool,
		Status: string(ev.Status), Reverts: ev.Reverts, Undone: ev.Undone, RevertedBy: tx.RevertedBy(ev.Seq), Files: []string{}}
	e.Actor = ev.Actor.Kind
	if ev.Actor.Name != "" {
		e.Actor += ":" + ev.Actor.Name
	}
	if ev.Actor.Session != "" {
		e.Actor += "/" + ev.Actor.Session
	}
	for _, f := range ev.Listed() {
		e.Files = append(e.Files, f.Path)
	}
	return e
}

func (s *Server) log(c *call, in *LogIn) (*LogOut, string, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = 20
	}
	if limit > 200 {
		limit = 200
	}
	out := &LogOut{Events: []LogEntry{}}
	var key string
	if in.Path != "" {
		p, err := s.eng.Resolve(in.Path)
		if err != nil {
			return nil, "", err
		}
		key = p.Key
	}
	err := s.eng.Journal().View(func(tx *journal.Tx) error {
		visit := func(ev *journal.Event) error {
			if in.ThisSession && ev.Actor.Session != c.session {
				return nil
			}
			out.Events = append(out.Events, entry(tx, ev))
			if len(out.Events) >= limit {
				return journal.ErrStop
			}
			return nil
		}
		switch {
		case key != "":
			return tx.EachIndexed("path", key, visit)
		case in.ThisSession:
			return tx.EachIndexed("session", c.session, visit)
		}
		if d := tx.Damage(); d != nil {
			out.FileDamage = d.What
		}
		return tx.Scan(0, true, visit, func(first, last uint64, err error) error {
			which := fmt.Sprint(first)
			if last != first {
				which = fmt.Sprintf("%d-%d", min(first, last), max(first, last))
			}
			out.Damaged = append(out.Damaged, fmt.Sprintf("%s: %v", which, err))
			return nil
		})
	})
	if err != nil {
		return nil, "", err
	}
	var b strings.Builder
	if out.FileDamage != "" {
		fmt.Fprintf(&b, "JOURNAL_DAMAGED: the journal file is damaged (%s); edits are refused until `journal repair --apply`\n", out.FileDamage)
	}
	for _, d := range out.Damaged {
		fmt.Fprintf(&b, "JOURNAL_DAMAGED: event %s (not readable; `journal verify` and `journal log` show the rest)\n", d)
	}
	for _, e := range out.Events {
		fmt.Fprintf(&b, "%d %s %s %s %s [%s]", e.Seq, e.Time, e.Kind, e.Tool, strings.Join(e.Files, " "), e.Status)
		if e.RevertedBy != 0 {
			fmt.Fprintf(&b, " reverted by %d", e.RevertedBy)
		}
		b.WriteByte('\n')
	}
	if len(out.Events) == 0 {
		b.WriteString("no events\n")
	}
	return out, b.String(), nil
}

func (s *Server) registerResources() {
	if !s.toolsetOn(ToolsetHistory) {
		return
	}
	s.srv.AddResource(mcpgo.NewResource("journal://events", "journal events",
		mcpgo.WithResourceDescription("The newest 50 journal events as JSON, newest first; subscribe to hear of new ones (this server's, another's, the CLI's)."), mcpgo.WithMIMEType("application/json")),
		func(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			out, _, err := s.log(&call{}, &LogIn{Limit: 50})
			if err != nil {
				return nil, err
			}
			b, _ := json.MarshalIndent(out.Events, "", "  ")
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}, nil
		})
	s.srv.AddResourceTemplate(mcpgo.NewResourceTemplate("journal://files/{+path}/events", "a file's journal events",
		mcpgo.WithTemplateDescription("The newest 50 journal events that touched one file (its workspace-relative path) as JSON, newest first; subscribe to hear of new ones."), mcpgo.WithTemplateMIMEType("application/json")),
		func(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			p := strings.TrimSuffix(strings.TrimPrefix(req.Params.URI, filesPrefix), eventsSuffix)
			out, _, err := s.log(&call{}, &LogIn{Path: p, Limit: 50})
			if err != nil {
				return nil, err
			}
			b, _ := json.MarshalIndent(out.Events, "", "  ")
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}, nil
		})
	s.srv.AddResourceTemplate(mcpgo.NewResourceTemplate("journal://events/{seq}", "journal event",
		mcpgo.WithTemplateDescription("One journal event in full, with a unified diff per file."), mcpgo.WithTemplateMIMEType("text/plain")),
		func(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			n, err := strconv.ParseUint(strings.TrimPrefix(req.Params.URI, "journal://events/"), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: the event id must be a number", req.Params.URI)
			}
			text, err := s.eventText(n)
			if err != nil {
				return nil, err
			}
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: text}}, nil
		})
}

// eventText renders an event with a diff per file (contents over 4 MiB are
// summarised). Detected secrets are masked in its arguments and in both
// sides of each diff (journal/secrets): the history is the journal's to
// show, and a client's transcript is no place for a key. The live file
// tools (file_read, read_content) are not masked: they read the workspace
// as it is, which the agent edits and must see byte for byte, and a
// secret there is one the agent itself wrote or can read anyway.
func (s *Server) eventText(seq uint64) (string, error) {
	ev, err := s.eng.Event(seq)
	if err != nil {
		return "", err
	}
	ev = audit.MaskEvent(ev)
	head, _ := json.MarshalIndent(ev, "", "  ")
	var b strings.Builder
	b.Write(head)
	b.WriteString("\n")
	for _, f := range ev.Listed() {
		from, oldName := f.Before, "a/"+f.Path
		if src, ok := ev.MoveSource(f); ok { // a rename: the diff is from the content it carried
			from, oldName = src.Before, "a/"+f.MovedFrom
		}
		before, ok1, err := s.eng.Content(from, 4<<20)
		if err != nil {
			return "", err
		}
		after, ok2, err := s.eng.Content(f.After, 4<<20)
		if err != nil {
			return "", err
		}
		if !ok1 || !ok2 {
			fmt.Fprintf(&b, "%s: too large to diff here (journal diff %d %s)\n", f.Path, seq, f.Path)
			continue
		}
		mb, ma := secrets.MaskFile(f.Path, before), secrets.MaskFile(f.Path, after)
		if oldName != "a/"+f.Path {
			fmt.Fprintf(&b, "rename from %s\nrename to %s\n", f.MovedFrom, f.Path)
		}
		d := ops.Diff(oldName, "b/"+f.Path, mb, ma)
		if d == "" && !bytes.Equal(before, after) {
			// masked alike, the versions differ: an empty diff would say
			// nothing changed
			d = fmt.Sprintf("%s: the change is inside a masked secret, its lines are not shown\n", f.Path)
		}
		b.WriteString(d)
	}
	return s.capText(b.String(), nil), nil
}

// languageServers describes the configured language servers for journal_status.
func (s *Server) languageServers() []LanguageServer {
	out := []LanguageServer{}
	if s.opts.LSP == nil {
		return out
	}
	for _, c := range s.opts.LSP.Describe() {
		ls := LanguageServer{Language: c.Language, Extensions: c.Extensions, Command: strings.Join(c.Command, " "), Found: c.Found != ""}
		for _, si := range c.Started {
			state := "running"
			if !si.Running {
				state = "exited, restarted on the next call"
			}
			ls.Running = append(ls.Running, fmt.Sprintf("%s (pid %d, %s) for %s", si.Name, si.PID, state, si.Root))
		}
		out = append(out, ls)
	}
	return out
}
