package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/replay/otlp"
	"github.com/journalfs/journal/replay/watch"
	"github.com/spf13/cobra"
)

func newStatusCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Files changed outside the journal, pending recoveries, journal size and dedup ratio",
		Long: `status hashes every file the journal knows and lists those whose content on disk is not what the journal
last wrote or saw (changed outside it) and, when no watcher runs, the files it never recorded (new, of
those the watcher's ignore rules keep), the batches a stopped process left pending (this command
finishes them, as any command that opens the workspace does: one whose files were all in place is sealed
committed, any other is rolled back), the batches committed through the write-ahead log and not yet in the
journal file (moved into it; a file still as before such a batch gets its content), the journal's size and the
content store's dedup ratio (logical bytes per stored byte), and where the journal holds detected secrets
(keys, tokens, passwords: event, file and line or argument, and the rule that found it, never the value).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return a.runStatus() },
	}
}

// statusMemLimit is status's soft memory limit (GOMEMLIMIT, unless the
// user sets one): its live heap stays under ~16 MiB, but the secret scan of
// events a server left unscanned (a killed server's) rebuilds contents from
// chains of splices, whose garbage took the heap to 35–40 MiB between
// collections; with the binary's mapped code (~21 MiB) and the journal's
// pages that passed the 64 MiB goal (BENCHMARKS.md, issue 60).
const statusMemLimit = 24 << 20

func (a *app) runStatus() error {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(statusMemLimit)
	}
	j, err := a.journal()
	if err != nil {
		return err
	}
	// the cheap structural check first: a damaged file is named, page and
	// all, before anything reads it through bbolt — unless the file is as
	// the last check (or this journal's own write) left it, which its stamp
	// shows: then status takes the check's word (verify always walks)
	var chk *journal.CheckReport
	stamped := j.Stamped()
	if !stamped {
		if chk, err = j.Check(); err != nil {
			return err
		}
	}
	var pending []uint64 // as found, before the engine finishes them
	var last uint64      // the bbolt file's last event as found
	var logged bool      // the write-ahead log holds events past it
	if err := j.View(func(tx *journal.Tx) error {
		pending, last = tx.Pending(), tx.Last()
		if chk == nil {
			chk = &journal.CheckReport{}
			chk.FreePages, chk.PageSize, _ = j.FreePages()
		}
		logged = j.LogAhead(last)
		return nil
	}); err != nil {
		return err
	}
	e, err := a.engine() // finishes what a stopped process left pending
	if err != nil {
		return err
	}
	defer e.Close()
	if err := e.ScanSecrets(); err != nil { // once: what it scans is stored
		return err
	}
	var head string
	var cps []*audit.Checkpoint
	var treeSize int64
	var found []secretPlace
	outcome := map[uint64]journal.Status{}
	err = e.Journal().View(func(tx *journal.Tx) error {
		treeSize = audit.TreeSize(tx)
		if found, err = liveSecrets(tx); err != nil {
			return err
		}
		if cps, err = audit.Checkpoints(tx); err != nil {
			return err
		}
		if last := tx.Last(); last > 0 {
			ev, err := tx.Event(last)
			if err != nil {
				return fmt.Errorf("the newest event: %w", err) // the chain's head is damaged
			}
			if !ev.Hash.IsZero() {
				head = ev.Hash.Short()
			}
		}
		for _, p := range pending {
			if ev, err := tx.Event(p); err == nil {
				outcome[p] = ev.Status
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	st, err := e.Status()
	if err != nil {
		return err
	}
	w := a.out
	fmt.Fprintf(w, "journal   %s\n", a.jpath)
	fmt.Fprintf(w, "roots     %s\n", strings.Join(a.rootD, ", "))
	ev := fmt.Sprintf("%d", st.Events)
	if head != "" {
		ev += " (head " + head + ")"
	}
	fmt.Fprintf(w, "events    %s\n", ev)
	if free := int64(chk.FreePages) * int64(chk.PageSize); free > 0 {
		fmt.Fprintf(w, "size      %s on disk, %s of it free pages (`journal gc` compacts the file when a quarter or more is free, or when it drops events)\n", humanBytes(st.JournalBytes), humanBytes(free))
	} else {
		fmt.Fprintf(w, "size      %s on disk\n", humanBytes(st.JournalBytes))
	}
	if stamped {
		fmt.Fprintf(w, "structure ok (unchanged since its last check; `journal verify` walks every page and re-hashes every record and content)\n")
	} else {
		fmt.Fprintf(w, "structure ok (%d pages of %d bytes walked; `journal verify` re-hashes every record and content)\n", chk.Pages, chk.PageSize)
	}
	s := st.Store
	fmt.Fprintf(w, "contents  %d, %s in %d chunks, %s stored (dedup %.2fx)\n",
		s.Contents, humanBytes(s.LogicalBytes), s.Chunks, humanBytes(s.StoredBytes), s.DedupRatio())
	if len(pending) == 0 {
		fmt.Fprintln(w, "pending   none")
	} else {
		var ns []string
		for _, p := range pending {
			what := "rolled back now"
			if outcome[p] == journal.StatusCommitted {
				what = "its files were in place: sealed committed now"
			}
			ns = append(ns, fmt.Sprintf("event %d (%s)", p, what))
		}
		fmt.Fprintf(w, "pending   %d batch(es) a stopped process left: %s\n", len(pending), strings.Join(ns, ", "))
	}
	if n := len(cps); n > 0 { // shown once the journal has any: signing is the user's choice
		c := cps[n-1]
		fmt.Fprintf(w, "signed    %d checkpoint(s); the newest covers %d of %d events, signed %s by %s (`journal verify --key FILE.pub` checks them)\n",
			n, c.Size, treeSize, c.Time.Local().Format("2006-01-02 15:04:05"), strings.Join(signerNames(c), ", "))
	}
	for _, r := range st.Replication {
		fmt.Fprintf(w, "replicate %s\n", describeReplication(r))
	}
	if ls, err := otlp.ReadStatus(j.Path()); err != nil {
		fmt.Fprintf(w, "otlp      %v\n", err)
	} else if ls != nil {
		fmt.Fprintf(w, "otlp      %s\n", describeLive(ls))
	}
	if logged && st.Events > last {
		fmt.Fprintf(w, "logged    events %d–%d were committed through the write-ahead log and not yet in the journal file (a running server's last batches, or a stopped one's): moved into it now\n", last+1, st.Events)
	}
	var untracked []string // files never journaled: the watcher records them within a second when it runs
	if watch.Running(a.jpath) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		calls, err := watch.OpenCalls(ctx, a.jpath)
		cancel()
		switch {
		case err != nil:
			fmt.Fprintf(w, "watcher   running, but not answering (%s): changes made outside the tools are recorded once it does\n", cleanMessage(err))
		case len(calls) == 0:
			fmt.Fprintln(w, "watcher   running: every change made outside the tools becomes an event within a second")
		default:
			fmt.Fprintln(w, "watcher   running: a change made outside the tools becomes an event within a second, except while an agent's call is open")
		}
		now := time.Now()
		for _, c := range calls {
			fmt.Fprintf(w, "call      %s; the changes made meanwhile (%d file(s) now) wait for it to end, and are named for it only as far as they can be tied to it: it closes without its after-hook when its agent's process is gone, at its session's next prompt, or %s\n",
				c.Describe(now), c.Waiting, c.Closes(now))
		}
	} else {
		fmt.Fprintln(w, "watcher   not running: changes made outside the tools are recorded when `journal serve` or `journal watch` next starts")
		if untracked, err = watch.Untracked(e); err != nil {
			return err
		}
	}
	printSecrets(w, found)
	if len(st.Changed)+len(untracked) == 0 {
		fmt.Fprintln(w, "\nno file changed outside the journal")
		return nil
	}
	fmt.Fprintf(w, "\nchanged outside the journal (%d):\n", len(st.Changed)+len(untracked))
	for _, d := range st.Changed {
		letter, detail := "M", fmt.Sprintf("journal %s (event %d), disk %s", shortID(d.Head), d.HeadSeq, shortID(d.Disk))
		switch {
		case d.Err != "":
			letter, detail = "?", cleanMessage(fmt.Errorf("%s", d.Err))
		case d.Disk.IsZero():
			letter, detail = "D", fmt.Sprintf("deleted; journal %s (event %d)", shortID(d.Head), d.HeadSeq)
		case d.Head.IsZero():
			letter, detail = "A", fmt.Sprintf("created again; journal had it deleted (event %d)", d.HeadSeq)
		case d.ModeOnly():
			detail = fmt.Sprintf("mode %o -> %o; content as the journal has it (event %d)", d.HeadMode, d.DiskMode, d.HeadSeq)
		case d.ModeChanged():
			detail += fmt.Sprintf(", mode %o -> %o", d.HeadMode, d.DiskMode)
		}
		fmt.Fprintf(w, "    %s  %s  %s\n", cDel(letter), d.Path, cDim(detail))
	}
	for _, k := range untracked {
		fmt.Fprintf(w, "    %s  %s  %s\n", cAdd("A"), k, cDim("new: never journaled"))
	}
	return nil
}

// describeLive says what a live OTLP sender (watch or serve --otlp) did.
func describeLive(ls *otlp.LiveStatus) string {
	s := fmt.Sprintf("spans to %s (pid %d, since %s): %d sent, %d dropped (queue full), %d failed",
		ls.URL, ls.PID, ls.Started.Local().Format("2006-01-02 15:04:05"), ls.Sent, ls.Dropped, ls.Failed)
	if ls.Error != "" {
		s += fmt.Sprintf("; last error at %s: %s", ls.ErrorAt.Local().Format("15:04:05"), ls.Error)
	}
	if ls.Stopped {
		s += fmt.Sprintf("; stopped %s", ls.Updated.Local().Format("2006-01-02 15:04:05"))
	}
	return s
}

// describeReplication says where a continuous replication stands.
func describeReplication(r journal.Replication) string {
	s := fmt.Sprintf("to %s (workspace %s): ", r.Remote, r.Workspace)
	if r.Behind == 0 {
		s += fmt.Sprintf("up to date (event %d)", r.Pushed)
	} else {
		s += fmt.Sprintf("%d event(s) behind, lag %s (the remote holds events to %d)", r.Behind, r.Lag.Round(time.Millisecond), r.Pushed)
	}
	if r.Error != "" {
		s += fmt.Sprintf("; failing since %s: %s", r.ErrorAt.Local().Format("15:04:05"), r.Error)
	}
	if time.Since(r.Updated) > time.Minute && r.Behind > 0 {
		s += fmt.Sprintf("; not updated since %s (is journal serve --replicate %s running?)", r.Updated.Local().Format("2006-01-02 15:04:05"), r.Remote)
	}
	return s
}

// signerNames are the names on a checkpoint's signature lines (not
// verified: status has no keys).
func signerNames(c *audit.Checkpoint) []string {
	var out []string
	_, rest, _ := strings.Cut(string(c.Note), "\n\n")
	for _, l := range strings.Split(strings.TrimSpace(rest), "\n") {
		if f := strings.Fields(strings.TrimPrefix(l, "— ")); len(f) == 2 {
			out = append(out, f[0])
		}
	}
	return out
}
