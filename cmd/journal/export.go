package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/journal/remote"
	"github.com/journalfs/journal/replay/otlp"
	"github.com/spf13/cobra"
)

type exportFlags struct {
	format, since, until, out string
	paths                     []string
	remote, workspace         string
	otlp                      string // an OTLP/HTTP endpoint: traces of the agent sessions instead of the audit trail
	otlpContent               bool
	otlpTimeout               time.Duration
	formatSet                 bool
}

func newExportCmd(a *app) *cobra.Command {
	var f exportFlags
	cmd := &cobra.Command{
		Use:   "export [--format jsonl|csv] [--since T] [--until T] [--path P] [-o FILE] | --otlp URL",
		Short: "Write the audit trail: one record per event, then the head record",
		Long: `export writes one record per sealed event, oldest first: who (actor, OS user, host, MCP client and
session), what (tool, kind, arguments, files with before/after hashes and line counts), when (RFC 3339 UTC),
outcome, origin, and prev/hash of the chain; then a head record (event count, head hash) to anchor elsewhere.
A jsonl record carries the exact JSON its hash is computed over, so ` + "`journal verify --export FILE`" + ` checks
the file on its own. Arguments holding a detected secret are left out (the record still verifies by their salted
digest; a csv row masks them) unless --reveal. With -o the file appears only once complete.

With --otlp URL it sends the agent sessions of the events selected (--since, --until, --path) to an
OpenTelemetry collector instead (OTLP/HTTP, protobuf; http://HOST:4318 posts to /v1/traces): a trace per
session, an invoke_agent span per session, a span per prompt and an execute_tool span per tool call, with
the OpenTelemetry GenAI attributes (semantic conventions ` + otlp.SemconvVersion + `) and the files and line counts as
journal.* span events; ids derived from the journal's, so sending a range again sends the same spans.
Prompt text and tool arguments only with --otlp-content, their secrets masked unless --reveal.
OTEL_EXPORTER_OTLP_HEADERS (and the other OTEL_EXPORTER_OTLP_* settings) are read as by any OTLP exporter.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.formatSet = cmd.Flags().Changed("format")
			return a.runExport(f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "jsonl", "jsonl or csv")
	fl.StringVar(&f.since, "since", "", "only events at or after T")
	fl.StringVar(&f.until, "until", "", "only events at or before T")
	fl.StringArrayVar(&f.paths, "path", nil, "only events touching P (a file or directory; repeatable)")
	fl.StringVarP(&f.out, "output", "o", "", "write to FILE instead of standard output")
	fl.StringVar(&f.remote, "remote", "", "export a workspace from this remote instead of the local journal (with --workspace)")
	fl.StringVar(&f.workspace, "workspace", "", "with --remote: the workspace (journal remote show NAME lists them)")
	fl.StringVar(&f.otlp, "otlp", "", "send the agent sessions as OpenTelemetry traces to this OTLP/HTTP `URL` (http://127.0.0.1:4318)")
	fl.BoolVar(&f.otlpContent, "otlp-content", false, "with --otlp: send prompt text and tool arguments too (secrets masked unless --reveal)")
	fl.DurationVar(&f.otlpTimeout, "otlp-timeout", 30*time.Second, "with --otlp: give up on a request (and its retries) after this long")
	a.addReveal(cmd)
	return cmd
}

func (a *app) runExport(f exportFlags) error {
	if f.otlp != "" || f.otlpContent {
		return a.runExportOTLP(f)
	}
	if f.format != "jsonl" && f.format != "csv" {
		return usageError{fmt.Errorf("--format %q: want jsonl or csv", f.format)}
	}
	filter, err := exportTimes(f)
	if err != nil {
		return err
	}
	if f.remote != "" || f.workspace != "" {
		switch {
		case f.remote == "" || f.workspace == "":
			return usageError{errors.New("--remote NAME and --workspace ID go together")}
		case f.format != "jsonl" || f.since != "" || f.until != "" || len(f.paths) > 0:
			return usageError{errors.New("an export from a remote is the whole workspace, as jsonl (filters and csv are for the local journal)")}
		}
	} else if err := a.locate(); err != nil {
		return err
	}
	for _, p := range f.paths {
		filter.Paths = append(filter.Paths, a.key(p))
	}
	filter.Reveal = a.reveal
	var w io.Writer = a.out
	var tmp *os.File
	if f.out != "" {
		dir := filepath.Dir(f.out)
		if tmp, err = os.CreateTemp(dir, "."+filepath.Base(f.out)+".tmp-*"); err != nil {
			return withHint(fmt.Errorf("export: cannot write %s: %w", f.out, errors.Unwrap(err)), "choose a writable -o path")
		}
		defer func() {
			if tmp != nil {
				tmp.Close()
				os.Remove(tmp.Name())
			}
		}()
		w = tmp
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var head *audit.ExportHead
	if f.remote != "" {
		err = a.exportRemote(bw, f.remote, f.workspace, &head)
	} else {
		err = a.view(func(tx *journal.Tx) error {
			b := a.progress(int64(tx.Last()), "export", false)
			defer b.Done()
			for _, k := range filter.Paths {
				if !knownPath(tx, k) {
					return errNeverJournaled(k)
				}
			}
			head, err = audit.Export(tx, bw, f.format, filter, func(seq uint64) {
				if seq%256 == 0 {
					b.Set(int64(seq))
				}
			})
			return err
		})
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return err
	}
	if n := len(head.Exposed); n > 0 {
		fmt.Fprintf(a.errOut, "warning: %d event(s)%s written before salted digests hold detected secrets in their arguments, which the export cannot leave out without breaking their hash: `journal redact --secrets` takes them out\n", n, seqParen(head.Exposed))
	}
	if tmp == nil {
		return nil
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), f.out); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	tmp = nil
	fmt.Fprintf(a.errOut, "exported %d events to %s; head %s\n", head.Events, f.out, head.Head)
	return nil
}

// exportTimes is the filter of f's --since and --until.
func exportTimes(f exportFlags) (audit.ExportFilter, error) {
	var filter audit.ExportFilter
	var err error
	if filter.Since, err = parseTime(f.since); err != nil {
		return filter, err
	}
	filter.Until, err = parseTime(f.until)
	return filter, err
}

// exportRemote writes a remote workspace's audit trail to w.
func (a *app) exportRemote(w io.Writer, name, ws string, head **audit.ExportHead) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := openRemote(ctx, name)
	if err != nil {
		return remoteErr(err)
	}
	h, err := remote.Export(ctx, s, ws, w)
	if err != nil {
		return remoteErr(err)
	}
	*head = h
	return nil
}
