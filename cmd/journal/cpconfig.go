package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/journalfs/journal/journal"
	"github.com/spf13/cobra"
)

// checkpointConfig is this user's checkpoint settings, set once with
// `journal checkpoint config` and kept beside the remotes and the default
// key (os.UserConfigDir()/journal/checkpoint.json), never in a journal:
// the signer key `journal checkpoint` and serve use, and serve's cadence.
// Flags override it.
type checkpointConfig struct {
	Key   string `json:"key,omitempty"`   // signer key file, absolute ("": the default key)
	Every string `json:"every,omitempty"` // serve's cadence (parseCadence)
}

// configError is a configuration file that cannot be read (CONFIG_INVALID).
type configError struct{ error }

// Unwrap returns the cause.
func (e configError) Unwrap() error { return e.error }

// checkpointConfigPath is the configuration's file.
func checkpointConfigPath() (string, error) {
	d, err := keyDir()
	return filepath.Join(d, "checkpoint.json"), err
}

// loadCheckpointConfig reads the configuration; a missing file is an empty
// one. A file that does not decode, or whose cadence does not parse, is a
// configError naming it.
func loadCheckpointConfig() (checkpointConfig, error) {
	var c checkpointConfig
	p, err := checkpointConfigPath()
	if err != nil {
		return c, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, configError{fmt.Errorf("checkpoint configuration: %w", err)}
	}
	hint := "fix it with `journal checkpoint config --every ... --key ...`, or remove it with `journal checkpoint config --unset`"
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, withHint(configError{fmt.Errorf("checkpoint configuration %s: %v", p, err)}, hint)
	}
	if c.Every != "" {
		if _, err := parseCadence("every", c.Every); err != nil {
			return c, withHint(configError{fmt.Errorf("checkpoint configuration %s: %v", p, err)}, hint)
		}
	}
	return c, nil
}

// checkpointSettings resolves serve's signer key and cadence: each flag
// the user set over the configuration. on is false when neither asks for
// checkpoints (no key and no cadence anywhere, or a cadence of off).
func checkpointSettings(cmd *cobra.Command, keyFlag, everyFlag string) (key string, c cadence, on bool, err error) {
	cfg, err := loadCheckpointConfig()
	if err != nil {
		return "", c, false, err
	}
	key, every := cfg.Key, cfg.Every
	what := "every (in " + configName() + ")"
	if cmd.Flags().Changed("checkpoint-key") {
		key = keyFlag
	}
	if cmd.Flags().Changed("checkpoint-every") {
		every, what = everyFlag, "--checkpoint-every"
	}
	if every != "" {
		if c, err = parseCadence(what, every); err != nil {
			return "", c, false, err
		}
	}
	return key, c, !c.Off && (key != "" || c.signs()), nil
}

// configName is the configuration file's path for messages.
func configName() string {
	if p, err := checkpointConfigPath(); err == nil {
		return p
	}
	return "checkpoint.json"
}

func newCheckpointConfigCmd(a *app) *cobra.Command {
	var key, every string
	var unset bool
	cmd := &cobra.Command{
		Use:   "config [--every CADENCE] [--key FILE] [--unset]",
		Short: "Set once the key and cadence of checkpoints (serve's flags override them)",
		Long: `config keeps this user's checkpoint settings in os.UserConfigDir()/journal/checkpoint.json, beside the
remotes and the default key, never in a journal: --key FILE is the signer key ` + "`journal checkpoint`" + ` and
` + "`journal serve`" + ` use (default: the one ` + "`journal key generate`" + ` made); --every CADENCE is when serve signs:
` + cadenceHelp + `. With either set, every serve signs checkpoints without a flag (and always when it exits);
--checkpoint-key and --checkpoint-every override them for one serve. Without flags it prints the settings.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := checkpointConfigPath()
			if err != nil {
				return err
			}
			setting := cmd.Flags().Changed("key") || cmd.Flags().Changed("every")
			if unset {
				if setting {
					return usageError{errors.New("checkpoint config: --unset goes alone")}
				}
				if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return fmt.Errorf("checkpoint config: %w", err)
				}
				fmt.Fprintf(a.out, "removed %s: serve signs checkpoints only when its flags ask\n", p)
				return nil
			}
			var cfg checkpointConfig
			if setting {
				// a damaged file is replaced by what is given, not merged into
				cfg, _ = loadCheckpointConfig()
			} else if cfg, err = loadCheckpointConfig(); err != nil {
				return err
			}
			if cmd.Flags().Changed("every") {
				if every != "" {
					c, err := parseCadence("--every", every)
					if err != nil {
						return err
					}
					every = c.String()
				}
				cfg.Every = every
			}
			if cmd.Flags().Changed("key") {
				if key != "" {
					if key, err = filepath.Abs(key); err != nil {
						return fmt.Errorf("checkpoint config: --key: %w", err)
					}
					if _, err := loadSigner(key); err != nil {
						return err
					}
				}
				cfg.Key = key
			}
			if setting {
				b, _ := json.MarshalIndent(cfg, "", "  ")
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					return fmt.Errorf("checkpoint config: %w", err)
				}
				if err := journal.WriteFileAtomic(p, append(b, '\n'), 0o600); err != nil {
					return fmt.Errorf("checkpoint config: %w", err)
				}
			}
			k := cfg.Key
			if k == "" {
				k, _ = defaultSignerKey()
				k += " (the default)"
			}
			e := cfg.Every
			if e == "" {
				e = "not set (serve signs at exit when it has a key from --checkpoint-key or here, else not at all)"
			}
			fmt.Fprintf(a.out, "configuration: %s\nkey:   %s\nevery: %s\n", p, k, e)
			if cfg.Every != "" && cfg.Key == "" {
				if d, _ := defaultSignerKey(); d != "" {
					if _, err := os.Stat(d); errors.Is(err, fs.ErrNotExist) {
						fmt.Fprintln(a.out, "note: the default key does not exist yet: serve will refuse to start until `journal key generate` makes it (or set --key)")
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&key, "key", "", "signer key file (journal key generate's, or an OpenSSH Ed25519 private key); empty: the default key")
	cmd.Flags().StringVar(&every, "every", "", "serve's cadence: "+cadenceHelp+"; empty: unset")
	cmd.Flags().BoolVar(&unset, "unset", false, "remove the configuration")
	return cmd
}
