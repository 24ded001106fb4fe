package otlp

import (
	"errors"
	"testing"
)

// The endpoint a user gives: OTLP/HTTP's /v1/traces added when the URL has
// no path, a path kept, anything but an http(s) URL with a host refused.
func TestEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:4318":            "http://127.0.0.1:4318/v1/traces",
		"http://127.0.0.1:4318/":           "http://127.0.0.1:4318/v1/traces",
		"https://otel.example/otlp/traces": "https://otel.example/otlp/traces",
	} {
		if got, err := Endpoint(in); err != nil || got != want {
			t.Errorf("Endpoint(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"127.0.0.1:4318", "grpc://127.0.0.1:4317", "http://", "ftp://x", ""} {
		if _, err := Endpoint(in); !errors.Is(err, ErrEndpoint) {
			t.Errorf("Endpoint(%q): %v, want ErrEndpoint", in, err)
		}
	}
}

// gen_ai.provider.name from the models the agents' hooks name, else the
// agent whose models are one provider's, else none.
func TestProvider(t *testing.T) {
	for _, c := range []struct{ model, agent, want string }{
		{"claude-sonnet-5", "cursor", "anthropic"},
		{"anthropic/claude-sonnet-4-5", "cline", "anthropic"},
		{"gpt-5.5-codex", "codex", "openai"},
		{"o3-mini", "copilot", "openai"},
		{"gemini-2.5-pro", "gemini", "gcp.gemini"},
		{"google/gemini-3", "cline", "gcp.gemini"},
		{"", "claude-code", "anthropic"},
		{"", "codex", "openai"},
		{"", "kiro", ""},
		{"some-local-model", "windsurf", ""},
	} {
		if got := Provider(c.model, c.agent); got != c.want {
			t.Errorf("Provider(%q, %q) = %q, want %q", c.model, c.agent, got, c.want)
		}
	}
}

// Ids: one trace per workspace and session, one span per part, the same on
// every call.
func TestSpanIDs(t *testing.T) {
	tr, root := SpanIDs("ws", "s1", "")
	tr2, ev := SpanIDs("ws", "s1", "event:7")
	tr3, _ := SpanIDs("ws2", "s1", "")
	tr4, root4 := SpanIDs("ws", "s1", "")
	if tr != tr2 || tr == tr3 || root == ev || tr4 != tr || root4 != root || !tr.IsValid() || !root.IsValid() {
		t.Errorf("ids: %s %s %s %s %s", tr, root, tr2, ev, tr3)
	}
}
