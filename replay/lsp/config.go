package lsp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Config says which language servers a Manager runs and how long it waits for
// their diagnostics to settle.
type Config struct {
	// Servers lists the servers to use, first match by extension wins.
	Servers []ServerConfig
	// Quiet is the settle window: diagnostics count as settled when no
	// publishDiagnostics arrived for this long (default 300ms).
	Quiet time.Duration
	// Max bounds one settle wait after the server's initial load (default 5s).
	Max time.Duration
	// Load bounds the wait for a server's initial workspace load (default 60s).
	Load time.Duration
	// Disabled turns every server off: Available says "disabled".
	Disabled bool
}

// ServerConfig describes one language server.
type ServerConfig struct {
	// Language names the server's language: "go", "python", "typescript", "rust", "c".
	Language string
	// Extensions are the file extensions it handles, with the dot (".go").
	Extensions []string
	// Command is the argv that starts it speaking LSP on stdin/stdout.
	Command []string
	// LanguageIDs maps an extension to the LSP languageId sent in didOpen;
	// an extension missing here gets Language.
	LanguageIDs map[string]string
	// Settings answers workspace/configuration (looked up by dotted section
	// in its JSON form) and is sent once in workspace/didChangeConfiguration.
	Settings any
	// InitOptions is sent as initializationOptions.
	InitOptions any
}

// LanguageID returns the LSP languageId for a file extension.
func (sc ServerConfig) LanguageID(ext string) string {
	if id, ok := sc.LanguageIDs[ext]; ok {
		return id
	}
	return sc.Language
}

func (sc ServerConfig) handles(ext string) bool {
	for _, e := range sc.Extensions {
		if e == ext {
			return true
		}
	}
	return false
}

// DefaultConfig lists gopls, pyright-langserver, typescript-language-server,
// rust-analyzer and clangd; each is used only if its binary is found (see
// LookPath) when a file of its language is first asked about.
func DefaultConfig() Config {
	return Config{
		Quiet: 300 * time.Millisecond,
		Max:   5 * time.Second,
		Load:  60 * time.Second,
		Servers: []ServerConfig{
			{
				Language:   "go",
				Extensions: []string{".go"},
				Command:    []string{"gopls"},
				Settings:   map[string]any{"gopls": goplsSettings()},
				// gopls reads its settings from initializationOptions too.
				InitOptions: goplsSettings(),
			},
			{
				Language:   "python",
				Extensions: []string{".py", ".pyi"},
				Command:    []string{"pyright-langserver", "--stdio"},
				Settings: map[string]any{
					"python": map[string]any{"analysis": map[string]any{
						"diagnosticMode":         "workspace",
						"autoSearchPaths":        true,
						"useLibraryCodeForTypes": true,
					}},
				},
			},
			{
				Language:   "typescript",
				Extensions: []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"},
				Command:    []string{"typescript-language-server", "--stdio"},
				LanguageIDs: map[string]string{
					".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
					".tsx": "typescriptreact", ".jsx": "javascriptreact",
					".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
				},
				// With the default ("auto"), rename and references sent while
				// the project loads go to the syntax server, which answers
				// from the open file alone. "never" makes them wait for the
				// project.
				InitOptions: map[string]any{"tsserver": map[string]any{"useSyntaxServer": "never"}},
			},
			{
				Language:   "rust",
				Extensions: []string{".rs"},
				Command:    []string{"rust-analyzer"},
			},
			{
				Language:   "c",
				Extensions: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh"},
				Command:    []string{"clangd"},
				LanguageIDs: map[string]string{
					".c": "c", ".h": "c",
					".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
				},
			},
		},
	}
}

func goplsSettings() map[string]any {
	return map[string]any{
		// Publish the diagnostics of dependent packages soon after a change
		// instead of after gopls's default one-second delay.
		"diagnosticsDelay": "100ms",
		// Report every diagnostics pass as $/progress (gopls's own tests do),
		// so that settling waits for the pass over dependent packages
		// instead of guessing with the quiet window.
		"verboseWorkDoneProgress": true,
	}
}

// ParseSpec parses a command-line server spec "LANG=COMMAND [ARGS...]", for
// example "go=gopls" or "python=pyright-langserver --stdio". A language known
// to DefaultConfig keeps its extensions, languageIds and settings; another
// needs its extensions after a colon: "zig:.zig,.zon=zls".
func ParseSpec(spec string) (ServerConfig, error) {
	lhs, cmd, ok := strings.Cut(spec, "=")
	if !ok || strings.TrimSpace(lhs) == "" {
		return ServerConfig{}, fmt.Errorf("lsp: server spec %q: want LANG=COMMAND", spec)
	}
	argv := strings.Fields(cmd)
	if len(argv) == 0 {
		return ServerConfig{}, fmt.Errorf("lsp: server spec %q: empty command", spec)
	}
	lang, exts, hasExts := strings.Cut(strings.TrimSpace(lhs), ":")
	sc := ServerConfig{Language: lang}
	for _, d := range DefaultConfig().Servers {
		if d.Language == lang {
			sc = d
		}
	}
	sc.Command = argv
	if hasExts {
		sc.Extensions = nil
		for _, e := range strings.Split(exts, ",") {
			e = strings.TrimSpace(e)
			if e == "" {
				continue
			}
			if !strings.HasPrefix(e, ".") {
				e = "." + e
			}
			sc.Extensions = append(sc.Extensions, e)
		}
	}
	if len(sc.Extensions) == 0 {
		return ServerConfig{}, fmt.Errorf("lsp: server spec %q: unknown language %q needs extensions (LANG:.ext,.ext=COMMAND)", spec, lang)
	}
	return sc, nil
}

// PathEnv names the environment variable whose directories (a PATH-style
// list) are searched for server binaries before PATH.
const PathEnv = "JOURNAL_LSP_PATH"

// LookPath finds a server binary: a name with a slash is used as is,
// otherwise the directories of JOURNAL_LSP_PATH are searched, then PATH.
func LookPath(name string) (string, error) {
	if strings.ContainsRune(name, os.PathSeparator) {
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(os.Getenv(PathEnv)) {
		if dir == "" {
			continue
		}
		if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return p, nil
		}
	}
	return exec.LookPath(name)
}
