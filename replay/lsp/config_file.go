package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"
)

// With returns c with sc as its language's server: it replaces the server of
// sc.Language (keeping that server's extensions and languageIds when sc gives
// none), or is added after the others. A new language needs extensions.
func (c Config) With(sc ServerConfig) (Config, error) {
	if sc.Language == "" || len(sc.Command) == 0 {
		return c, fmt.Errorf("lsp: a server needs a language and a command")
	}
	out := c
	out.Servers = slices.Clone(c.Servers)
	for i, old := range out.Servers {
		if old.Language != sc.Language {
			continue
		}
		if len(sc.Extensions) == 0 {
			sc.Extensions = old.Extensions
		}
		if sc.LanguageIDs == nil {
			sc.LanguageIDs = old.LanguageIDs
		}
		out.Servers[i] = sc
		return out, nil
	}
	if len(sc.Extensions) == 0 {
		return c, fmt.Errorf("lsp: language %q is not a default one: give its extensions", sc.Language)
	}
	out.Servers = append(out.Servers, sc)
	return out, nil
}

// fileConfig is the JSON form of a configuration file (journal serve
// --lsp-config FILE):
//
//	{
//	  "servers": [
//	    {"language": "python", "command": ["basedpyright-langserver", "--stdio"]},
//	    {"language": "zig", "extensions": [".zig"], "command": ["zls"]}
//	  ],
//	  "disable": ["c"],
//	  "quiet_ms": 300, "max_ms": 5000, "load_ms": 60000
//	}
//
// Each server replaces its language's default (Config.With); "settings" and
// "init_options" are passed through as JSON.
type fileConfig struct {
	Servers []struct {
		Language    string            `json:"language"`
		Extensions  []string          `json:"extensions"`
		Command     []string          `json:"command"`
		LanguageIDs map[string]string `json:"language_ids"`
		Settings    any               `json:"settings"`
		InitOptions any               `json:"init_options"`
	} `json:"servers"`
	Disable []string `json:"disable"`
	QuietMs int      `json:"quiet_ms"`
	MaxMs   int      `json:"max_ms"`
	LoadMs  int      `json:"load_ms"`
}

// LoadConfig applies the configuration file at path to base (see fileConfig
// for the format). Unknown fields are an error, so a typo is not ignored.
func LoadConfig(path string, base Config) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return base, fmt.Errorf("lsp: config: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var fc fileConfig
	if err := dec.Decode(&fc); err != nil {
		return base, fmt.Errorf("lsp: config %s: %w", path, err)
	}
	c := base
	for i, s := range fc.Servers {
		sc := ServerConfig{Language: s.Language, Extensions: s.Extensions, Command: s.Command,
			LanguageIDs: s.LanguageIDs, Settings: s.Settings, InitOptions: s.InitOptions}
		if c, err = c.With(sc); err != nil {
			return base, fmt.Errorf("lsp: config %s: servers[%d]: %w", path, i, err)
		}
	}
	for _, lang := range fc.Disable {
		n := len(c.Servers)
		c.Servers = slices.DeleteFunc(slices.Clone(c.Servers), func(sc ServerConfig) bool { return sc.Language == lang })
		if len(c.Servers) == n {
			return base, fmt.Errorf("lsp: config %s: disable: no server for language %q", path, lang)
		}
	}
	for _, d := range []struct {
		ms  int
		dst *time.Duration
	}{{fc.QuietMs, &c.Quiet}, {fc.MaxMs, &c.Max}, {fc.LoadMs, &c.Load}} {
		if d.ms < 0 {
			return base, fmt.Errorf("lsp: config %s: a negative duration", path)
		}
		if d.ms > 0 {
			*d.dst = time.Duration(d.ms) * time.Millisecond
		}
	}
	return c, nil
}
