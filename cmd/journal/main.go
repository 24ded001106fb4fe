// Command journal shows and undoes what AI agents did to a workspace, and
// proves it afterwards: every file change is an event in a hash-chained
// journal over content-addressed snapshots (see packages journal and replay).
//
//	journal log | show | diff | revert | undo | redo | restore | status | export | verify | gc | repair
//	journal key generate | checkpoint | prove
//
// The journal is found as git finds .git: --journal PATH, else $JOURNAL_PATH,
// else .journal/journal.db in the current directory or the nearest parent that
// has one; the workspace root is the directory holding .journal (--root
// overrides it, and may be repeated). Errors are one line on stderr,
// "journal: <message>", with a hint where one helps, and a non-zero exit.
//
// Hidden knobs for tests and scripts: $JOURNAL_TZ sets the time zone times are
// shown in (default local), $JOURNAL_NOW (RFC 3339) fixes "now" for gc and
// relative times, and $JOURNAL_PAGER (or $PAGER) chooses the pager.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/replay/gitai"
	"github.com/journalfs/journal/replay/otlp"
	"github.com/journalfs/journal/snapshot"
	"github.com/spf13/cobra"
)

// extraCommands are subcommands defined in other files of this package that
// register themselves from init (serve.go: `journal serve`).
var extraCommands []func() *cobra.Command

// app holds the global flags and what they resolve to.
type app struct {
	journalFlag string
	roots       []string
	noPager     bool
	color       string
	reveal      bool // --reveal: print detected secrets in clear (secrets.go)
	stat        bool // --stat: a dry run lists files and line counts instead of the diff (revert.go)

	out    io.Writer // stdout, or the pager's input
	errOut io.Writer
	pager  *pager

	jpath string   // the journal file, once located
	wsDir string   // the workspace root (the directory holding .journal)
	rootD []string // workspace roots for the engine
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	a := &app{out: stdout, errOut: stderr}
	root := newRootCmd(a)
	if isHookCall(root, args) {
		return runHookCall(root, args, stderr)
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	a.closePager()
	if err == nil {
		return 0
	}
	return a.report(err)
}

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "journal",
		Short: "See, undo and prove every file change AI agents made to a workspace",
		Long: `journal records every file change an agent makes (through ` + "`journal serve`" + `) as an event in a
hash-chained journal over content-addressed snapshots. These commands show that history, take any part
of it back, and prove it has not been altered.`,
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return a.setup(cmd) },
		Version:           binVersion(),
	}
	root.SetVersionTemplate("journal {{.Version}}\n")
	f := root.PersistentFlags()
	f.StringVar(&a.journalFlag, "journal", "", "journal file (default: $JOURNAL_PATH, else .journal/journal.db here or in a parent)")
	f.StringArrayVar(&a.roots, "root", nil, "workspace root (repeatable; default: the directory holding .journal)")
	f.BoolVar(&a.noPager, "no-pager", false, "do not page output")
	f.StringVar(&a.color, "color", "auto", "colour output: auto, always or never")
	root.AddCommand(newLogCmd(a), newShowCmd(a), newDiffCmd(a), newRevertCmd(a), newUndoCmd(a), newRedoCmd(a),
		newRestoreCmd(a), newStatusCmd(a), newExportCmd(a), newVerifyCmd(a), newGCCmd(a), newRepairCmd(a), newBlameCmd(a), newWebCmd(a),
		newRemoteCmd(a), newPushCmd(a), newCloneCmd(a), newTeamCmd(a), newKeyCmd(a), newCheckpointCmd(a), newProveCmd(a), newRedactCmd(a), newGitCmd(a),
		&cobra.Command{Use: "version", Short: "Print the version of this binary", Args: cobra.NoArgs,
			PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
			Run:               func(cmd *cobra.Command, _ []string) { fmt.Fprintf(cmd.OutOrStdout(), "journal %s\n", binVersion()) }})
	for _, mk := range extraCommands {
		root.AddCommand(mk())
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%v (see `%s --help`)", err, c.CommandPath())}
	})
	return root
}

// usageError is a bad command line (exit status 2).
type usageError struct{ error }

// hinted is an error with a hint shown on a second line.
type hinted struct {
	err  error
	hint string
}

// Error implements error.
func (h *hinted) Error() string { return h.err.Error() }

// Unwrap returns the wrapped error.
func (h *hinted) Unwrap() error { return h.err }

// withHint attaches a hint to err.
func withHint(err error, hint string) error { return &hinted{err: err, hint: hint} }

// detailed is an error followed by lines of detail (a revert conflict's lines).
type detailed struct {
	err   error
	lines []string
}

// Error implements error.
func (d *detailed) Error() string { return d.err.Error() }

// Unwrap returns the wrapped error.
func (d *detailed) Unwrap() error { return d.err }

// failed means the command already printed why it failed (verify).
var errFailed = errors.New("failed")

// report prints err as "journal: <message>" (plus detail and hint lines) and returns the exit code.
func (a *app) report(err error) int {
	if errors.Is(err, errFailed) {
		return 1
	}
	var ec exitCode // journal exec: the command's own status, already reported by it
	if errors.As(err, &ec) {
		return int(ec)
	}
	code := 1
	var ue usageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") ||
		strings.Contains(err.Error(), "arg(s)") {
		code = 2
	}
	if msg, similar, ok := strings.Cut(err.Error(), "\n\nDid you mean this?\n"); ok && strings.HasPrefix(msg, "unknown command") {
		// cobra's typo suggestions, one per line as git prints them
		fmt.Fprintf(a.errOut, "journal: %s\n\nThe most similar commands are\n", msg)
		for _, c := range strings.Fields(similar) {
			fmt.Fprintf(a.errOut, "\t%s\n", c)
		}
		return code
	}
	if c := errorCode(err); c != "" {
		fmt.Fprintf(a.errOut, "journal: %s: %s\n", c, cleanMessage(err))
	} else {
		fmt.Fprintf(a.errOut, "journal: %s\n", cleanMessage(err))
	}
	var d *detailed
	if errors.As(err, &d) {
		for _, l := range d.lines {
			fmt.Fprintln(a.errOut, l)
		}
	}
	if h := hintFor(err); h != "" {
		fmt.Fprintf(a.errOut, "hint: %s\n", h)
	}
	return code
}

// errorCode is the code a failure is printed with, as the server's tools
// give it: JOURNAL_DAMAGED for a damaged journal file or record (not for a
// damaged export, which is the file checked, not the journal), BUSY for a
// lock held by a process that makes no progress, JOURNAL_TOO_NEW for a
// journal a newer binary wrote; for checkpoints, HISTORY_REWRITTEN (the
// events are not the ones a checkpoint or an earlier export covered),
// CHECKPOINT_INVALID (malformed, signed by no key given, of another
// workspace), TREE_INCOMPLETE (gc dropped leaves a proof needs) and
// KEY_INVALID (a key file that cannot be used); CONFIG_INVALID for a
// configuration file that does not read (checkpoint.json);
// ATTESTATION_INVALID for an attestation that does not hold (git attest
// --verify); OTLP_ENDPOINT_INVALID and OTLP_SEND_FAILED for export --otlp.
func errorCode(err error) string {
	var ex exportError
	var ke keyError
	var ce configError
	var ue usageError
	switch {
	case errors.As(err, &ke):
		return "KEY_INVALID"
	case errors.As(err, &ce):
		return "CONFIG_INVALID"
	case errors.Is(err, gitai.ErrAttestation):
		return "ATTESTATION_INVALID"
	case errors.Is(err, audit.ErrRewritten):
		return "HISTORY_REWRITTEN"
	case errors.Is(err, audit.ErrCheckpoint):
		return "CHECKPOINT_INVALID"
	case errors.Is(err, audit.ErrTree):
		return "TREE_INCOMPLETE"
	case errors.As(err, &ex):
		return ""
	case errors.Is(err, journal.ErrRedacted):
		return "REDACTED"
	case errors.Is(err, journal.ErrDamaged), errors.Is(err, journal.ErrCorrupt), errors.Is(err, snapshot.ErrCorrupt):
		return "JOURNAL_DAMAGED"
	case errors.Is(err, journal.ErrBusy):
		return "BUSY"
	case errors.Is(err, journal.ErrFormat):
		return "JOURNAL_TOO_NEW"
	case errors.Is(err, otlp.ErrEndpoint), errors.As(err, &ue) && errors.Is(ue.error, otlp.ErrEndpoint):
		return "OTLP_ENDPOINT_INVALID"
	case errors.Is(err, otlp.ErrSend):
		return "OTLP_SEND_FAILED"
	}
	return ""
}

// exportError is a failed check of an export file.
type exportError struct{ error }

// Unwrap returns the check's error.
func (e exportError) Unwrap() error { return e.error }

// cleanMessage drops the package prefixes that wrapping repeats ("journal: ", "replay: ", "snapshot: ")
// where they start the message or a wrapped part of it (after ": "), not the words of a
// sentence ("no events in this journal: …").
func cleanMessage(err error) string {
	s := err.Error()
	for _, p := range []string{"journal: ", "replay: ", "snapshot: "} {
		s = strings.ReplaceAll(strings.TrimPrefix(s, p), ": "+p, ": ")
	}
	return strings.ReplaceAll(s, "\n", " ")
}
