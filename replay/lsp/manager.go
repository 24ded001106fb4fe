package lsp

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Manager runs language servers for workspace roots: one per (language,
// root), started on first use, kept warm, replaced on the next call after it
// died, shut down by Close. It is safe for concurrent use.
type Manager struct {
	cfg   Config
	roots []string // cleaned, absolute, longest first

	mu      sync.Mutex // guards entries and closed
	entries map[entryKey]*entry
	closed  bool
}

type entryKey struct{ lang, root string }

// entry is the client's state for one (language, root): the current server
// process and the documents it has open, which outlive a server restart.
type entry struct {
	cfg  ServerConfig
	root string

	// mu guards the fields below and is held while sending document
	// notifications (their order matters) and while starting the server.
	// Lock order: entry.mu before server.mu; Manager.mu is never held with
	// either.
	mu       sync.Mutex
	srv      *server
	docs     map[string]*doc // open documents by absolute path
	onDisk   map[string]bool // files the server was told exist
	startErr error           // why the last start failed, until one succeeds
	failedAt time.Time       // when it failed: Available says no for startBackoff after
}

// startBackoff is how long a server whose start failed is reported
// unavailable before the next call may try to start it again.
var startBackoff = 30 * time.Second

// doc is an open document.
type doc struct {
	version int32
	text    []byte
	overlay bool // text may differ from the file on disk
}

// NewManager returns a manager for files under roots. Nothing starts until a
// call needs a server.
func NewManager(cfg Config, roots []string) *Manager {
	d := DefaultConfig()
	if cfg.Quiet <= 0 {
		cfg.Quiet = d.Quiet
	}
	if cfg.Max <= 0 {
		cfg.Max = d.Max
	}
	if cfg.Load <= 0 {
		cfg.Load = d.Load
	}
	m := &Manager{cfg: cfg, entries: map[entryKey]*entry{}}
	for _, r := range roots {
		// As given, not symlink-resolved: paths are compared as strings and
		// sent to the servers as the caller spells them.
		if abs, err := filepath.Abs(r); err == nil {
			m.roots = append(m.roots, abs)
		}
	}
	sort.Slice(m.roots, func(i, j int) bool { return len(m.roots[i]) > len(m.roots[j]) })
	return m
}

// Close shuts every server down (shutdown, exit, then kill after a grace
// period). Later calls fail.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	entries := make([]*entry, 0, len(m.entries))
	for _, e := range m.entries {
		entries = append(entries, e)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range entries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.mu.Lock()
			defer e.mu.Unlock()
			if e.srv != nil {
				e.srv.shutdown()
				e.srv = nil
			}
		}()
	}
	wg.Wait()
	return nil
}

// Available reports whether a language server handles path and, if not, why:
// "disabled", "no language server for .txt", "gopls not found on PATH", or
// why its last start failed.
func (m *Manager) Available(path string) (ok bool, why string) {
	e, err := m.entry(path)
	if err != nil {
		return false, strings.TrimPrefix(strings.TrimPrefix(err.Error(), ErrNoServer.Error()), ": ")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.startErr != nil && time.Since(e.failedAt) < startBackoff {
		return false, e.startErr.Error()
	}
	return true, ""
}

// ServerInfo describes one server the manager has started.
type ServerInfo struct {
	Language string
	Root     string
	Name     string // serverInfo name and version, or the command
	PID      int
	Running  bool
}

// Servers lists the servers started so far, running or dead.
func (m *Manager) Servers() []ServerInfo {
	m.mu.Lock()
	entries := make([]*entry, 0, len(m.entries))
	for _, e := range m.entries {
		entries = append(entries, e)
	}
	m.mu.Unlock()
	var out []ServerInfo
	for _, e := range entries {
		e.mu.Lock()
		if s := e.srv; s != nil {
			out = append(out, ServerInfo{Language: e.cfg.Language, Root: e.root, Name: s.name, PID: s.cmd.Process.Pid, Running: !s.dead()})
		}
		e.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Language+out[i].Root < out[j].Language+out[j].Root })
	return out
}

// Configured describes one configured language server: its command, whether
// the binary is found (JOURNAL_LSP_PATH, then PATH), and the processes
// started for it so far.
type Configured struct {
	Language   string
	Extensions []string
	Command    []string
	Found      string // the binary's path; "" when not found
	Started    []ServerInfo
}

// Describe lists the configured servers in order, for status displays.
func (m *Manager) Describe() []Configured {
	started := m.Servers()
	var out []Configured
	for _, sc := range m.cfg.Servers {
		c := Configured{Language: sc.Language, Extensions: sc.Extensions, Command: sc.Command}
		if len(sc.Command) > 0 && !m.cfg.Disabled {
			c.Found, _ = LookPath(sc.Command[0])
		}
		for _, si := range started {
			if si.Language == sc.Language {
				c.Started = append(c.Started, si)
			}
		}
		out = append(out, c)
	}
	return out
}

// rootOf returns the root containing path ("" if none).
func (m *Manager) rootOf(path string) string {
	for _, r := range m.roots {
		if path == r || strings.HasPrefix(path, r+string(filepath.Separator)) {
			return r
		}
	}
	return ""
}

// entry finds (creating if needed) the entry for path's language and root.
// It errors with ErrNoServer when no server can handle path.
func (m *Manager) entry(path string) (*entry, error) {
	if m.cfg.Disabled {
		return nil, fmt.Errorf("%w: disabled", ErrNoServer)
	}
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("lsp: %s: not an absolute path", path)
	}
	path = filepath.Clean(path)
	root := m.rootOf(path)
	if root == "" {
		return nil, fmt.Errorf("lsp: %s: outside the workspace roots", path)
	}
	ext := filepath.Ext(path)
	var sc *ServerConfig
	for i := range m.cfg.Servers {
		if m.cfg.Servers[i].handles(ext) {
			sc = &m.cfg.Servers[i]
			break
		}
	}
	if sc == nil {
		if ext == "" {
			ext = filepath.Base(path)
		}
		return nil, fmt.Errorf("%w: no language server for %s", ErrNoServer, ext)
	}
	if len(sc.Command) == 0 {
		return nil, fmt.Errorf("%w: no command for %s", ErrNoServer, sc.Language)
	}
	if _, err := LookPath(sc.Command[0]); err != nil {
		return nil, fmt.Errorf("%w: %s not found on PATH", ErrNoServer, sc.Command[0])
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errors.New("lsp: manager closed")
	}
	k := entryKey{sc.Language, root}
	e := m.entries[k]
	if e == nil {
		e = &entry{cfg: *sc, root: root, docs: map[string]*doc{}, onDisk: map[string]bool{}}
		m.entries[k] = e
	}
	return e, nil
}

// running returns the entries whose server is up, for one root ("" = all).
func (m *Manager) running(root string) []*entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*entry
	for k, e := range m.entries {
		if root == "" || k.root == root {
			out = append(out, e)
		}
	}
	return out
}
