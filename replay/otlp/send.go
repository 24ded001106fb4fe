package otlp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// ErrEndpoint: the endpoint is not an http:// or https:// URL with a host.
var ErrEndpoint = errors.New("otlp: bad endpoint")

// ErrSend: the collector did not take the spans (unreachable, refused,
// or it answered with an error) within the sender's timeout.
var ErrSend = errors.New("otlp: the spans were not sent")

// Endpoint is the URL spans are posted to for endpoint as a user gives it:
// an http:// or https:// URL; with no path, OTLP/HTTP's /v1/traces (as
// OTEL_EXPORTER_OTLP_ENDPOINT is read), else the path as given.
func Endpoint(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%w %q: want an OTLP/HTTP URL such as http://127.0.0.1:4318 (the path /v1/traces is added when none is given)", ErrEndpoint, endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return u.String(), nil
}

// Sender posts spans to an OTLP/HTTP endpoint (protobuf) with the SDK's
// exporter, which also reads the standard OTEL_EXPORTER_OTLP_HEADERS (and
// _TRACES_HEADERS, certificates, compression) from the environment.
type Sender struct {
	URL string
	exp *otlptrace.Exporter
}

// NewSender makes a sender to endpoint (Endpoint): each request, its
// retries included, gives up after timeout.
func NewSender(ctx context.Context, endpoint string, timeout time.Duration) (*Sender, error) {
	u, err := Endpoint(endpoint)
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(u), otlptracehttp.WithTimeout(timeout),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: true, InitialInterval: 200 * time.Millisecond, MaxInterval: 2 * time.Second, MaxElapsedTime: timeout}))
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	return &Sender{URL: u, exp: exp}, nil
}

// Send posts spans in one request; an error wraps ErrSend.
func (s *Sender) Send(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	if err := s.exp.ExportSpans(ctx, spans); err != nil {
		return fmt.Errorf("%w to %s: %s", ErrSend, s.URL, strings.TrimPrefix(err.Error(), "traces export: "))
	}
	return nil
}

// Close releases the exporter.
func (s *Sender) Close(ctx context.Context) error { return s.exp.Shutdown(ctx) }
