package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/spf13/cobra"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/term"

	"github.com/journalfs/journal/cmd/journal/web"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote"
	jmcp "github.com/journalfs/journal/mcp"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/replay/lsp"
)

func init() { extraCommands = append(extraCommands, newServeCmd) }

// version, when set at build time with -ldflags "-X main.version=...",
// overrides the build info's (journal.BuildVersion).
var version = ""

// binVersion is the version this binary reports.
func binVersion() string {
	if version != "" {
		return version
	}
	return journal.BuildVersion()
}

func newServeCmd() *cobra.Command {
	var (
		toolsets string
		preset   string
		readOnly bool
		syncAll  bool
		httpAddr string
		withWeb  bool
		token    string
		replicas []string
		useLSP   bool
		servers  []string
		lspFile  string
		lspWait  time.Duration
		share    bool
		watching bool
		cpKey    string
		cpEvery  string
		live     liveFlags
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the MCP server (stdio by default, Streamable HTTP with --http)",
		Long: `Run the MCP server over stdio (the default) or Streamable HTTP (--http 127.0.0.1:PORT).
Every mutating tool call becomes one journal event in <first root>/.journal/journal.db.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := jmcp.CheckPreset(preset); err != nil {
				return err
			}
			if err := live.check(); err != nil {
				return err
			}
			// checkpoints: the flags over journal checkpoint config's
			key, cpCadence, cpOn, err := checkpointSettings(cmd, cpKey, cpEvery)
			if err != nil {
				return err
			}
			var signer note.Signer
			if cpOn {
				if signer, err = loadSigner(key); err != nil {
					return err
				}
			}
			serveMemoryLimit()
			roots := flagStrings(cmd, "root")
			jp := flagString(cmd, "journal")
			if jp == "" {
				jp = os.Getenv("JOURNAL_PATH")
			}
			if len(roots) == 0 {
				r, err := serveRoot(jp)
				if err != nil {
					return err
				}
				roots = []string{r}
			}
			origin := "stdio"
			if httpAddr != "" {
				origin = "http"
			}
			// build opens the engine and everything a server runs beside it
			// (replicas, language servers); done closes them.
			build := func(session string) (srv *jmcp.Server, eng *replay.Engine, done func(), err error) {
				var closers []func()
				done = func() {
					for i := len(closers) - 1; i >= 0; i-- {
						closers[i]()
					}
				}
				defer func() {
					if err != nil {
						done()
					}
				}()
				ro := replay.Options{Roots: roots, JournalPath: jp,
					Actor:       journal.Actor{Kind: "mcp", Origin: origin, User: replay.CLIActor().User, Host: replay.CLIActor().Host},
					SpareTemps:  !readOnly, // serve edits again and again: temps from spares made outside the lock, the log file made at open
					ScanSecrets: true}      // and finds secrets in what it records, once idle
				if syncAll {
					ro.LogLimit = -1 // every batch by a bbolt intent, files fsynced before the reply
				}
				eng, err = replay.Open(ro)
				if err != nil {
					return nil, nil, done, err
				}
				opened := eng // eng, a result, is nil once an error is returned
				var cp *checkpointer
				closers = append(closers, func() {
					if cp != nil {
						cp.Pause() // no session's flush while the engine closes
					}
					opened.Close()
					if cp != nil { // after the close: the events its log held are in the journal
						cp.Stop()
					}
				})
				if signer != nil {
					cp = startCheckpointer(opened.Journal(), signer, cpCadence, opened.FlushSeal)
				}
				// continuous replication: in the background, never in an edit's way
				var rs []remote.Remote
				for _, name := range replicas {
					r, err := remote.Lookup(name)
					if err != nil {
						return nil, nil, done, remoteErr(err)
					}
					rs = append(rs, r)
				}
				if len(rs) > 0 {
					rctx, stopReplicas := context.WithCancel(context.Background())
					var wg sync.WaitGroup
					closers = append(closers, func() { stopReplicas(); wg.Wait() })
					var repo *remote.Repository // the journal's keys are a repository's paths with one root only
					if len(roots) == 1 {
						repo = gitRepository(roots[0])
					}
					for _, r := range rs {
						wg.Add(1)
						go func() {
							defer wg.Done()
							if err := remote.Replicate(rctx, r, opened.Journal(), remote.ReplicateOptions{Repository: repo}); err != nil {
								fmt.Fprintf(os.Stderr, "journal serve: replication to %s stopped: %v\n", r.Name, err)
							}
						}()
						fmt.Fprintf(os.Stderr, "journal serve: replicating to %s (%s)\n", r.Name, r.URL)
					}
				}
				// spans of the agent sessions as they are recorded: in the
				// background, never in an edit's way (a bounded queue)
				if live.url != "" {
					l, err := live.start(context.Background(), opened.Journal())
					if err != nil {
						return nil, nil, done, err
					}
					closers = append(closers, func() { opened.FlushSeal(); l.Close() })
					fmt.Fprintf(os.Stderr, "journal serve: sending the agent sessions' spans to %s\n", l.Status().URL)
				}
				var sets []string
				if toolsets != "" && toolsets != "all" {
					for _, t := range strings.Split(toolsets, ",") {
						t = strings.TrimSpace(t)
						if !contains(jmcp.AllToolsets, t) {
							return nil, nil, done, fmt.Errorf("unknown toolset %q (choose from %s)", t, strings.Join(jmcp.AllToolsets, ", "))
						}
						sets = append(sets, t)
					}
				}
				opts := jmcp.Options{Toolsets: sets, Preset: preset, ReadOnly: readOnly, Version: binVersion(), Origin: origin, LSPTimeout: lspWait, Session: session}
				if cp != nil {
					opts.SessionEnded = cp.SessionEnded
				}
				if useLSP {
					m, err := newLSP(eng, lspFile, servers)
					if err != nil {
						return nil, nil, done, err
					}
					closers = append(closers, func() { m.Close() })
					opts.LSP = m
				}
				if watching && !readOnly {
					closers = append(closers, startWatcher(eng))
				}
				return jmcp.New(eng, opts), eng, done, nil
			}
			if httpAddr == "" && share && !term.IsTerminal(int(os.Stdin.Fd())) {
				return serveShared(cmd.Context(), roots, jp, shareConfig(cmd), build)
			}
			srv, eng, done, err := build("")
			if err != nil {
				return err
			}
			defer done()
			if httpAddr != "" {
				if token == "" {
					token = os.Getenv("JOURNAL_HTTP_TOKEN")
				}
				var app http.Handler
				if withWeb {
					actor := replay.CLIActor()
					actor.Origin = "web"
					if app, err = web.New(eng, actor); err != nil {
						return err
					}
				}
				return serveHTTP(cmd.Context(), srv, httpAddr, token, app)
			}
			if term.IsTerminal(int(os.Stdin.Fd())) {
				fmt.Fprintf(os.Stderr, `journal serve: MCP server on stdio, waiting for a client (JSON-RPC on stdin).
  workspace: %s
  journal:   %s
This is meant to be started by an MCP client, for example:
  claude mcp add --scope project journal -- journal serve
or in .vscode/mcp.json: {"servers": {"journal": {"command": "journal", "args": ["serve", "--root", "${workspaceFolder}"]}}}
(journal init writes each agent's.)
Press Ctrl-D to exit.
`, eng.Roots()[0].Dir, eng.Journal().Path())
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			growPipe(os.Stdin)
			return srv.ServeStdio(ctx, os.Stdin, os.Stdout)
		},
	}
	cmd.Flags().StringVar(&toolsets, "toolsets", "all", "comma-separated toolsets to enable: "+strings.Join(jmcp.AllToolsets, ","))
	cmd.Flags().StringVar(&preset, "preset", jmcp.PresetFull, "which tools to list, on top of --toolsets and --read-only: "+strings.Join(jmcp.Presets, " or ")+" (minimal: "+strings.Join(jmcp.PresetTools(jmcp.PresetMinimal), ", ")+"; for clients that put every tool into the model's context)")
	cmd.Flags().BoolVar(&readOnly, "read-only", false, "hide every mutating tool")
	cmd.Flags().BoolVar(&syncAll, "sync-files", false, "fsync every changed file and its directory before a tool replies; by default a small edit replies once its write-ahead log record is synced, and its files are synced at the checkpoint (within 100 ms): the edit is never lost, but after a power failure the file itself may be stale until the journal is next opened")
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve Streamable HTTP on ADDR (e.g. 127.0.0.1:8765) at /mcp instead of stdio")
	cmd.Flags().BoolVar(&withWeb, "web", false, "with --http: serve the web app (journal web) at / beside /mcp (beyond loopback, behind the same --token)")
	cmd.Flags().BoolVar(&useLSP, "lsp", true, "run language servers found on PATH (gopls, pyright-langserver, typescript-language-server, rust-analyzer, clangd) for rename propagation, type diagnostics and quick fixes")
	cmd.Flags().StringArrayVar(&servers, "lsp-server", nil, "language server for a language, replacing the default: LANG=COMMAND [ARGS] (e.g. python=\"pyright-langserver --stdio\"); repeatable")
	cmd.Flags().DurationVar(&lspWait, "lsp-timeout", 15*time.Second, "bound on one consultation of the language servers; past it an edit goes on without them and says so")
	cmd.Flags().StringVar(&lspFile, "lsp-config", "", "JSON file configuring the language servers: {\"servers\": [{\"language\", \"command\", \"extensions\", \"settings\", \"init_options\"}], \"disable\": [languages], \"quiet_ms\", \"max_ms\", \"load_ms\"} (see replay/lsp/config_file.go)")
	cmd.Flags().StringArrayVar(&replicas, "replicate", nil, "replicate the journal continuously to this remote (journal remote add; repeatable)")
	cmd.Flags().BoolVar(&share, "share", true, "stdio: the first server of a workspace serves the sessions of the servers started after it with the same flags (they relay their client's messages to it over a unix socket in the journal's directory, and take over when it exits): several agents on one workspace then make more edits a second together, not fewer; --share=false serves alone")
	cmd.Flags().BoolVar(&watching, "watch", true, "record every change another process makes to the workspace (a shell command, an editor, git) as an event within about a second, as journal watch does; one watcher runs per workspace")
	cmd.Flags().StringVar(&cpKey, "checkpoint-key", "", "sign a checkpoint of the journal's Merkle tree with this signer key when serve exits (journal key generate; default: the one journal checkpoint config set, else the one key generate made)")
	cmd.Flags().StringVar(&cpEvery, "checkpoint-every", "", "also sign checkpoints in the background, never in an edit's way, each time events were sealed since the newest: "+cadenceHelp+" (default: journal checkpoint config's)")
	live.add(cmd)
	cmd.Flags().StringVar(&token, "token", "", "bearer token required on HTTP requests (or JOURNAL_HTTP_TOKEN); required when binding a non-loopback address")
	return cmd
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// flagStrings reads a (possibly inherited) repeatable string flag.
func flagStrings(cmd *cobra.Command, name string) []string {
	f := cmd.Flags().Lookup(name)
	if f == nil {
		return nil
	}
	if sv, ok := f.Value.(interface{ GetSlice() []string }); ok {
		return sv.GetSlice()
	}
	if f.Value.String() == "" {
		return nil
	}
	return []string{f.Value.String()}
}

func flagString(cmd *cobra.Command, name string) string {
	if f := cmd.Flags().Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

func isLoopback(host string) bool { return web.LoopbackHost(host) }

// guard validates Host and Origin (DNS-rebinding protection) and the bearer token.
func guard(next http.Handler, loopback bool, token string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if loopback && !isLoopback(r.Host) {
			http.Error(w, fmt.Sprintf("forbidden: Host %q is not a loopback name (DNS-rebinding protection)", r.Host), http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || (loopback && !isLoopback(u.Host)) {
				http.Error(w, fmt.Sprintf("forbidden: Origin %q is not allowed (DNS-rebinding protection)", o), http.StatusForbidden)
				return
			}
		}
		if token != "" {
			got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="journal"`)
				http.Error(w, "unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// serveHTTP serves MCP at /mcp on addr, and app (the web app, if not nil)
// at /.
func serveHTTP(ctx context.Context, srv *jmcp.Server, addr, token string, app http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", addr, err)
	}
	loopback := isLoopback(ln.Addr().String())
	if !loopback && token == "" {
		ln.Close()
		return errors.New("refusing to serve a non-loopback address without --token (or JOURNAL_HTTP_TOKEN)")
	}
	if w, ok := app.(*web.Server); ok && !loopback {
		w.Token = token // beyond loopback the app asks for the same token as /mcp
	}
	httpSrv := server.NewStreamableHTTPServer(srv.MCP(), server.WithEndpointPath("/mcp"))
	mux := http.NewServeMux()
	mux.Handle("/mcp", guard(srv.Lighten(httpSrv), loopback, token))
	if app != nil {
		mux.Handle("/", app)
		if loopback {
			fmt.Fprintf(os.Stderr, "journal serve: web app on http://%s/\n", ln.Addr())
		} else {
			fmt.Fprintf(os.Stderr, "journal serve: web app on http://%s/?token=<the --token>\n", ln.Addr())
		}
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "journal serve: MCP Streamable HTTP on http://%s/mcp\n", ln.Addr())
	if f := os.Getenv("JOURNAL_ADDR_FILE"); f != "" { // lets tests find a :0 port
		os.WriteFile(filepath.Clean(f), []byte(ln.Addr().String()), 0o644)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return hs.Shutdown(sctx)
	}
}

// newLSP builds the language-server manager for the engine's roots: the
// defaults, then the --lsp-config file, then each --lsp-server replacing its
// language's entry.
func newLSP(eng *replay.Engine, file string, specs []string) (*lsp.Manager, error) {
	cfg := lsp.DefaultConfig()
	if file != "" {
		var err error
		if cfg, err = lsp.LoadConfig(file, cfg); err != nil {
			return nil, fmt.Errorf("--lsp-config: %w", err)
		}
	}
	for _, spec := range specs {
		sc, err := lsp.ParseSpec(spec)
		if err == nil {
			cfg, err = cfg.With(sc)
		}
		if err != nil {
			return nil, fmt.Errorf("--lsp-server %q: %w", spec, err)
		}
	}
	var roots []string
	for _, r := range eng.Roots() {
		roots = append(roots, r.Dir)
	}
	return lsp.NewManager(cfg, roots), nil
}

// serveMemoryLimit is the Go runtime's soft memory limit for a server, unless
// GOMEMLIMIT sets one. A server's live heap does not grow with the
// journal's size, and what it streams is bounded by design; with the
// runtime's default pacing (GOGC=100) the heap still grows to twice the live
// heap between collections, which would put a long-running server's peak
// RSS over the 128 MiB bound. The limit makes collections come sooner near
// it; it is soft: a call that needs more memory gets it. It leaves room for
// the binary's mapped code and data and for a whole-file write held in
// memory (under replay.DefaultStreamThreshold: the new content, the old
// one, their records) under that bound. BENCHMARKS.md has the figures that
// chose it. journal watch, which runs the same watcher as a server and
// records a large tree's baseline at its first start, takes it too.
const serveMemLimit = 80 << 20

func serveMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serveMemLimit)
	}
}

// serveRoot is the workspace serve serves without --root: the one whose
// journal is found from the working directory up, as every command finds
// it (an agent that starts its stdio servers in a subdirectory of the
// project still gets the project), else the working directory itself —
// where a committed MCP entry without --root has its agent start it. With
// --journal or JOURNAL_PATH, the working directory, as before. A server
// started in / or in the home directory with no journal there is refused:
// its client (Cursor, Cline, a desktop app) starts servers there, not in
// the project, and must be given the workspace.
func serveRoot(journalPath string) (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if journalPath != "" {
		return cwd, nil
	}
	for dir := cwd; ; {
		if fi, err := os.Stat(filepath.Join(dir, journal.DirName, journal.FileName)); err == nil && fi.Mode().IsRegular() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	home, _ := os.UserHomeDir()
	if filepath.Dir(cwd) == cwd || (home != "" && sameDir(cwd, home)) {
		return "", withHint(usageError{fmt.Errorf("journal serve without --root started in %s, with no journal there or above: that is where the MCP client starts its servers, not the project", cwd)},
			`give it the workspace: "args": ["serve", "--root", "${workspaceFolder}"] (Cursor, VS Code), or --root /path/to/project in your own settings`)
	}
	return cwd, nil
}

// sameDir reports whether a and b are one directory.
func sameDir(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
