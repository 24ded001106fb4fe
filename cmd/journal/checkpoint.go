package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/journal/sshnote"
	"github.com/spf13/cobra"
	"golang.org/x/mod/sumdb/note"
)

// keyError is a key file that cannot be used (KEY_INVALID).
type keyError struct{ error }

// Unwrap returns the cause.
func (e keyError) Unwrap() error { return e.error }

// keyDir is where `journal key generate` puts keys by default: beside the
// remotes (os.UserConfigDir()/journal), outside every journal.
func keyDir() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", keyError{fmt.Errorf("key: no configuration directory for this user (set $XDG_CONFIG_HOME or pass a path): %w", err)}
	}
	return filepath.Join(d, "journal"), nil
}

// defaultSignerKey is the signer key file used when none is named.
func defaultSignerKey() (string, error) {
	d, err := keyDir()
	return filepath.Join(d, "checkpoint.key"), err
}

func newKeyCmd(a *app) *cobra.Command {
	var name, out string
	var force bool
	gen := &cobra.Command{
		Use:   "generate [--name NAME] [--out FILE]",
		Short: "Make a key that signs checkpoints (a signed-note Ed25519 key)",
		Long: `generate makes an Ed25519 key in the signed-note format (golang.org/x/mod/sumdb/note): the signer key
is written to FILE (default ` + "`os.UserConfigDir()/journal/checkpoint.key`" + `) with mode 0600, the verifier key to
FILE.pub. Give the verifier key to auditors: ` + "`journal verify --key FILE.pub`" + `. A key is never written into a journal.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.keyGenerate(name, out, force) },
	}
	gen.Flags().StringVar(&name, "name", "", "the key's name, shown in signatures (default: journal-HOST)")
	gen.Flags().StringVarP(&out, "out", "o", "", "the signer key file (default: the user's config dir, journal/checkpoint.key)")
	gen.Flags().BoolVar(&force, "force", false, "replace an existing key file")
	cmd := &cobra.Command{Use: "key", Short: "Keys that sign checkpoints", Args: cobra.NoArgs,
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil }}
	cmd.AddCommand(gen)
	return cmd
}

func (a *app) keyGenerate(name, out string, force bool) error {
	if name == "" {
		h, _ := os.Hostname()
		name = "journal-" + strings.Map(func(r rune) rune {
			if r <= ' ' || r == '+' || r > '~' {
				return '-'
			}
			return r
		}, h)
	}
	if out == "" {
		var err error
		if out, err = defaultSignerKey(); err != nil {
			return err
		}
	}
	if insideJournal(out) {
		return withHint(keyError{fmt.Errorf("key generate: %s is inside a journal directory (%s): keys never enter a journal", out, journal.DirName)},
			"choose a path outside the workspace's .journal, such as the default (omit --out)")
	}
	skey, vkey, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		return withHint(keyError{fmt.Errorf("key generate: %w", err)}, "a key name is printable ASCII without spaces or '+'")
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
		return fmt.Errorf("key generate: %w", err)
	}
	if !force {
		if _, err := os.Stat(out); err == nil {
			return withHint(keyError{fmt.Errorf("key generate: %s exists", out)}, "pass --force to replace it (checkpoints it signed stay verifiable with its .pub), or choose another --out")
		}
	}
	if err := journal.WriteFileAtomic(out, []byte(skey+"\n"), 0o600); err != nil {
		return fmt.Errorf("key generate: %w", err)
	}
	if err := journal.WriteFileAtomic(out+".pub", []byte(vkey+"\n"), 0o644); err != nil {
		return fmt.Errorf("key generate: %w", err)
	}
	fmt.Fprintf(a.out, "signer key:   %s (mode 0600; keep it secret, out of every journal)\nverifier key: %s.pub\n%s\n", out, out, vkey)
	return nil
}

// insideJournal reports whether path lies in a directory named .journal.
func insideJournal(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for d := filepath.Dir(abs); d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == journal.DirName {
			return true
		}
	}
	return false
}

// loadSigner reads a signer key file; "" is the default one.
func loadSigner(path string) (note.Signer, error) {
	if path == "" {
		var err error
		if path, err = defaultSignerKey(); err != nil {
			return nil, err
		}
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, withHint(keyError{fmt.Errorf("signer key %s does not exist", path)}, "make one with `journal key generate` (or name yours with --key FILE)")
	}
	if err != nil {
		return nil, keyError{fmt.Errorf("signer key: %w", err)}
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, withHint(keyError{fmt.Errorf("signer key %s is readable by others (mode %04o)", path, fi.Mode().Perm())},
			"chmod 600 "+path+" — a signing key others can read signs for them too")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, keyError{fmt.Errorf("signer key: %w", err)}
	}
	if strings.HasPrefix(string(b), "-----BEGIN OPENSSH PRIVATE KEY-----") {
		return sshSigner(path, b)
	}
	s, err := note.NewSigner(strings.TrimSpace(string(b)))
	if err != nil {
		hint := "a signer key file holds one line PRIVATE+KEY+name+hash+key, as `journal key generate` writes, or is an OpenSSH Ed25519 private key"
		return nil, withHint(keyError{fmt.Errorf("signer key %s: %w", path, err)}, hint)
	}
	return s, nil
}

// sshSigner signs with an OpenSSH Ed25519 private key, as the principal its
// FILE.pub names in its comment (the name an allowed-signers file gives).
func sshSigner(path string, priv []byte) (note.Signer, error) {
	pub, err := os.ReadFile(path + ".pub")
	if err != nil {
		return nil, withHint(keyError{fmt.Errorf("signer key %s: its public key %s.pub: %w", path, path, errors.Unwrap(err))},
			"keep the .pub beside the SSH key: its comment (user@host, or an email) is the principal checkpoints are signed as")
	}
	f := strings.Fields(string(pub))
	if len(f) < 3 {
		return nil, withHint(keyError{fmt.Errorf("signer key %s: %s.pub has no comment to sign as", path, path)},
			"add the principal (an email, as in your allowed-signers file) as the comment of the .pub's line")
	}
	s, err := sshnote.NewSigner(priv, f[2])
	if err != nil {
		return nil, withHint(keyError{fmt.Errorf("signer key %s: %w", path, err)}, "use an ssh-ed25519 key without a passphrase (ssh-keygen -t ed25519 -N '' -f FILE), or `journal key generate`")
	}
	return s, nil
}

// signCheckpoint signs a checkpoint of every sealed event with s (a batch
// in progress is completed first) and keeps it, or returns the newest when
// it already covers them all (made false). A journal with no event to sign
// fails with hint.
func (a *app) signCheckpoint(s note.Signer, hint string) (c *audit.Checkpoint, made bool, err error) {
	if err := a.view(func(*journal.Tx) error { return nil }); err != nil {
		return nil, false, err
	}
	j, err := a.journal()
	if err != nil {
		return nil, false, err
	}
	c, made, err = audit.Sign(j, s, time.Now())
	if errors.Is(err, journal.ErrState) {
		return nil, false, withHint(err, hint)
	}
	return c, made, err
}

// loadVerifiers reads verifier key files (each one line name+hash+key).
func loadVerifiers(paths []string) (note.Verifiers, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	var vs []note.Verifier
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, withHint(keyError{fmt.Errorf("--key %s: %w", p, errors.Unwrap(err))}, "name a verifier key file (the .pub `journal key generate` wrote)")
		}
		line := strings.TrimSpace(string(b))
		if strings.Contains(line, "ssh-ed25519 ") || strings.HasPrefix(line, "ssh-") {
			svs, err := sshnote.ParseAllowedSigners(b)
			if err != nil {
				return nil, withHint(keyError{fmt.Errorf("--key %s: %w", p, err)}, "an allowed-signers file (principal ssh-ed25519 KEY), or an SSH .pub whose comment is the principal")
			}
			vs = append(vs, svs...)
			continue
		}
		if strings.HasPrefix(line, "PRIVATE+KEY+") || strings.HasPrefix(line, "-----BEGIN") {
			return nil, withHint(keyError{fmt.Errorf("--key %s is a signer (private) key", p)}, "give verify the verifier key (FILE.pub); keep the signer key to yourself")
		}
		v, err := note.NewVerifier(line)
		if err != nil {
			return nil, withHint(keyError{fmt.Errorf("--key %s: %w", p, err)}, "a verifier key file holds one line name+hash+key, as `journal key generate` writes to FILE.pub")
		}
		vs = append(vs, v)
	}
	return note.VerifierList(vs...), nil
}

func newCheckpointCmd(a *app) *cobra.Command {
	var keyFile, witness string
	cmd := &cobra.Command{
		Use:   "checkpoint [--key FILE] | checkpoint --cosign FILE [CHECKPOINT]",
		Short: "Sign a checkpoint of the journal's Merkle tree now",
		Long: `checkpoint signs the root of the Merkle tree over every sealed event (a C2SP checkpoint in a signed
note: the workspace, the tree size, the root hash and the time) with the signer key (default: the one
` + "`journal key generate`" + ` made) and keeps it in the journal; every export carries it and ` + "`journal push`" + ` sends it.
A later ` + "`journal verify --key FILE.pub`" + ` then fails if any event it covers is altered, dropped, reordered or cut.
` + "`journal serve --checkpoint-every 1000,10m,session`" + ` signs every 1,000 events, 10 minutes after the newest
checkpoint, at the end of each MCP session, and when it exits; ` + "`journal checkpoint config`" + ` sets the key and the
cadence once.

--cosign FILE adds a witness's signature (FILE: its signer key) to one of the journal's checkpoints — the newest,
or CHECKPOINT: a size or a checkpoint file — once the journal's events still hash to its root; it is stored in
place and printed. ` + "`journal verify --key signer.pub --key witness.pub --quorum 2`" + ` then wants both.`,
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("cosign") {
				if cmd.Flags().Changed("key") {
					return usageError{fmt.Errorf("checkpoint: --cosign FILE signs with FILE, the witness's key: --key goes without it")}
				}
				arg := ""
				if len(args) == 1 {
					arg = args[0]
				}
				return a.cosign(witness, arg)
			}
			if len(args) > 0 {
				return withHint(usageError{fmt.Errorf("checkpoint: %q: a CHECKPOINT goes with --cosign", args[0])}, "`journal checkpoint` signs the tree as it is now; `journal checkpoint --cosign FILE CHECKPOINT` countersigns one")
			}
			if !cmd.Flags().Changed("key") {
				cfg, err := loadCheckpointConfig()
				if err != nil {
					return err
				}
				keyFile = cfg.Key
			}
			s, err := loadSigner(keyFile)
			if err != nil {
				return err
			}
			c, made, err := a.signCheckpoint(s, "make a change through the journal first: there is nothing to sign")
			if err != nil {
				return err
			}
			if !made {
				fmt.Fprintf(a.errOut, "the newest checkpoint already covers every event (%d)\n", c.Size)
			}
			_, err = a.out.Write(c.Note)
			return err
		},
	}
	cmd.Flags().StringVar(&keyFile, "key", "", "signer key `FILE`: the one `journal checkpoint config` set, else the one `journal key generate` made (default), or an OpenSSH Ed25519 private key (signed as its .pub's comment)")
	cmd.Flags().StringVar(&witness, "cosign", "", "countersign a checkpoint with this signer key (a witness's) instead of signing a new one")
	cmd.AddCommand(newCheckpointConfigCmd(a))
	return cmd
}
