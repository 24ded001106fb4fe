package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/journal/secrets"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/snapshot"
	"github.com/spf13/cobra"
)

// Secrets the detector finds (journal/secrets) are masked in everything the
// commands print from the journal — event arguments, contents, diffs, blame
// — as "AKIA…[secret: aws-access-token]", unless --reveal is given. The
// contents stay in the journal as they were, so undo and restore still put
// back the exact bytes.

// addReveal adds --reveal to a command that prints the journal's contents.
func (a *app) addReveal(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&a.reveal, "reveal", false, "print detected secrets (keys, tokens, passwords) in clear instead of masked")
}

// mask masks what the commands print, unless --reveal.
func (a *app) mask() audit.Masking { return audit.Masking{Reveal: a.reveal} }

// diffPath returns the file path of a diff side's name ("a/x.go", "b/x.go@7").
func diffPath(name string) string {
	name = strings.TrimPrefix(strings.TrimPrefix(name, "a/"), "b/")
	if i := strings.LastIndexByte(name, '@'); i > 0 {
		name = name[:i]
	}
	return name
}

// maskBlame masks the secrets in a blame's lines and in its events'
// arguments, unless --reveal.
func (a *app) maskBlame(b *replay.Blame) {
	if a.reveal {
		return
	}
	lines := make([]string, len(b.Lines))
	for i, l := range b.Lines {
		lines[i] = string(l.Text)
	}
	for i, l := range a.mask().Lines(b.Path, lines) {
		b.Lines[i].Text = []byte(l)
	}
	for seq, e := range b.Events {
		b.Events[seq] = a.mask().Event(e)
	}
}

// secretPlace is one detected secret as status lists it.
type secretPlace struct {
	seq uint64
	audit.Secret
}

// liveSecrets returns where the journal holds detected secrets, oldest event
// first: the stored findings and those of events not scanned yet (scanned
// now, nothing stored), less those whose value is gone (arguments or
// content redacted, events dropped by gc).
func liveSecrets(tx *journal.Tx) ([]secretPlace, error) {
	found, err := audit.ScanSecrets(tx)
	if err != nil {
		return nil, err
	}
	seqs := make([]uint64, 0, len(found))
	for seq := range found {
		seqs = append(seqs, seq)
	}
	slices.Sort(seqs)
	var out []secretPlace
	for _, seq := range seqs {
		e, err := tx.Event(seq)
		if errors.Is(err, journal.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, s := range found[seq] {
			if s.InArgs() && len(e.Args) == 0 {
				continue
			}
			if !s.InArgs() {
				if _, err := snapshot.Size(tx.Bolt(), s.Content); err != nil {
					continue
				}
			}
			out = append(out, secretPlace{seq, s})
		}
	}
	return out, nil
}

// maxSecretLines bounds the secrets status lists one by one.
const maxSecretLines = 50

// printSecrets is status's account of the detected secrets: where (event,
// file and line, or the argument), which rule — never the value — and what
// to do.
func printSecrets(w io.Writer, found []secretPlace) {
	if len(found) == 0 {
		fmt.Fprintln(w, "secrets   none detected")
		return
	}
	events := map[uint64]bool{}
	for _, s := range found {
		events[s.seq] = true
	}
	fmt.Fprintf(w, "secrets   %d detected in %d event(s), masked in log, show, diff, blame and web (--reveal prints them); `journal redact --secrets` removes them:\n", len(found), len(events))
	for i, s := range found {
		if i == maxSecretLines {
			fmt.Fprintf(w, "    ... and %d more\n", len(found)-i)
			break
		}
		where := fmt.Sprintf("%s:%d", s.Path, s.Line)
		if s.InArgs() {
			where = fmt.Sprintf("arguments %s, line %d", s.Arg, s.Line)
		}
		fmt.Fprintf(w, "    event %d  %s  %s\n", s.seq, where, cDim(s.Rule))
	}
}

// holdsSecret reports whether a stored content, or a string of an event's
// arguments, holds a detected secret: redact --secrets takes out what it
// accepts.
func holdsSecret(b []byte) bool { return len(secrets.Scan(b)) > 0 }
