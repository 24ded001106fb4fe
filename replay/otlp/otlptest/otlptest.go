// Package otlptest runs a real OpenTelemetry Collector for tests:
// otelcol-journal (built by scripts/setup-otelcol.sh from
// scripts/otelcol-journal, the Collector's builder output for v0.161.0 with
// its OTLP receiver and the contrib file exporter) on a loopback port,
// writing what it receives as OTLP JSON lines to a file the test reads.
// Tests fail — never skip — when it is not installed.
package otlptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Name is the collector's binary.
const Name = "otelcol-journal"

// Collector is a running collector.
type Collector struct {
	t    testing.TB
	URL  string // its OTLP/HTTP receiver: http://127.0.0.1:PORT
	File string // where its file exporter writes OTLP JSON, one request a line
	cmd  *exec.Cmd
	logs *bytes.Buffer
}

// Binary returns the collector's path, failing the test when it is
// missing.
func Binary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath(Name); err == nil {
		return p
	}
	gopath, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		p := filepath.Join(strings.TrimSpace(string(gopath)), "bin", Name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatalf("%s (the OpenTelemetry Collector the OTLP tests send to) is not installed: run scripts/setup-otelcol.sh", Name)
	return ""
}

// Start starts a collector (killed at the test's end) and waits until its
// receiver listens.
func Start(t testing.TB) *Collector {
	t.Helper()
	bin := Binary(t)
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := &Collector{t: t, URL: "http://" + addr, File: filepath.Join(dir, "traces.jsonl"), logs: &bytes.Buffer{}}
	cfg := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: %s
exporters:
  file:
    path: %s
    flush_interval: 50ms
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
`, addr, c.File)
	conf := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(conf, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	c.cmd = exec.Command(bin, "--config", conf)
	c.cmd.Stdout, c.cmd.Stderr = c.logs, c.logs
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", Name, err)
	}
	t.Cleanup(func() { c.cmd.Process.Kill(); c.cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not listen on %s: %v\n%s", Name, addr, err, c.logs)
		}
	}
}

// Span is a span as the file exporter writes it (OTLP JSON), with its
// resource's and scope's names beside it.
type Span struct {
	TraceID      string `json:"traceId"`
	SpanID       string `json:"spanId"`
	ParentSpanID string `json:"parentSpanId"`
	Name         string `json:"name"`
	Kind         int    `json:"kind"`
	Start        string `json:"startTimeUnixNano"`
	End          string `json:"endTimeUnixNano"`
	Attributes   []KV   `json:"attributes"`
	Events       []struct {
		Time       string `json:"timeUnixNano"`
		Name       string `json:"name"`
		Attributes []KV   `json:"attributes"`
	} `json:"events"`
	Status struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"status"`

	Resource    []KV   `json:"-"`
	Scope       string `json:"-"`
	ScopeSchema string `json:"-"`
}

// KV is an OTLP attribute: its value is the one of the typed fields set.
type KV struct {
	Key   string `json:"key"`
	Value struct {
		String *string `json:"stringValue"`
		Int    *string `json:"intValue"` // int64 as a JSON string
		Bool   *bool   `json:"boolValue"`
	} `json:"value"`
}

// Attr is the value of key among kvs as text ("" when absent).
func Attr(kvs []KV, key string) string {
	for _, kv := range kvs {
		if kv.Key != key {
			continue
		}
		switch {
		case kv.Value.String != nil:
			return *kv.Value.String
		case kv.Value.Int != nil:
			return *kv.Value.Int
		case kv.Value.Bool != nil:
			return fmt.Sprint(*kv.Value.Bool)
		}
	}
	return ""
}

// Attr is the value of the span's attribute key ("" when absent).
func (s Span) Attr(key string) string { return Attr(s.Attributes, key) }

// WaitSpans waits until the collector has written at least n spans (after
// the test sent them: a state, not a time) and returns every span it
// wrote, and its raw file.
func (c *Collector) WaitSpans(n int) ([]Span, []byte) {
	c.t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		raw, _ := os.ReadFile(c.File)
		spans := c.parse(raw)
		if len(spans) >= n {
			return spans, raw
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the collector wrote %d spans, want %d\n%s\nits log:\n%s", len(spans), n, raw, c.logs)
		}
	}
}

// parse reads the file exporter's lines; a line not yet complete ends the
// read.
func (c *Collector) parse(raw []byte) []Span {
	var out []Span
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var req struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes []KV `json:"attributes"`
				} `json:"resource"`
				ScopeSpans []struct {
					Scope struct {
						Name string `json:"name"`
					} `json:"scope"`
					SchemaURL string `json:"schemaUrl"`
					Spans     []Span `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil {
			break
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					s.Resource, s.Scope, s.ScopeSchema = rs.Resource.Attributes, ss.Scope.Name, ss.SchemaURL
					out = append(out, s)
				}
			}
		}
	}
	return out
}
