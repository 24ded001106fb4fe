package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/replay/watch"
)

func init() {
	extraCommands = append(extraCommands, newWatchCmd, newExecCmd)
}

// openWorkspace opens the engine of the workspace the CLI would use, creating
// the journal (as serve does) when create is set and none is found.
func (a *app) openWorkspace(create bool) (*replay.Engine, error) {
	err := a.locate()
	if err != nil && create && errors.Is(err, errNoJournal) {
		roots := a.roots
		if len(roots) == 0 {
			roots = []string{"."}
		}
		return replay.Open(replay.Options{Roots: roots, JournalPath: a.journalFlag, Actor: replay.CLIActor()})
	}
	if err != nil {
		return nil, err
	}
	return a.engine()
}

func newWatchCmd() *cobra.Command {
	var o watch.Options
	var quiet bool
	var live liveFlags
	a := &app{out: os.Stdout, errOut: os.Stderr}
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Record every change made to the workspace by any process, as events (what journal serve does by default)",
		Long: `Watch the workspace and record every change another process makes to it (an editor, a shell
command, a script, git) as an observe event within about a second of the change settling, so that undo,
restore and blame reach it. What changed while no watcher ran is recorded first, as one catch-up event;
files the journal has never seen are recorded once as a baseline. .gitignore files, .journalignore files
and the defaults (node_modules/, .venv/, caches) say what is left alone. Runs until interrupted; one
watcher runs per workspace (journal serve runs it unless --watch=false).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			serveMemoryLimit() // a long-running process, as a server is: the same bound
			if err := live.check(); err != nil {
				return err
			}
			a.journalFlag, a.roots = flagString(cmd, "journal"), flagStrings(cmd, "root")
			eng, err := a.openWorkspace(true)
			if err != nil {
				return err
			}
			defer eng.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			o.Logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
			if !quiet {
				o.Recorded = func(ob *replay.Observed) { printObserved(os.Stderr, ob) }
			}
			w, err := watch.Start(ctx, eng, o)
			if errors.Is(err, watch.ErrBusy) {
				return withHint(err, "journal serve runs a watcher by default; stop it or start it with --watch=false")
			}
			if err != nil {
				return err
			}
			sender, err := live.start(ctx, eng.Journal())
			if err != nil {
				w.Close()
				return err
			}
			fmt.Fprintf(os.Stderr, "journal watch: watching %s (journal %s); Ctrl-C to stop\n", eng.Roots()[0].Dir, eng.Journal().Path())
			if sender != nil {
				fmt.Fprintf(os.Stderr, "journal watch: sending the agent sessions' spans to %s as events are recorded\n", sender.Status().URL)
			}
			<-ctx.Done()
			err = w.Close()
			if sender != nil {
				sender.Close() // after the watcher: its last events are sent
			}
			return err
		},
	}
	cmd.Flags().DurationVar(&o.Settle, "settle", 0, "how long a file must be quiet before its change is recorded (default 200ms)")
	cmd.Flags().Int64Var(&o.MaxSize, "max-size", 0, "larger files are not recorded (default 128 MiB)")
	cmd.Flags().BoolVar(&quiet, "quiet", false, "do not print each recorded event")
	live.add(cmd)
	cmd.Flags().DurationVar(&o.CallMax, "call-max", 0, "an agent's call whose after-hook has not come after this long (or its tool's own limit, if shorter) is closed, what changed meanwhile tied to no one (default 10m)")
	return cmd
}

// printObserved prints one line per event a watcher recorded.
func printObserved(w io.Writer, ob *replay.Observed) {
	if len(ob.Events) == 0 {
		return
	}
	fmt.Fprintf(w, "journal watch: recorded %d file(s) as event(s) %s\n", ob.Count, seqList(ob.Events))
}

func seqList(seqs []uint64) string {
	var s []string
	for _, q := range seqs {
		s = append(s, fmt.Sprint(q))
	}
	return strings.Join(s, ", ")
}

// startWatcher runs the workspace's watcher for a server: at once if no
// other process watches, else as soon as that one stops (checked every 2 s).
// stop ends it (recording what is still waiting).
func startWatcher(eng *replay.Engine) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var w *watch.Watcher
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	// the server's first tool call waits for the first start's catch-up
	// (its baseline): held here, before the server answers (watch.Start
	// holds it too, from the goroutine, which may start later)
	release := eng.HoldEdits()
	go func() {
		defer close(done)
		defer release()
		said := false
		for {
			var err error
			w, err = watch.Start(ctx, eng, watch.Options{Logf: logf})
			release()
			if err == nil {
				return
			}
			if !errors.Is(err, watch.ErrBusy) {
				if ctx.Err() == nil {
					logf("journal serve: the watcher did not start: %v (changes made outside the tools are recorded only before a tool overwrites them)", err)
				}
				return
			}
			if !said {
				logf("journal serve: another process watches this workspace; this server takes over when it stops")
				said = true
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(2 * time.Second):
			}
		}
	}()
	return func() {
		cancel()
		<-done
		if w != nil {
			if err := w.Close(); err != nil {
				logf("journal serve: watcher: %v", err)
			}
		}
	}
}

func newExecCmd() *cobra.Command {
	a := &app{out: os.Stdout, errOut: os.Stderr}
	cmd := &cobra.Command{
		Use:   "exec -- COMMAND [ARGS...]",
		Short: "Run a command and record the changes it makes to the workspace as one event naming it",
		Long: `Run COMMAND (stdin, stdout and stderr are its own) and record every change made to the workspace
while it ran as one event naming it, so that one undo takes the command back. What changed before it is
recorded first, apart. Exits with the command's status.`,
		Args:               cobra.MinimumNArgs(1),
		DisableFlagParsing: false,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.journalFlag, a.roots = flagString(cmd, "journal"), flagStrings(cmd, "root")
			eng, err := a.openWorkspace(true)
			if err != nil {
				return err
			}
			defer eng.Close()
			var buf strings.Builder // the command as typed: no HTML escapes
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.Encode(map[string]any{"command": shellJoin(args), "argv": args})
			input := json.RawMessage(strings.TrimSpace(buf.String()))
			actor := replay.CLIActor()
			var rnd [8]byte
			rand.Read(rnd[:])
			c := watch.Call{ID: "exec-" + hex.EncodeToString(rnd[:]), Agent: "exec", Tool: "exec", Input: input,
				User: actor.User, Host: actor.Host, Origin: "exec", Proc: watch.SelfProc()}
			ctx := context.Background()
			if _, err := watch.Begin(ctx, eng, c); err != nil {
				return err
			}
			run := exec.Command(args[0], args[1:]...)
			run.Stdin, run.Stdout, run.Stderr = os.Stdin, os.Stdout, os.Stderr
			sigs := make(chan os.Signal, 4)
			signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
			defer signal.Stop(sigs)
			runErr := run.Start()
			if runErr == nil {
				go func() {
					for s := range sigs {
						run.Process.Signal(s)
					}
				}()
				runErr = run.Wait()
			}
			res, err := watch.End(ctx, eng, c)
			if err != nil {
				return err
			}
			if len(res.Events) > 0 {
				fmt.Fprintf(os.Stderr, "journal: recorded %d changed file(s) of `%s` as event %s\n", res.Files, shellJoin(args), seqList(res.Events))
			}
			var ee *exec.ExitError
			if errors.As(runErr, &ee) {
				return exitCode(ee.ExitCode())
			}
			if runErr != nil {
				return fmt.Errorf("exec %s: %w", args[0], runErr)
			}
			return nil
		},
	}
	cmd.Flags().SetInterspersed(false)
	return cmd
}

// exitCode makes journal exit with a command's status, saying nothing.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// shellJoin quotes args as a POSIX shell would read them back.
func shellJoin(args []string) string {
	var out []string
	for _, s := range args {
		if s != "" && strings.IndexFunc(s, func(r rune) bool {
			return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ':' || r == ',' || r == '+' || r == '@' ||
				r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) < 0 {
			out = append(out, s)
			continue
		}
		out = append(out, "'"+strings.ReplaceAll(s, "'", `'\''`)+"'")
	}
	return strings.Join(out, " ")
}
