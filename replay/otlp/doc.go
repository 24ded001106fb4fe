// Package otlp sends the journal's agent sessions to an OpenTelemetry
// backend as traces (OTLP over HTTP, protobuf), following the OpenTelemetry
// GenAI semantic conventions: `journal export --otlp URL`. The spans are
// made by the official Go SDK (go.opentelemetry.io/otel/sdk) and sent by its
// OTLP trace exporter (otlptracehttp); the mapping from events to spans is
// in docs/DESIGN.md ("OpenTelemetry traces").
//
// # What it owns
//
// Build (spans.go) walks the journal in order and makes, for every agent
// session with an event the filter selects, one trace: its root span
// `invoke_agent {gen_ai.agent.name}`, a `prompt` span per prompt (a
// prompt event, or a prompt id only the calls name) and an `execute_tool
// {gen_ai.tool.name}` span per event of the session (a hook-recorded call,
// an MCP tool's edit, an undo), under its prompt (replay.Prompts) or, with
// none, under the root. Sender (send.go) batches the spans to the exporter
// and returns its errors (ErrSend).
//
// # Rules
//
//   - Deterministic ids. A trace id is derived from the workspace id and
//     the session; a span id from the trace's key and the session, the
//     prompt (its event number, else its id) or the event number
//     (SpanIDs). Sending a range twice sends the same spans with the same
//     ids: a backend that keys spans by trace and span id keeps one copy.
//     The root and prompt spans cover the whole session and prompt as the
//     journal holds them, not only the events of the range, so the spans a
//     second, overlapping export sends are equal to the first's.
//   - Real times. A span starts and ends at the times the journal recorded:
//     a hook-recorded call from when its before-hook opened it
//     (args.call.start) to its event (when its changes were recorded);
//     another event (an MCP tool's edit) at its event's time; a prompt from
//     its prompt event to the last event it served; a session from its
//     first event to its last. Nothing is timed at export.
//   - Secrets. What a span says of arguments and prompt text is masked as
//     everywhere the journal prints them (audit.Masking) unless Reveal; the
//     prompt text and the tool arguments are sent only with Content (the
//     conventions make both opt-in).
//   - Nothing of a person's or the watcher's own events (no agent session)
//     is sent: the traces are the agents'.
package otlp
