package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// trace logs every message from the servers to stderr (JOURNAL_LSP_TRACE=1).
var trace = os.Getenv("JOURNAL_LSP_TRACE") == "1"

// requestTimeout bounds a request whose context has no deadline.
const requestTimeout = 30 * time.Second

// server is one running language-server process for one (language, root).
// It never restarts itself: the Manager replaces a dead server.
type server struct {
	cfg     ServerConfig
	root    string
	cmd     *exec.Cmd
	conn    jsonrpc2.Conn
	stdin   io.Closer
	stderr  *ring
	exited  chan struct{} // closed once the process has exited
	caps    serverCaps
	enc     encoding
	name    string    // serverInfo name and version, or the command
	started time.Time // when the process started

	execMu sync.Mutex // one workspace/executeCommand at a time: captures must not mix

	// mu guards everything below; it is never held while writing to the
	// connection or waiting.
	mu          sync.Mutex
	diags       map[string][]protocol.Diagnostic // latest publishDiagnostics by absolute path
	lastChange  time.Time                        // last document or file change sent
	lastPublish time.Time                        // last publishDiagnostics received
	pending     map[string]int32                 // open documents changed since their last publishDiagnostics: the version awaited
	everPubd    bool                             // a publishDiagnostics arrived: the initial load is over
	created     bool                             // files were created or deleted since the last settle
	progress    map[string]time.Time             // $/progress tokens created or begun, not ended: when
	wake        chan struct{}                    // closed and replaced on every event above
	capture     *[]json.RawMessage               // workspace/applyEdit params captured during executeCommand
	waitErr     error                            // the process's exit status, set before exited closes
}

// serverCaps is the part of the server's capabilities the client uses.
type serverCaps struct {
	PositionEncoding   string          `json:"positionEncoding"`
	TextDocumentSync   json.RawMessage `json:"textDocumentSync"`
	RenameProvider     json.RawMessage `json:"renameProvider"`
	ReferencesProvider json.RawMessage `json:"referencesProvider"`
	CodeActionProvider json.RawMessage `json:"codeActionProvider"`
	ExecuteCommand     *struct {
		Commands []string `json:"commands"`
	} `json:"executeCommandProvider"`
}

// provides reports whether a capability is present and not false.
func provides(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "false" && string(raw) != "null"
}

// option reports whether a capability object has a true boolean field.
func option(raw json.RawMessage, field string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	return string(m[field]) == "true"
}

// wantsSave reports whether the server asked for didSave, and with text.
func (c serverCaps) wantsSave() (save, includeText bool) {
	var sync struct {
		Save json.RawMessage `json:"save"`
	}
	if json.Unmarshal(c.TextDocumentSync, &sync) != nil || !provides(sync.Save) {
		return false, false
	}
	return true, option(sync.Save, "includeText")
}

// pipes joins the server's stdout and stdin into one stream.
type pipes struct {
	io.Reader
	io.WriteCloser
}

// startServer starts the server process and initializes it.
func startServer(ctx context.Context, cfg ServerConfig, root string) (*server, error) {
	bin, err := LookPath(cfg.Command[0])
	if err != nil {
		return nil, fmt.Errorf("%w: %s not found on PATH", ErrNoServer, cfg.Command[0])
	}
	s := &server{
		cfg:      cfg,
		root:     root,
		stderr:   newRing(16 << 10),
		exited:   make(chan struct{}),
		diags:    map[string][]protocol.Diagnostic{},
		progress: map[string]time.Time{},
		pending:  map[string]int32{},
		wake:     make(chan struct{}),
		enc:      utf16,
		name:     cfg.Command[0],
	}
	// Our own pipes, not cmd.StdoutPipe: Wait must not close the reading
	// end under the connection.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("lsp: start %s: %w", cfg.Command[0], err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("lsp: start %s: %w", cfg.Command[0], err)
	}
	s.cmd = exec.Command(bin, cfg.Command[1:]...)
	s.cmd.Dir = root
	s.cmd.Stdin, s.cmd.Stdout, s.cmd.Stderr = inR, outW, s.stderr
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Close kills helpers (tsserver) too
	s.started = time.Now()
	err = s.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("lsp: start %s: %w", cfg.Command[0], err)
	}
	go func() {
		err := s.cmd.Wait()
		s.mu.Lock()
		s.waitErr = err
		s.mu.Unlock()
		close(s.exited)
		inW.Close()
		outR.Close()
	}()
	s.stdin = inW
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(pipes{outR, inW}))
	s.conn.Go(context.Background(), s.handle)

	if err := s.initialize(ctx); err != nil {
		s.kill()
		return nil, fmt.Errorf("lsp: start %s in %s: %w", cfg.Command[0], root, err)
	}
	return s, nil
}

func (s *server) initialize(ctx context.Context) error {
	folder := uri.File(s.root)
	params := map[string]any{
		"processId":        os.Getpid(),
		"clientInfo":       map[string]any{"name": "journal"},
		"rootUri":          folder,
		"rootPath":         s.root,
		"workspaceFolders": []any{map[string]any{"uri": folder, "name": filepath.Base(s.root)}},
		"capabilities":     clientCapabilities(),
		"trace":            "off",
	}
	if s.cfg.InitOptions != nil {
		params["initializationOptions"] = s.cfg.InitOptions
	}
	var res struct {
		Capabilities serverCaps `json:"capabilities"`
		ServerInfo   *struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	var raw json.RawMessage
	if err := s.call(ctx, "initialize", params, &raw); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("initialize result: %w", err)
	}
	s.caps = res.Capabilities
	switch encoding(res.Capabilities.PositionEncoding) {
	case utf8e:
		s.enc = utf8e
	case utf32:
		s.enc = utf32
	}
	if res.ServerInfo != nil && res.ServerInfo.Name != "" {
		s.name = res.ServerInfo.Name + " " + res.ServerInfo.Version
	}
	if err := s.notify(ctx, "initialized", map[string]any{}); err != nil {
		return err
	}
	s.changed("", 0) // the initial load starts now
	if s.cfg.Settings != nil {
		if err := s.notify(ctx, "workspace/didChangeConfiguration", map[string]any{"settings": s.cfg.Settings}); err != nil {
			return err
		}
	}
	return nil
}

// resolveEdits declares codeAction resolveSupport for "edit"; tests turn it
// off to make gopls send command-only actions.
var resolveEdits = true

// clientCapabilities is what this client declares in initialize.
func clientCapabilities() map[string]any {
	codeAction := map[string]any{
		"dynamicRegistration": true,
		"isPreferredSupport":  true,
		"disabledSupport":     true,
		"dataSupport":         true,
		"codeActionLiteralSupport": map[string]any{"codeActionKind": map[string]any{"valueSet": []string{
			"", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite",
			"source", "source.organizeImports", "source.fixAll",
		}}},
	}
	if resolveEdits {
		codeAction["resolveSupport"] = map[string]any{"properties": []string{"edit"}}
	}
	return map[string]any{
		"general": map[string]any{"positionEncodings": []string{"utf-16"}},
		"workspace": map[string]any{
			"applyEdit":              true,
			"workspaceEdit":          map[string]any{"documentChanges": true, "resourceOperations": []string{}, "failureHandling": "abort"},
			"configuration":          true,
			"workspaceFolders":       true,
			"didChangeConfiguration": map[string]any{"dynamicRegistration": true},
			"didChangeWatchedFiles":  map[string]any{"dynamicRegistration": true, "relativePatternSupport": true},
			"executeCommand":         map[string]any{"dynamicRegistration": true},
		},
		"textDocument": map[string]any{
			"synchronization":    map[string]any{"dynamicRegistration": true, "didSave": true},
			"publishDiagnostics": map[string]any{"relatedInformation": true, "versionSupport": true, "codeDescriptionSupport": true, "dataSupport": true},
			"rename":             map[string]any{"dynamicRegistration": true, "prepareSupport": true},
			"references":         map[string]any{"dynamicRegistration": true},
			"codeAction":         codeAction,
		},
		"window": map[string]any{"workDoneProgress": true, "showMessage": map[string]any{}},
	}
}

// dead reports whether the process has exited or the connection failed.
func (s *server) dead() bool {
	select {
	case <-s.exited:
		return true
	case <-s.conn.Done():
		return true
	default:
		return false
	}
}

// exitError describes how the server died, with the tail of its stderr.
func (s *server) exitError() error {
	s.mu.Lock()
	werr := s.waitErr
	s.mu.Unlock()
	msg := fmt.Sprintf("%s (pid %d)", s.cfg.Command[0], s.cmd.Process.Pid)
	if werr != nil {
		msg += ": " + werr.Error()
	}
	if t := s.stderr.tail(5); t != "" {
		msg += "; stderr: " + t
	}
	return fmt.Errorf("%w: %s", ErrServerExited, msg)
}

// call sends a request and decodes its result. It gives up when ctx ends
// (sending $/cancelRequest), after requestTimeout if ctx has no deadline, or
// when the server dies.
func (s *server) call(ctx context.Context, method string, params, result any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, requestTimeout)
		defer cancel()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	diedc := make(chan struct{})
	go func() {
		select {
		case <-s.exited:
		case <-s.conn.Done():
		case <-ctx.Done():
			return
		}
		close(diedc)
		cancel()
	}()
	if trace {
		fmt.Fprintf(os.Stderr, "lsp trace %s %s -> %s (call)\n", time.Now().Format("15:04:05.000"), s.cfg.Language, method)
		defer func() {
			fmt.Fprintf(os.Stderr, "lsp trace %s %s <- %s (result)\n", time.Now().Format("15:04:05.000"), s.cfg.Language, method)
		}()
	}
	id, err := s.conn.Call(ctx, method, params, result)
	if err == nil {
		return nil
	}
	select {
	case <-diedc:
		return fmt.Errorf("%s: %w", method, s.exitError())
	default:
	}
	if ctx.Err() != nil {
		// Best effort: the server may stop working on it.
		nctx, ncancel := context.WithTimeout(context.Background(), time.Second)
		_ = s.conn.Notify(nctx, "$/cancelRequest", map[string]any{"id": id})
		ncancel()
	}
	return fmt.Errorf("%s: %w", method, err)
}

// notify sends a notification.
func (s *server) notify(ctx context.Context, method string, params any) error {
	if trace {
		fmt.Fprintf(os.Stderr, "lsp trace %s %s -> %s\n", time.Now().Format("15:04:05.000"), s.cfg.Language, method)
	}
	if s.dead() {
		return fmt.Errorf("%s: %w", method, s.exitError())
	}
	if err := s.conn.Notify(ctx, method, params); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// shutdown asks the server to exit, then kills what is left.
func (s *server) shutdown() {
	if !s.dead() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if s.call(ctx, "shutdown", nil, nil) == nil {
			_ = s.conn.Notify(ctx, "exit", nil)
		}
		cancel()
		s.stdin.Close()
		select {
		case <-s.exited:
		case <-time.After(2 * time.Second):
		}
	}
	s.kill()
}

// kill ends the process group and waits for the process.
func (s *server) kill() {
	if s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	s.conn.Close()
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
	}
}

// pathURI and uriPath convert between absolute paths and file URIs.
func pathURI(path string) protocol.DocumentURI { return uri.File(path) }

func uriPath(u string) (string, error) {
	p, err := uri.Parse(u)
	if err != nil {
		return "", fmt.Errorf("lsp: uri %q: %w", u, err)
	}
	if len(u) < 7 || u[:7] != "file://" {
		return "", fmt.Errorf("lsp: uri %q: not a file", u)
	}
	return filepath.Clean(p.Filename()), nil
}
