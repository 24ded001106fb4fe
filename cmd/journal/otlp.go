package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay/otlp"
	"github.com/spf13/cobra"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// runExportOTLP is `journal export --otlp URL`: the agent sessions of the
// events f selects, sent as traces (replay/otlp), and a line saying what
// was sent.
func (a *app) runExportOTLP(f exportFlags) error {
	switch {
	case f.otlp == "":
		return usageError{errors.New("--otlp-content goes with --otlp URL")}
	case f.formatSet || f.out != "" || f.remote != "" || f.workspace != "":
		return withHint(usageError{errors.New("--otlp sends traces to a collector: --format, -o, --remote and --workspace are for the audit trail")},
			"run `journal export --otlp URL` with --since, --until and --path alone")
	}
	if _, err := otlp.Endpoint(f.otlp); err != nil {
		return withHint(usageError{err}, "give the collector's OTLP/HTTP receiver, e.g. --otlp http://127.0.0.1:4318")
	}
	filter, err := exportTimes(f)
	if err != nil {
		return err
	}
	if err := a.locate(); err != nil {
		return err
	}
	for _, p := range f.paths {
		filter.Paths = append(filter.Paths, a.key(p))
	}
	filter.Reveal = a.reveal
	if err := a.makeWorkspace(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := otlp.NewSender(ctx, f.otlp, f.otlpTimeout)
	if err != nil {
		return err
	}
	defer s.Close(context.Background())
	var sum *otlp.Summary
	err = a.view(func(tx *journal.Tx) error {
		for _, k := range filter.Paths {
			if !knownPath(tx, k) {
				return errNeverJournaled(k)
			}
		}
		sum, err = otlp.Build(tx, otlp.Options{Filter: filter, Content: f.otlpContent},
			func(spans []sdktrace.ReadOnlySpan) error { return s.Send(ctx, spans) })
		return err
	})
	if errors.Is(err, otlp.ErrSend) {
		return withHint(err, "is an OpenTelemetry collector's OTLP/HTTP receiver listening there? (--otlp-timeout: how long to try)")
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.errOut, "sent %d spans to %s: %d session(s), %d prompt(s), %d tool call(s)", sum.Spans(), s.URL, sum.Sessions, sum.Prompts, sum.Tools)
	if sum.Skipped > 0 {
		fmt.Fprintf(a.errOut, "; %d event(s) of no agent session not sent", sum.Skipped)
	}
	fmt.Fprintln(a.errOut)
	return nil
}

// makeWorkspace gives the journal its workspace ID if it has none yet (as
// a first push or checkpoint does): the traces' ids are derived from it, so
// two journals' sessions never share a trace.
func (a *app) makeWorkspace() error {
	j, err := a.journal()
	if err != nil {
		return err
	}
	return ensureWorkspace(j)
}

// ensureWorkspace is makeWorkspace of the journal j.
func ensureWorkspace(j *journal.Journal) error {
	var ws string
	if err := j.View(func(tx *journal.Tx) error { ws = tx.Workspace(); return nil }); err != nil || ws != "" {
		return err
	}
	return j.Do(func(db *journal.DB) error {
		return db.Update(func(tx *journal.Tx) error { _, err := tx.MakeWorkspace(); return err })
	})
}

// liveFlags are the flags of a live OTLP sender (watch, serve).
type liveFlags struct {
	url     string
	content bool
	o       otlp.LiveOptions
}

// add defines the flags on cmd.
func (f *liveFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.url, "otlp", "", "send the agent sessions' spans to this OTLP/HTTP `URL` as events are recorded (as journal export --otlp does)")
	fl.BoolVar(&f.content, "otlp-content", false, "with --otlp: send prompt text and tool arguments too (secrets masked)")
	fl.DurationVar(&f.o.Idle, "otlp-idle", time.Minute, "with --otlp: a session's root span is sent once it has had no new event for this long")
	fl.IntVar(&f.o.Queue, "otlp-queue", 64, "with --otlp: batches of spans waiting for the collector at most; past it they are dropped and counted (journal status)")
	fl.DurationVar(&f.o.Timeout, "otlp-timeout", 30*time.Second, "with --otlp: give up on a request (and its retries) after this long")
}

// check refuses a bad endpoint before anything starts.
func (f *liveFlags) check() error {
	if f.url == "" {
		if f.content {
			return usageError{errors.New("--otlp-content goes with --otlp URL")}
		}
		return nil
	}
	if _, err := otlp.Endpoint(f.url); err != nil {
		return withHint(usageError{err}, "give the collector's OTLP/HTTP receiver, e.g. --otlp http://127.0.0.1:4318")
	}
	return nil
}

// start starts the live sender on j (nil, nil without --otlp).
func (f *liveFlags) start(ctx context.Context, j *journal.Journal) (*otlp.Live, error) {
	if f.url == "" {
		return nil, nil
	}
	if err := ensureWorkspace(j); err != nil {
		return nil, err
	}
	f.o.Content = f.content
	return otlp.StartLive(ctx, j, f.url, f.o)
}
