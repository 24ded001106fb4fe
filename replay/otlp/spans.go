package otlp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/replay"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// SemconvVersion is the version of the OpenTelemetry semantic conventions
// whose GenAI attributes the spans follow (the last release that carries
// them in the main conventions and in the Go SDK's semconv package; every
// GenAI name there is still "Development"). Its schema URL is the
// instrumentation scope's.
const SemconvVersion = "1.41.0"

// ScopeName is the instrumentation scope of the spans.
const ScopeName = "github.com/journalfs/journal/replay/otlp"

// Span names and attributes of our own (the journal.* namespace).
const (
	PromptSpan = "prompt" // the span of one prompt (a user turn): the conventions define none

	attrSeq      = attribute.Key("journal.event.seq")
	attrKind     = attribute.Key("journal.event.kind")
	attrStatus   = attribute.Key("journal.event.status")
	attrHash     = attribute.Key("journal.event.hash")
	attrActor    = attribute.Key("journal.actor.kind")
	attrMCP      = attribute.Key("journal.mcp.session")
	attrClient   = attribute.Key("journal.mcp.client")
	attrSubagent = attribute.Key("journal.call.subagent")
	attrType     = attribute.Key("journal.call.agent_type")
	attrReverts  = attribute.Key("journal.event.reverts")
	attrFiles    = attribute.Key("journal.files.count")
	attrAdded    = attribute.Key("journal.lines.added")
	attrRemoved  = attribute.Key("journal.lines.removed")
	attrEvents   = attribute.Key("journal.events")
	attrPromptID = attribute.Key("journal.prompt.id")
	attrPromptSq = attribute.Key("journal.prompt.seq")
	attrWS       = attribute.Key("journal.workspace.id")
	attrUser     = attribute.Key("journal.actor.user")
	attrHost     = attribute.Key("journal.actor.host")

	// FileEvent is the span event of one file an event changed.
	FileEvent    = "journal.file"
	attrPath     = attribute.Key("journal.file.path")
	attrChange   = attribute.Key("journal.file.change")
	attrFAdded   = attribute.Key("journal.file.lines_added")
	attrFRemoved = attribute.Key("journal.file.lines_removed")
	attrMoved    = attribute.Key("journal.file.moved_from")
)

// Options say what Build sends.
type Options struct {
	// Filter selects the events (Since, Until, Paths); Reveal sends the
	// secrets in arguments and prompts unmasked.
	Filter audit.ExportFilter
	// Content sends the prompts' text (gen_ai.input.messages) and the
	// tools' arguments (gen_ai.tool.call.arguments), masked unless
	// Filter.Reveal: both are opt-in in the conventions.
	Content bool
	// Batch is how many spans are handed to emit at once (0: 512).
	Batch int
}

// Summary is what Build made.
type Summary struct {
	Sessions int `json:"sessions"` // traces (invoke_agent spans)
	Prompts  int `json:"prompts"`  // prompt spans
	Tools    int `json:"tools"`    // execute_tool spans
	// Skipped are the selected events of no agent session (a person's,
	// the watcher's own): not sent.
	Skipped int `json:"skipped"`
}

// Spans is the number of spans made.
func (s *Summary) Spans() int { return s.Sessions + s.Prompts + s.Tools }

// ids are the ids the next span started with a context holding them gets.
type ids struct {
	trace trace.TraceID
	span  trace.SpanID
}

type idKey struct{}

// idGen gives a span the ids its context carries (idKey): the SDK's span
// model takes past times (WithTimestamp) and, through its IDGenerator, the
// journal's own ids.
type idGen struct{}

func (idGen) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	v, _ := ctx.Value(idKey{}).(ids)
	return v.trace, v.span
}

func (idGen) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	v, _ := ctx.Value(idKey{}).(ids)
	return v.span
}

// collect keeps the spans ended (a SpanProcessor).
type collect struct{ spans []sdktrace.ReadOnlySpan }

func (c *collect) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c *collect) OnEnd(s sdktrace.ReadOnlySpan)                   { c.spans = append(c.spans, s) }
func (c *collect) Shutdown(context.Context) error                  { return nil }
func (c *collect) ForceFlush(context.Context) error                { return nil }

// SpanIDs derives the ids of a session's trace and of its spans from the
// workspace id and the session: part "" is the root span, "event:N" the
// span of prompt event N or of the tool call recorded as event N, "id:ID"
// the span of a prompt no event recorded (its id named by calls alone).
func SpanIDs(workspace, session, part string) (trace.TraceID, trace.SpanID) {
	t := sha256.Sum256([]byte("journal otlp trace\x00" + workspace + "\x00" + session))
	s := sha256.Sum256([]byte("journal otlp span\x00" + workspace + "\x00" + session + "\x00" + part))
	var tid trace.TraceID
	var sid trace.SpanID
	copy(tid[:], t[:16])
	copy(sid[:], s[:8])
	if !tid.IsValid() { // all zero: not a valid id (never seen; 2^-128)
		tid[15] = 1
	}
	if !sid.IsValid() {
		sid[7] = 1
	}
	return tid, sid
}

// session is one agent session as the walk has seen it so far.
type session struct {
	id             string
	agent, version string
	byAgent        bool // agent named by the agent's own (hook) events, not an MCP client's
	user, host     string
	model          string
	first, last    time.Time
	events         int
	added, removed int
	selected       bool
	prompts        []*prompt
	byKey          map[string]*prompt
}

// prompt is one prompt of a session.
type prompt struct {
	key         string
	id          string
	seq         uint64
	text        string // masked unless Reveal; sent only with Content
	model       string
	first, last time.Time
	selected    bool
}

// builder makes the spans. It sees the journal's events in order
// (event) and remembers the sessions and prompts met so far, so it can go
// on with the events recorded later (Live).
type builder struct {
	o         Options
	workspace string
	tp        *sdktrace.TracerProvider
	tracer    trace.Tracer
	got       *collect
	emit      func([]sdktrace.ReadOnlySpan) error
	sum       Summary
	masking   audit.Masking
	ps        *replay.Prompts
	sessions  map[string]*session
	order     []*session
	// select_ overrides o.Filter.Match when set (Live: the events after
	// those it started with).
	select_ func(*journal.Event) bool
	// promptDone, when set, is called with a session's prompt its next
	// prompt ended (Live sends its span then).
	promptDone func(*session, *prompt)
}

func newBuilder(workspace string, o Options, emit func([]sdktrace.ReadOnlySpan) error) *builder {
	if o.Batch <= 0 {
		o.Batch = 512
	}
	b := &builder{o: o, workspace: workspace, got: &collect{}, emit: emit, masking: audit.Masking{Reveal: o.Filter.Reveal},
		ps: replay.NewPrompts(), sessions: map[string]*session{}}
	b.tp = sdktrace.NewTracerProvider(
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithIDGenerator(idGen{}),
		sdktrace.WithSpanProcessor(b.got),
		sdktrace.WithResource(Resource(workspace)),
	)
	b.tracer = b.tp.Tracer(ScopeName, trace.WithInstrumentationVersion(journal.BuildVersion()), trace.WithSchemaURL(semconv.SchemaURL))
	return b
}

// Build walks the journal of tx from its first event and makes the spans of
// every agent session with an event o.Filter selects (see the package
// doc), handing them to emit in batches of o.Batch: the tools' spans as the
// walk meets their events, then each selected session's prompt spans and
// root span, whose times span the whole session.
func Build(tx *journal.Tx, o Options, emit func([]sdktrace.ReadOnlySpan) error) (*Summary, error) {
	b := newBuilder(tx.Workspace(), o, emit)
	defer b.tp.Shutdown(context.Background())
	if err := tx.Each(0, false, b.event); err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	for _, s := range b.order {
		b.sessionSpans(s)
		if err := b.flush(false); err != nil {
			return nil, err
		}
	}
	if err := b.flush(true); err != nil {
		return nil, err
	}
	return &b.sum, nil
}

// event takes ev, the event after the last one it took: its session's and
// prompt's state, and its execute_tool span if it is selected.
func (b *builder) event(ev *journal.Event) error {
	if ev.Status == journal.StatusPending {
		return nil
	}
	p := b.ps.Next(ev) // every event, in order: a prompt's calls come after it
	sel := b.o.Filter.Match(ev)
	if b.select_ != nil {
		sel = b.select_(ev)
	}
	sid := replay.CallSession(ev)
	if sid == "" || ev.Actor.Kind != "agent" && ev.Actor.Kind != "mcp" {
		if sel {
			b.sum.Skipped++
		}
		return nil
	}
	s := b.sessions[sid]
	if s == nil {
		s = &session{id: sid, first: startOf(ev), byKey: map[string]*prompt{}}
		b.sessions[sid] = s
		b.order = append(b.order, s)
	}
	s.see(ev, sel)
	var pr *prompt
	if p != nil {
		if ev.Kind == journal.KindPrompt && b.promptDone != nil {
			if n := len(s.prompts); n > 0 && s.prompts[n-1].selected {
				b.promptDone(s, s.prompts[n-1])
			}
		}
		pr = s.prompt(p, ev)
		pr.selected = pr.selected || sel
		if ev.Kind == journal.KindPrompt {
			pr.text = b.promptText(ev)
		}
	}
	if ev.Kind == journal.KindPrompt || !sel {
		return nil
	}
	if err := b.toolSpan(s, pr, ev); err != nil {
		return err
	}
	return b.flush(false)
}

// sessionSpans makes, for a selected session, the spans of its selected
// prompts and its root span, and marks them unselected (made).
func (b *builder) sessionSpans(s *session) {
	if !s.selected {
		return
	}
	for _, pr := range s.prompts {
		if pr.selected {
			b.promptSpan(s, pr)
			pr.selected = false
		}
	}
	b.rootSpan(s)
	s.selected = false
}

// Resource is the resource of the spans: the service (this binary) and the
// workspace.
func Resource(workspace string) *resource.Resource {
	attrs := []attribute.KeyValue{semconv.ServiceName("journal"), semconv.ServiceVersion(journal.BuildVersion())}
	if workspace != "" {
		attrs = append(attrs, attrWS.String(workspace))
	}
	return resource.NewWithAttributes(semconv.SchemaURL, attrs...)
}

// see counts ev in s: its times, its agent, its model, its lines.
func (s *session) see(ev *journal.Event, sel bool) {
	s.selected = s.selected || sel
	if t := startOf(ev); t.Before(s.first) {
		s.first = t
	}
	if ev.Time.After(s.last) {
		s.last = ev.Time
	}
	s.events++
	for _, f := range ev.Files {
		s.added += f.Added
		s.removed += f.Removed
	}
	if ev.Actor.Kind == "agent" && !s.byAgent && ev.Actor.Name != "" {
		s.agent, s.version, s.byAgent = ev.Actor.Name, ev.Actor.Version, true
	} else if s.agent == "" {
		s.agent, s.version = ev.Actor.Name, ev.Actor.Version
	}
	if s.user == "" {
		s.user, s.host = ev.Actor.User, ev.Actor.Host
	}
	if m := modelOf(ev); s.model == "" && m != "" {
		s.model = m
	}
}

// prompt is s's prompt p, the prompt of ev, made at its first sight.
func (s *session) prompt(p *replay.Prompt, ev *journal.Event) *prompt {
	key := "id:" + p.ID
	if p.Seq != 0 {
		key = fmt.Sprintf("event:%d", p.Seq)
	}
	pr := s.byKey[key]
	if pr == nil {
		pr = &prompt{key: key, id: p.ID, seq: p.Seq, model: p.Model, first: startOf(ev), last: ev.Time}
		s.byKey[key] = pr
		s.prompts = append(s.prompts, pr)
	}
	if ev.Time.After(pr.last) {
		pr.last = ev.Time
	}
	if m := modelOf(ev); pr.model == "" && m != "" {
		pr.model = m
	}
	return pr
}

// promptText is a prompt event's text, masked unless Reveal.
func (b *builder) promptText(ev *journal.Event) string {
	if p := replay.PromptOfEvent(b.masking.Event(ev)); p != nil {
		return p.Text
	}
	return ""
}

// callAbout is what an event's arguments say of the agent's call (its
// "call", as a hook records it: replay/watch.About).
type callAbout struct {
	ID        string `json:"id"`
	Model     string `json:"model"`
	Subagent  string `json:"subagent"`
	AgentType string `json:"agent_type"`
	Start     string `json:"start"` // when the call opened (its before-hook)
}

func aboutOf(ev *journal.Event) callAbout {
	var a struct {
		Call  callAbout `json:"call"`
		Calls []struct {
			Call callAbout `json:"call"`
		} `json:"calls"`
	}
	if len(ev.Args) == 0 || json.Unmarshal(ev.Args, &a) != nil {
		return callAbout{}
	}
	if a.Call.ID == "" && len(a.Calls) > 0 {
		return a.Calls[0].Call
	}
	return a.Call
}

// startOf is when ev's call opened (its before-hook, args.call.start),
// else the event's time: a call's event is recorded when it ends.
func startOf(ev *journal.Event) time.Time {
	if t, err := time.Parse(time.RFC3339Nano, aboutOf(ev).Start); err == nil && t.Before(ev.Time) {
		return t
	}
	return ev.Time
}

// modelOf is the model an event names: a prompt's, or its call's.
func modelOf(ev *journal.Event) string {
	if p := replay.PromptOfEvent(ev); p != nil {
		return p.Model
	}
	return aboutOf(ev).Model
}

// Provider is the gen_ai.provider.name of a model as an agent names it
// ("claude-sonnet-4-5", "anthropic/claude-sonnet-4-5", "gpt-5.5-codex"),
// else of the agent whose models are one provider's (Claude Code: anthropic,
// Codex: openai, Gemini CLI: gcp.gemini); "" when neither tells.
func Provider(model, agent string) string {
	m := strings.ToLower(model)
	if vendor, _, ok := strings.Cut(m, "/"); ok {
		switch vendor {
		case "anthropic":
			return "anthropic"
		case "openai":
			return "openai"
		case "google", "gemini":
			return "gcp.gemini"
		case "x-ai", "xai":
			return "x_ai"
		case "mistralai", "mistral":
			return "mistral_ai"
		case "deepseek":
			return "deepseek"
		}
	}
	switch {
	case strings.Contains(m, "claude"):
		return "anthropic"
	case strings.HasPrefix(m, "gpt") || strings.Contains(m, "codex") || strings.HasPrefix(m, "o1") || strings.HasPrefix(m, "o3") || strings.HasPrefix(m, "o4"):
		return "openai"
	case strings.Contains(m, "gemini"):
		return "gcp.gemini"
	case strings.Contains(m, "grok"):
		return "x_ai"
	case strings.Contains(m, "mistral") || strings.Contains(m, "codestral"):
		return "mistral_ai"
	case strings.Contains(m, "deepseek"):
		return "deepseek"
	}
	switch agent {
	case "claude-code":
		return "anthropic"
	case "codex":
		return "openai"
	case "gemini":
		return "gcp.gemini"
	}
	return ""
}

// common are the attributes of every span of s.
func (s *session) common(model string) []attribute.KeyValue {
	a := []attribute.KeyValue{semconv.GenAIConversationID(s.id)}
	if s.agent != "" {
		a = append(a, semconv.GenAIAgentName(s.agent))
	}
	if model == "" {
		model = s.model
	}
	if model != "" {
		a = append(a, semconv.GenAIRequestModel(model))
	}
	if p := Provider(model, s.agent); p != "" {
		a = append(a, semconv.GenAIProviderNameKey.String(p))
	}
	return a
}

// start starts a span of trace tr with id id under parent (invalid: a
// root) at start and ends it at end.
func (b *builder) span(tr trace.TraceID, id, parent trace.SpanID, name string, start, end time.Time, attrs []attribute.KeyValue, fn func(trace.Span)) {
	ctx := context.WithValue(context.Background(), idKey{}, ids{tr, id})
	if parent.IsValid() {
		ctx = trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{TraceID: tr, SpanID: parent, TraceFlags: trace.FlagsSampled}))
	}
	if end.Before(start) {
		end = start
	}
	_, sp := b.tracer.Start(ctx, name, trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	if fn != nil {
		fn(sp)
	}
	sp.End(trace.WithTimestamp(end))
}

// toolSpan makes the execute_tool span of ev, an event of s under pr
// (nil: the session's root).
func (b *builder) toolSpan(s *session, pr *prompt, ev *journal.Event) error {
	tr, root := SpanIDs(b.workspace, s.id, "")
	parent := root
	if pr != nil {
		_, parent = SpanIDs(b.workspace, s.id, pr.key)
	}
	_, id := SpanIDs(b.workspace, s.id, fmt.Sprintf("event:%d", ev.Seq))
	tool := ev.Tool
	if tool == "" {
		tool = string(ev.Kind)
	}
	ab := aboutOf(ev)
	a := append(s.common(ab.Model),
		semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(tool),
		attrSeq.Int64(int64(ev.Seq)), attrKind.String(string(ev.Kind)), attrStatus.String(string(ev.Status)),
		attrHash.String(hexID(ev)), attrActor.String(ev.Actor.Kind))
	if ev.Actor.Name != "" && ev.Actor.Name != s.agent {
		a = append(a, attrClient.String(ev.Actor.Name))
	}
	if ab.ID != "" {
		a = append(a, semconv.GenAIToolCallID(ab.ID))
	}
	if ev.Actor.Kind == "mcp" && ev.Actor.Session != s.id {
		a = append(a, attrMCP.String(ev.Actor.Session))
	}
	if ab.Subagent != "" {
		a = append(a, attrSubagent.String(ab.Subagent), semconv.GenAIAgentID(ab.Subagent))
	}
	if ab.AgentType != "" {
		a = append(a, attrType.String(ab.AgentType))
	}
	if t := ev.Targets(); len(t) > 0 {
		a = append(a, attrReverts.Int64(int64(t[0])))
	}
	files := ev.Listed()
	added, removed := 0, 0
	for _, f := range files {
		added += f.Added
		removed += f.Removed
	}
	a = append(a, attrFiles.Int(len(files)), attrAdded.Int(added), attrRemoved.Int(removed))
	if b.o.Content && len(ev.Args) > 0 {
		a = append(a, semconv.GenAIToolCallArgumentsKey.String(string(b.masking.Event(ev).Args)))
	}
	b.span(tr, id, parent, "execute_tool "+tool, startOf(ev), ev.Time, a, func(sp trace.Span) {
		for _, f := range files {
			fa := []attribute.KeyValue{attrPath.String(f.Path), attrChange.String(f.What()), attrFAdded.Int(f.Added), attrFRemoved.Int(f.Removed)}
			if f.MovedFrom != "" {
				fa = append(fa, attrMoved.String(f.MovedFrom))
			}
			sp.AddEvent(FileEvent, trace.WithTimestamp(ev.Time), trace.WithAttributes(fa...))
		}
		if ev.Status == journal.StatusRolledBack {
			sp.SetStatus(codes.Error, ev.Error)
		}
	})
	b.sum.Tools++
	return nil
}

// promptSpan makes the span of pr, a prompt of s.
func (b *builder) promptSpan(s *session, pr *prompt) {
	tr, root := SpanIDs(b.workspace, s.id, "")
	_, id := SpanIDs(b.workspace, s.id, pr.key)
	a := append(s.common(pr.model), attrPromptID.String(pr.id))
	if pr.seq != 0 {
		a = append(a, attrPromptSq.Int64(int64(pr.seq)))
	}
	if b.o.Content && pr.text != "" {
		msg, _ := json.Marshal([]map[string]any{{"role": "user", "parts": []map[string]string{{"type": "text", "content": pr.text}}}})
		a = append(a, semconv.GenAIInputMessagesKey.String(string(msg)))
	}
	b.span(tr, id, root, PromptSpan, pr.first, pr.last, a, nil)
	b.sum.Prompts++
}

// rootSpan makes the invoke_agent span of s.
func (b *builder) rootSpan(s *session) {
	tr, id := SpanIDs(b.workspace, s.id, "")
	a := append(s.common(""), semconv.GenAIOperationNameInvokeAgent,
		attrEvents.Int(s.events), attrAdded.Int(s.added), attrRemoved.Int(s.removed))
	name := "invoke_agent"
	if s.agent != "" { // an MCP client that gave no name: the span's name alone
		name += " " + s.agent
		a = append(a, semconv.GenAIAgentID(s.agent+"/"+s.id))
	}
	if s.version != "" {
		a = append(a, semconv.GenAIAgentVersion(s.version))
	}
	if s.user != "" {
		a = append(a, attrUser.String(s.user))
	}
	if s.host != "" {
		a = append(a, attrHost.String(s.host))
	}
	b.span(tr, id, trace.SpanID{}, name, s.first, s.last, a, nil)
	b.sum.Sessions++
}

// flush hands the spans made to emit once there are o.Batch of them, or
// all of them (all).
func (b *builder) flush(all bool) error {
	if len(b.got.spans) == 0 || !all && len(b.got.spans) < b.o.Batch {
		return nil
	}
	spans := b.got.spans
	b.got.spans = nil
	return b.emit(spans)
}

func hexID(ev *journal.Event) string {
	t, _ := ev.Hash.MarshalText()
	return string(t)
}
