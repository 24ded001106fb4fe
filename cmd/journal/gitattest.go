package main

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/crypto/ssh"
	"golang.org/x/mod/sumdb/note"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/journal/sshnote"
	"github.com/journalfs/journal/replay/gitai"
)

func init() { gitCommands = append(gitCommands, newGitAttestCmd) }

func newGitAttestCmd(a *app) *cobra.Command {
	var keyFile, out, verify string
	var toNote bool
	cmd := &cobra.Command{
		Use:   "attest [REV] [--key FILE] [--out FILE | --note] | attest --verify FILE|REV [--key FILE.pub]",
		Short: "Sign an in-toto attestation of who wrote each line a commit adds (DSSE, the checkpoint key); or verify one",
		Long: `attest writes an in-toto Statement v1 about commit REV (default HEAD) — subject the commit (digest
gitCommit), predicate ` + gitai.PredicateType + ` — naming, per file, the
lines the commit adds by agent (session, model, prompt id), by person and untracked, as ` + "`journal git note`" + `
attributes them, with the journal events that prove them and the signed checkpoint whose tree holds those
events (the newest, or one signed now when it does not cover them). It is signed with the checkpoint key
(--key, else the one ` + "`journal checkpoint config`" + ` set, else ` + "`journal key generate`" + `'s) as a DSSE envelope
(payloadType ` + gitai.PayloadType + `, Ed25519 over PAE), printed, written to --out FILE, or, with --note,
attached as a git note under ` + gitai.AttestRef + ` (push it with ` + "`git push REMOTE " + gitai.AttestRef + "`" + `).
Secrets in what it copies from the journal are masked.

--verify FILE|REV checks an envelope (a file, or REV's note under ` + gitai.AttestRef + `): its signature by --key FILE.pub
(default: the signer key's .pub), that its subject is the commit (REV's when a REV is given, one of this
repository's), that its checkpoint is signed by that key and still matches the journal's events, that every
event it names is in that checkpoint, and that every line figure is what the journal proves now. Whatever
differs is named (ATTESTATION_INVALID).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			verifying := cmd.Flags().Changed("verify")
			if verifying && (len(args) > 0 || out != "" || toNote) {
				return usageError{fmt.Errorf("git attest --verify FILE|REV checks one attestation: it takes no REV, --out or --note")}
			}
			if out != "" && toNote {
				return usageError{fmt.Errorf("git attest: --out FILE or --note, not both")}
			}
			r, err := openRepo(ctx)
			if err != nil {
				return err
			}
			defer r.Close()
			if verifying {
				return a.gitAttestVerify(ctx, r, verify, keyFile)
			}
			rev := "HEAD"
			if len(args) == 1 {
				rev = args[0]
			}
			return a.gitAttest(ctx, r, rev, keyFile, out, toNote)
		},
	}
	cmd.Flags().StringVar(&keyFile, "key", "", "signer key `FILE` (attest), verifier key FILE.pub (--verify); default: the checkpoint key")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the envelope to `FILE` instead of printing it")
	cmd.Flags().BoolVar(&toNote, "note", false, "attach the envelope as a git note under "+gitai.AttestRef)
	cmd.Flags().StringVar(&verify, "verify", "", "verify the attestation in `FILE`, or REV's note under "+gitai.AttestRef)
	return cmd
}

// attestMask masks the secrets in a string the attestation copies from the
// journal (a path, a model, an id): always, since the record leaves the
// machine.
func attestMask(s string) string {
	return audit.Masking{}.Lines("", []string{s})[0]
}

// gitAttest signs REV's attestation and prints it, writes it to out, or
// attaches it as a note.
func (a *app) gitAttest(ctx context.Context, r *gitai.Repo, rev, keyFile, out string, toNote bool) error {
	if keyFile == "" {
		cfg, err := loadCheckpointConfig()
		if err != nil {
			return err
		}
		keyFile = cfg.Key
	}
	s, priv, own, err := attestSigner(keyFile)
	if err != nil {
		return err
	}
	if out != "" { // gitJournal moves to the repository's top
		if out, err = filepath.Abs(out); err != nil {
			return fmt.Errorf("git attest: --out: %w", err)
		}
	}
	commit, err := attestCommit(ctx, r, rev)
	if err != nil {
		return err
	}
	j, err := a.gitJournal(r)
	if err != nil {
		return err
	}
	n, ev, err := gitai.ComputeEvidence(ctx, r, *j, commit)
	if err != nil {
		return err
	}
	c, made, err := a.signCheckpoint(s, "the journal has no event to sign: nothing it holds proves a line")
	if err != nil {
		return err
	}
	if _, err := audit.OpenCheckpoint(c.Note, note.VerifierList(own)); err != nil {
		return withHint(fmt.Errorf("git attest: the newest checkpoint (%d events) is signed by %s, not by the attestation's key %s: %w", c.Size, strings.Join(c.Signers, ", "), s.Name(), audit.ErrCheckpoint),
			"attest with that key (--key), or countersign the checkpoint with this one (`journal checkpoint --cosign FILE`)")
	}
	var st *gitai.Statement
	err = a.view(func(tx *journal.Tx) error {
		cp := attestedCheckpoint(tx, c)
		st = gitai.NewStatement(commit, "journal "+binVersion(), tx.Workspace(), n, ev, cp, attestMask)
		for _, e := range st.Events() {
			if e > cp.LastEvent {
				return withHint(fmt.Errorf("git attest: event %d is not in the checkpoint (events %d–%d): it is not sealed yet: %w", e, cp.FirstEvent, cp.LastEvent, journal.ErrState),
					"a server is still writing it: attest again in a moment")
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// keyid: the key's SSH SHA-256 fingerprint, what DSSE's Go library
	// (go-securesystemslib) computes for a verifier given no keyid
	pk, err := ssh.NewPublicKey(priv.Public())
	if err != nil {
		return err
	}
	env, err := gitai.SignStatement(st, priv, ssh.FingerprintSHA256(pk))
	if err != nil {
		return err
	}
	where := "printed"
	switch {
	case toNote:
		if _, err := gitai.WriteAttestation(ctx, r, commit, env); err != nil {
			return err
		}
		where = "attached as the note of " + commit[:12] + " under " + gitai.AttestRef
	case out != "":
		if err := journal.WriteFileAtomic(out, env, 0o644); err != nil {
			return fmt.Errorf("git attest: %w", err)
		}
		where = "written to " + out
	default:
		if _, err := a.out.Write(env); err != nil {
			return err
		}
	}
	signed := "the newest checkpoint"
	if made {
		signed = "a checkpoint signed now"
	}
	t := st.Predicate.Totals
	fmt.Fprintf(a.errOut, "attested %s: %d files, %d lines added (agent %d, person %d, untracked %d); %s of %d events, key %s; %s\n",
		commit[:12], len(st.Predicate.Files), t.Added, t.Agent, t.Human, t.Untracked, signed, c.Size, s.Name(), where)
	return nil
}

// attestCommit resolves rev to one commit.
func attestCommit(ctx context.Context, r *gitai.Repo, rev string) (string, error) {
	c, ok, err := r.RevParse(ctx, rev+"^{commit}")
	if err != nil {
		return "", err
	}
	if !ok {
		return "", withHint(usageError{fmt.Errorf("git attest: %q names no commit of this repository", rev)},
			"name one commit (a hash, a branch, HEAD~2)")
	}
	return c, nil
}

// attestedCheckpoint is checkpoint c as an attestation names it.
func attestedCheckpoint(tx *journal.Tx, c *audit.Checkpoint) gitai.AttestedCheckpoint {
	base := audit.TreeBase(tx)
	return gitai.AttestedCheckpoint{Size: c.Size, FirstEvent: base + 1, LastEvent: base + uint64(c.Size),
		Root: base64.StdEncoding.EncodeToString(c.Root[:]), Time: c.Time.UTC().Format(time.RFC3339Nano), Note: string(c.Note)}
}

// attestSigner loads the checkpoint key (loadSigner's checks), its
// Ed25519 private key, which signs the envelope's PAE directly, and the
// note verifier of its checkpoints: a signed-note key (`journal key
// generate`) or an OpenSSH Ed25519 key.
func attestSigner(path string) (note.Signer, ed25519.PrivateKey, note.Verifier, error) {
	if path == "" {
		var err error
		if path, err = defaultSignerKey(); err != nil {
			return nil, nil, nil, err
		}
	}
	s, err := loadSigner(path)
	if err != nil {
		return nil, nil, nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, keyError{fmt.Errorf("signer key: %w", err)}
	}
	var priv ed25519.PrivateKey
	if strings.HasPrefix(string(b), "-----BEGIN OPENSSH PRIVATE KEY-----") {
		k, err := ssh.ParseRawPrivateKey(b)
		p, ok := k.(*ed25519.PrivateKey)
		if err != nil || !ok {
			return nil, nil, nil, keyError{fmt.Errorf("signer key %s: not an Ed25519 key", path)}
		}
		priv = *p
		pub, err := ssh.NewPublicKey(priv.Public())
		if err != nil {
			return nil, nil, nil, keyError{fmt.Errorf("signer key %s: %w", path, err)}
		}
		v, err := sshnote.NewVerifier(s.Name(), pub)
		if err != nil {
			return nil, nil, nil, keyError{fmt.Errorf("signer key %s: %w", path, err)}
		}
		return s, priv, v, nil
	}
	// PRIVATE+KEY+<name>+<hash>+<base64(1 || seed)>, as note.NewSigner read it
	f := strings.SplitN(strings.TrimSpace(string(b)), "+", 5) // base64 holds '+' too
	raw, err := base64.StdEncoding.DecodeString(f[len(f)-1])
	if err != nil || len(raw) != 1+ed25519.SeedSize || raw[0] != 1 {
		return nil, nil, nil, keyError{fmt.Errorf("signer key %s: not an Ed25519 signed-note key", path)}
	}
	priv = ed25519.NewKeyFromSeed(raw[1:])
	v, err := note.NewVerifier(fmt.Sprintf("%s+%08x+%s", s.Name(), s.KeyHash(), base64.StdEncoding.EncodeToString(append([]byte{1}, priv.Public().(ed25519.PublicKey)...))))
	if err != nil {
		return nil, nil, nil, keyError{fmt.Errorf("signer key %s: %w", path, err)}
	}
	return s, priv, v, nil
}

// attestPublicKeys reads the verifier keys of --verify: signed-note .pub
// files (`journal key generate`), SSH .pub or allowed-signers files.
func attestPublicKeys(paths []string) ([]gitai.PublicKey, note.Verifiers, error) {
	vs, err := loadVerifiers(paths)
	if err != nil {
		return nil, nil, err
	}
	var keys []gitai.PublicKey
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if f := strings.Fields(line); len(f) > 1 || strings.HasPrefix(line, "ssh-") {
				for i, w := range f {
					if w != ssh.KeyAlgoED25519 || i+1 >= len(f) {
						continue
					}
					if pk, _, _, _, err := ssh.ParseAuthorizedKey([]byte(w + " " + f[i+1])); err == nil {
						if cp, ok := pk.(ssh.CryptoPublicKey); ok {
							if ed, ok := cp.CryptoPublicKey().(ed25519.PublicKey); ok {
								name := f[0] // an allowed-signers line's principal, a .pub's comment
								if i == 0 && len(f) > 2 {
									name = f[2]
								}
								keys = append(keys, gitai.PublicKey{Name: name, Key: ed})
							}
						}
					}
				}
				continue
			}
			f := strings.SplitN(line, "+", 3) // <name>+<hash>+<base64(1 || key)>
			raw, err := base64.StdEncoding.DecodeString(f[len(f)-1])
			if err == nil && len(raw) == 1+ed25519.PublicKeySize && raw[0] == 1 {
				keys = append(keys, gitai.PublicKey{Name: f[0], Key: ed25519.PublicKey(raw[1:])})
			}
		}
	}
	if len(keys) == 0 {
		return nil, nil, withHint(keyError{fmt.Errorf("--key %s: no Ed25519 public key", strings.Join(paths, ", "))}, "give the checkpoint key's .pub (`journal key generate` wrote it beside the key)")
	}
	return keys, vs, nil
}

// gitAttestVerify checks the attestation in file (or rev's note).
func (a *app) gitAttestVerify(ctx context.Context, r *gitai.Repo, arg, keyFile string) error {
	if keyFile == "" {
		cfg, err := loadCheckpointConfig()
		if err != nil {
			return err
		}
		if keyFile = cfg.Key; keyFile == "" {
			if keyFile, err = defaultSignerKey(); err != nil {
				return err
			}
		}
		if !strings.HasSuffix(keyFile, ".pub") {
			keyFile += ".pub"
		}
	}
	keys, verifiers, err := attestPublicKeys([]string{keyFile})
	if err != nil {
		return err
	}
	var data []byte
	want := "" // the commit REV names
	if fi, serr := os.Stat(arg); serr == nil && !fi.IsDir() {
		if data, err = os.ReadFile(arg); err != nil {
			return fmt.Errorf("git attest --verify: %w", err)
		}
	} else {
		c, ok, err := r.RevParse(ctx, arg+"^{commit}")
		if err != nil {
			return err
		}
		if !ok {
			if errors.Is(serr, fs.ErrNotExist) {
				return withHint(usageError{fmt.Errorf("git attest --verify: %q is neither a file nor a commit", arg)}, "name the envelope's file (--out wrote it) or the commit whose note holds it")
			}
			return fmt.Errorf("git attest --verify: %w", serr)
		}
		want = c
		if data, err = gitai.ReadAttestation(ctx, r, c); err != nil {
			return err
		}
		if data == nil {
			return withHint(fmt.Errorf("git attest --verify: %s has no attestation under %s: %w", c[:12], gitai.AttestRef, gitai.ErrAttestation),
				"attach one with `journal git attest "+arg+" --note`, or fetch the notes ref from where it was pushed")
		}
	}
	st, signer, err := gitai.OpenEnvelope(data, keys)
	if err != nil {
		return withHint(err, "an attestation verifies only byte for byte as `journal git attest` signed it, with the key it was signed by")
	}
	commit := st.Commit()
	if want != "" && commit != want {
		return fmt.Errorf("git attest --verify: the statement's subject is commit %s, not %s (%s): %w", commit, want, arg, gitai.ErrAttestation)
	}
	if c, ok, err := r.RevParse(ctx, commit+"^{commit}"); err != nil || !ok || c != commit {
		if err != nil {
			return err
		}
		return withHint(fmt.Errorf("git attest --verify: the statement's subject, commit %s, is not in this repository: %w", commit, gitai.ErrAttestation),
			"fetch the commit, or verify in the repository it was made in")
	}
	claimed := st.Predicate.Checkpoint
	cp, err := audit.OpenCheckpoint([]byte(claimed.Note), verifiers)
	if err != nil {
		return fmt.Errorf("git attest --verify: the statement's checkpoint: %w", err)
	}
	j, err := a.gitJournal(r)
	if err != nil {
		return err
	}
	j.Flush = nil // verify writes nothing: the journal as it is
	n, ev, err := gitai.ComputeEvidence(ctx, r, *j, commit)
	if err != nil {
		return err
	}
	var diffs []string
	err = a.view(func(tx *journal.Tx) error {
		if cp.Workspace() != tx.Workspace() {
			return fmt.Errorf("git attest --verify: the checkpoint is of workspace %s, not this journal's (%s): %w", cp.Workspace(), tx.Workspace(), audit.ErrCheckpoint)
		}
		if audit.TreeSize(tx) < cp.Size {
			return fmt.Errorf("git attest --verify: the checkpoint covers %d events, the journal's tree holds %d: %w", cp.Size, audit.TreeSize(tx), audit.ErrRewritten)
		}
		h, err := audit.TreeHash(tx, cp.Size)
		if err != nil {
			return err
		}
		if h != cp.Root {
			return withHint(fmt.Errorf("git attest --verify: the journal's events up to %d no longer hash to the checkpoint's root: %w", cp.Size, audit.ErrRewritten),
				"`journal verify --key FILE.pub` names where the history parts")
		}
		at := attestedCheckpoint(tx, cp)
		if at != claimed {
			return fmt.Errorf("git attest --verify: the statement's checkpoint fields (size %d, events %d–%d, root %s, time %s) are not its signed note's (size %d, events %d–%d, root %s, time %s): %w",
				claimed.Size, claimed.FirstEvent, claimed.LastEvent, claimed.Root, claimed.Time, at.Size, at.FirstEvent, at.LastEvent, at.Root, at.Time, gitai.ErrAttestation)
		}
		for _, e := range st.Events() {
			if e < at.FirstEvent || e > at.LastEvent {
				diffs = append(diffs, fmt.Sprintf("event %d is not in the checkpoint (events %d–%d)", e, at.FirstEvent, at.LastEvent))
			}
		}
		proven := gitai.NewStatement(commit, st.Predicate.Generator, tx.Workspace(), n, ev, at, attestMask)
		diffs = append(diffs, gitai.Differences(st, proven, 20)...)
		return nil
	})
	if err != nil {
		return err
	}
	if len(diffs) > 0 {
		return &detailed{err: withHint(fmt.Errorf("git attest --verify: %s: %d figures differ from what the journal proves: %w", commit[:12], len(diffs), gitai.ErrAttestation),
			"the statement claims lines the journal does not prove: re-attest the commit (`journal git attest`) from this journal"),
			lines: prefixed("  ", diffs)}
	}
	t := st.Predicate.Totals
	fmt.Fprintf(a.out, "attestation of %s verified: signed by %s; %d files, %d lines added (agent %d, person %d, untracked %d), as the journal proves them; checkpoint of %d events signed by %s\n",
		commit[:12], signer, len(st.Predicate.Files), t.Added, t.Agent, t.Human, t.Untracked, cp.Size, strings.Join(cp.Signers, ", "))
	return nil
}

// prefixed is lines each with prefix before it.
func prefixed(prefix string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = prefix + l
	}
	return out
}
