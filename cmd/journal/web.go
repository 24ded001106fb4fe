package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/journalfs/journal/cmd/journal/web"
	"github.com/journalfs/journal/replay"
	"github.com/spf13/cobra"
)

// webFlags are the flags of the commands that serve the web app.
type webFlags struct {
	addr, token string
	open        bool
}

func addWebFlags(cmd *cobra.Command, f *webFlags) {
	cmd.Flags().StringVar(&f.addr, "addr", "127.0.0.1:0", "address to listen on (port 0: a free one); loopback only unless --token")
	cmd.Flags().StringVar(&f.token, "token", "", "require this token of every request (or JOURNAL_WEB_TOKEN); needed for a non-loopback --addr")
	cmd.Flags().BoolVar(&f.open, "open", false, "open the app in the default browser")
}

// serveWeb serves s as f says until ctx ends (Ctrl-C), printing its URL.
func (a *app) serveWeb(ctx context.Context, s *web.Server, f webFlags) error {
	if f.token == "" {
		f.token = os.Getenv("JOURNAL_WEB_TOKEN")
	}
	s.Token = f.token
	s.Reveal = a.reveal
	return s.Listen(ctx, f.addr, func(url string) {
		fmt.Fprintf(a.out, "journal web: %s\n", url)
		if out, ok := a.out.(*os.File); ok {
			out.Sync()
		}
		if f.open {
			openBrowser(url)
		}
	})
}

func newWebCmd(a *app) *cobra.Command {
	var f webFlags
	cmd := &cobra.Command{
		Use:   "web",
		Short: "Browse the journal in a web app on this machine: timeline, diffs, blame, revert",
		Long: `web serves a local web app over the journal: the events newest first, grouped by session (filter by
file, session, tool, text or time), each event's diffs (unified or side by side, highlighted), each session's
combined diff, a file's blame and history, and three actions — revert an event, undo a whole session, restore a
file to an event — each shown first as the diff it would make (or the lines that block it), applied as one new
event on confirmation. New events appear as they are committed, by any process. It listens on a loopback address
(default 127.0.0.1 with a free port) and prints its URL; --open opens it in the default browser. Ctrl-C stops it.

To serve it beyond this machine, give --token T (or JOURNAL_WEB_TOKEN) and a non-loopback --addr: every
request must then carry the token — the printed URL does (?token=T, swapped for a cookie on first use),
scripts send Authorization: Bearer T. Put TLS in front of it (a reverse proxy) on an untrusted network.
` + "`journal team web`" + ` serves the same app's team page over a remote.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			defer e.Close()
			actor := replay.CLIActor()
			actor.Origin = "web"
			s, err := web.New(e, actor)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return a.serveWeb(ctx, s, f)
		},
	}
	addWebFlags(cmd, &f)
	a.addReveal(cmd)
	return cmd
}

// openBrowser opens url in the desktop's browser, if there is one.
func openBrowser(url string) {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	_ = exec.Command(name, url).Start()
}
