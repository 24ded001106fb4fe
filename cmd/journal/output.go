package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/fatih/color"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// isTTY reports whether w is a terminal.
func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// initColor decides once whether output is coloured: --color always/never,
// else only on a terminal, never with $NO_COLOR set or TERM=dumb.
func (a *app) initColor() {
	on := a.color == "always"
	if a.color == "auto" {
		on = isTTY(a.out) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	}
	color.NoColor = !on
}

// Styles, applied only when colour is on.
var (
	cSeq    = color.New(color.FgYellow).SprintFunc()
	cAdd    = color.New(color.FgGreen).SprintFunc()
	cDel    = color.New(color.FgRed).SprintFunc()
	cHunk   = color.New(color.FgCyan).SprintFunc()
	cBold   = color.New(color.Bold).SprintFunc()
	cDim    = color.New(color.Faint).SprintFunc()
	cStatus = color.New(color.FgMagenta).SprintFunc()
)

// pager is a running pager process fed through a pipe.
type pager struct {
	cmd *exec.Cmd
	in  io.WriteCloser
}

// startPager pages the command's output, as git does: only on a terminal,
// not with --no-pager, with $JOURNAL_PAGER, else $PAGER, else "less" (LESS=FRX
// unless set, so short output prints and exits).
func (a *app) startPager() {
	if a.noPager || a.pager != nil || !isTTY(a.out) {
		return
	}
	name := os.Getenv("JOURNAL_PAGER")
	if name == "" {
		name = os.Getenv("PAGER")
	}
	if name == "" {
		name = "less"
	}
	if name == "cat" || strings.TrimSpace(name) == "" {
		return
	}
	cmd := exec.Command("sh", "-c", name)
	cmd.Stdout, cmd.Stderr = a.out, a.errOut
	cmd.Env = os.Environ()
	if os.Getenv("LESS") == "" {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return
	}
	if err := cmd.Start(); err != nil {
		return // no pager: print directly
	}
	a.pager = &pager{cmd: cmd, in: in}
	a.out = in
}

// closePager waits for the pager to finish.
func (a *app) closePager() {
	if a.pager != nil {
		a.pager.in.Close()
		a.pager.cmd.Wait()
		a.pager = nil
	}
}

// bar is a progress bar on stderr when it is a terminal and the work is large; otherwise it does nothing.
type bar struct{ pb *progressbar.ProgressBar }

// progress starts a bar for total units (bytes if inBytes).
func (a *app) progress(total int64, desc string, inBytes bool) *bar {
	return a.progressFrom(total, desc, inBytes, 2000)
}

// progressFrom is progress for work of at least least units (a push or a
// clone shows its bar whatever its size: each unit may be a network round
// trip).
func (a *app) progressFrom(total int64, desc string, inBytes bool, least int64) *bar {
	if total < least || !isTTY(a.errOut) {
		return &bar{}
	}
	opts := []progressbar.Option{progressbar.OptionSetWriter(a.errOut), progressbar.OptionSetDescription(desc),
		progressbar.OptionThrottle(100e6), progressbar.OptionClearOnFinish(), progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowCount(), progressbar.OptionSetWidth(30)}
	if inBytes {
		opts = append(opts, progressbar.OptionShowBytes(true))
	}
	return &bar{pb: progressbar.NewOptions64(total, opts...)}
}

// Set moves the bar to n.
func (b *bar) Set(n int64) {
	if b.pb != nil {
		b.pb.Set64(n)
	}
}

// Done removes the bar.
func (b *bar) Done() {
	if b.pb != nil {
		b.pb.Finish()
	}
}

// actorString is the short form of who caused an event: client/session
// (an MCP client, or an agent through its hooks: claude-code/SESSION),
// cli:user, web:user (the web app), external.
func actorString(a journal.Actor) string {
	switch a.Kind {
	case "cli":
		k := "cli"
		if a.Origin == "web" {
			k = "web"
		}
		if a.User != "" {
			return k + ":" + a.User
		}
		return k
	case "mcp", "agent":
		s := a.Name
		if s == "" {
			s = a.Kind
		}
		if a.Session != "" {
			s += "/" + a.Session
		}
		return s
	}
	if a.Kind == "" {
		return "?"
	}
	return a.Kind
}

// changeLetter is A (created), D (deleted), R (moved), M (modified).
func changeLetter(f journal.FileChange) string { return changeLetters[f.What()] }

var changeLetters = map[string]string{"moved": "R", "created": "A", "deleted": "D", "modified": "M"}

// lineCounts is "+a -r" (coloured), or "" when both are zero.
func lineCounts(f journal.FileChange) string {
	var parts []string
	if f.Added > 0 {
		parts = append(parts, cAdd(fmt.Sprintf("+%d", f.Added)))
	}
	if f.Removed > 0 {
		parts = append(parts, cDel(fmt.Sprintf("-%d", f.Removed)))
	}
	return strings.Join(parts, " ")
}

// fileLine is one file of an event: "M  path  +3 -1".
func fileLine(f journal.FileChange) string {
	name := f.Path
	if f.MovedFrom != "" {
		name = f.MovedFrom + " -> " + f.Path
	}
	s := changeLetter(f) + "  " + name
	if c := lineCounts(f); c != "" {
		s += "  " + c
	}
	return s
}

// shortID is the short hash, or "(absent)".
func shortID(id snapshot.ID) string {
	if id.IsZero() {
		return "(absent)"
	}
	return id.Short()
}

// humanBytes formats n as B, KiB, MiB, GiB.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
