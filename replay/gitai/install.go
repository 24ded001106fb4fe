package gitai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Installing: the hooks are chained, never replaced. Install points
// core.hooksPath (in the repository's own config) at a directory of ours,
// <common dir>/journal/hooks, whose scripts run the hook of the same name
// in the directory git used before — .git/hooks, or the core.hooksPath
// set then (husky's .husky/_, a team's .githooks) — by its own path, with
// the same arguments and input, and return its status; the hooks we need
// then run our part (`journal git hook NAME`), which always exits 0. No
// file of the user's is written, moved or changed, so Uninstall, which
// puts core.hooksPath back as it was (unset, or its old value) and takes
// out the fetch refspecs it added, leaves hooks and config byte-identical.

// passHooks are the hooks our directory passes on to the previous one
// whether or not it has them then (a hook added there later still runs):
// those whose presence alone changes nothing in git.
var passHooks = []string{"applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
	"prepare-commit-msg", "commit-msg", "pre-rebase", "pre-auto-gc", "sendemail-validate",
	"pre-receive", "update", "post-receive", "post-update"}

// install is the record of what Install did, for Uninstall.
type install struct {
	HooksDir string `json:"hooks_dir"` // ours
	Prev     string `json:"prev"`      // the hooks directory git used before (absolute)
	// PrevLocal is core.hooksPath in the repository's config before, nil
	// when it was not set there.
	PrevLocal *string   `json:"prev_local"`
	Refspecs  []refspec `json:"refspecs,omitempty"`
	Journal   string    `json:"journal"`
}

type refspec struct {
	Remote string `json:"remote"`
	Value  string `json:"value"`
}

func installFile(r *Repo) string { return filepath.Join(r.StateDir(), "install.json") }

// Installed reports whether Install's hooks are in effect.
func Installed(ctx context.Context, r *Repo) bool {
	in, err := readInstall(r)
	if err != nil {
		return false
	}
	cur, _ := r.configGet(ctx, "--local", "core.hooksPath")
	return cur != nil && *cur == in.HooksDir
}

func readInstall(r *Repo) (*install, error) {
	data, err := os.ReadFile(installFile(r))
	if err != nil {
		return nil, err
	}
	var in install
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("gitai: %s: %w", installFile(r), err)
	}
	return &in, nil
}

// configGet reads one config value (nil when unset) from the scope flags.
func (r *Repo) configGet(ctx context.Context, scope, key string) (*string, error) {
	args := []string{"config"}
	if scope != "" {
		args = append(args, scope)
	}
	out, err := r.git(ctx, nil, append(args, "--get", key)...)
	if err != nil {
		if exitCode(err) == 1 {
			return nil, nil
		}
		return nil, err
	}
	v := strings.TrimSuffix(string(out), "\n")
	return &v, nil
}

// InstallReport says what Install or Uninstall did.
type InstallReport struct {
	HooksDir string   // our hooks directory
	Chained  string   // the hooks directory run before ours
	Remotes  []string // remotes whose fetch now carries (or no longer carries) the notes
	Already  bool     // nothing to do
}

// Install installs the hooks (see above) and, for every remote, a fetch
// refspec bringing its notes into RemoteNotesPrefix<remote>. journalBin is
// the binary the hooks run. Running it again changes nothing.
func Install(ctx context.Context, r *Repo, journalBin string) (*InstallReport, error) {
	ours := filepath.Join(r.StateDir(), "hooks")
	rep := &InstallReport{HooksDir: ours}
	prev, err := readInstall(r)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	cur, err := r.configGet(ctx, "--local", "core.hooksPath")
	if err != nil {
		return nil, err
	}
	in := &install{HooksDir: ours, Journal: journalBin}
	if prev != nil && cur != nil && *cur == ours {
		in.Prev, in.PrevLocal, in.Refspecs = prev.Prev, prev.PrevLocal, prev.Refspecs
		rep.Already = prev.Journal == journalBin
	} else {
		in.PrevLocal = cur
		eff, err := r.configGet(ctx, "", "core.hooksPath")
		if err != nil {
			return nil, err
		}
		switch {
		case eff == nil:
			in.Prev = filepath.Join(r.CommonDir, "hooks")
		case strings.HasPrefix(*eff, "~/"):
			home, _ := os.UserHomeDir()
			in.Prev = filepath.Join(home, (*eff)[2:])
		case filepath.IsAbs(*eff):
			in.Prev = *eff
		default:
			in.Prev = filepath.Join(r.Top, *eff)
		}
		if prev != nil {
			in.Refspecs = prev.Refspecs
		}
	}
	rep.Chained = in.Prev
	if err := writeHooks(ours, in); err != nil {
		return nil, err
	}
	// The record is written before the config points at the hooks, so an
	// interrupted install is taken back by Uninstall.
	if err := writeInstall(r, in); err != nil {
		return nil, err
	}
	if cur == nil || *cur != ours {
		if _, err := r.git(ctx, nil, "config", "--local", "core.hooksPath", ours); err != nil {
			return nil, err
		}
	}
	out, err := r.git(ctx, nil, "remote")
	if err != nil {
		return nil, err
	}
	for _, remote := range strings.Fields(string(out)) {
		spec := "+" + NotesRef + ":" + RemoteNotesPrefix + trackingName(remote)
		have, _ := r.git(ctx, nil, "config", "--local", "--get-all", "remote."+remote+".fetch")
		if slices.Contains(strings.Split(strings.TrimSpace(string(have)), "\n"), spec) {
			continue
		}
		if _, err := r.git(ctx, nil, "config", "--local", "--add", "remote."+remote+".fetch", spec); err != nil {
			return nil, err
		}
		in.Refspecs = append(in.Refspecs, refspec{remote, spec})
		rep.Remotes = append(rep.Remotes, remote)
		rep.Already = false
		if err := writeInstall(r, in); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

func writeInstall(r *Repo, in *install) error {
	data, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(r.StateDir(), 0o755); err != nil {
		return err
	}
	tmp := installFile(r) + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, installFile(r))
}

// shQuote quotes s for sh.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// writeHooks writes our hooks directory: pass-through scripts for
// passHooks and any other hook the previous directory holds, and ours.
func writeHooks(dir string, in *install) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := slices.Clone(passHooks)
	if ents, err := os.ReadDir(in.Prev); err == nil {
		for _, e := range ents {
			n := e.Name()
			if !e.IsDir() && !strings.HasSuffix(n, ".sample") && !strings.HasPrefix(n, ".") && !strings.Contains(n, ".") && !slices.Contains(names, n) && !slices.Contains(HookNames, n) {
				if fi, err := e.Info(); err == nil && fi.Mode()&0o111 != 0 {
					names = append(names, n)
				}
			}
		}
	}
	head := "#!/bin/sh\n# Installed by `journal git install` (`journal git uninstall` takes it back): runs the hook\n" +
		"# this repository had before, then records the commit's note in refs/notes/ai.\n" +
		"prev=" + shQuote(in.Prev) + "\n"
	for _, n := range names {
		s := "#!/bin/sh\n# Installed by `journal git install`: passes the hook on to the one this repository had.\n" +
			"prev=" + shQuote(in.Prev) + "\n" +
			"[ -x \"$prev/" + n + "\" ] && exec \"$prev/" + n + "\" \"$@\"\nexit 0\n"
		if err := writeScript(filepath.Join(dir, n), s); err != nil {
			return err
		}
	}
	// Without a journal binary the commits a hook names are listed pending
	// by the script itself (journal git note writes them later).
	ours := "J=" + shQuote(in.Journal) + "\n[ -x \"$J\" ] || J=$(command -v journal) || J=\n" +
		"pending() { echo \"journal git: $1: no journal binary (the note is pending: journal git note writes it)\" >&2; " +
		"d=$(git rev-parse --git-common-dir)/journal; mkdir -p \"$d\" && cat >> \"$d/pending\"; }\n"
	for _, n := range HookNames {
		var s string
		switch n {
		case "post-rewrite", "pre-push": // both read their input: each gets a copy
			s = head + ours + `in=$(mktemp "${TMPDIR:-/tmp}/journal-git.XXXXXX") || exit 0
cat > "$in"
status=0
if [ -x "$prev/` + n + `" ]; then "$prev/` + n + `" "$@" < "$in"; status=$?; fi
`
			if n == "pre-push" {
				s += `[ $status -eq 0 ] && [ -n "$J" ] && "$J" git hook ` + n + ` "$@" < "$in" >/dev/null
`
			} else {
				s += `if [ -n "$J" ]; then "$J" git hook ` + n + ` "$@" < "$in" >/dev/null; else cut -d' ' -f2 < "$in" | pending ` + n + `; fi
`
			}
			s += "rm -f \"$in\"\nexit $status\n"
		case "post-commit":
			s = head + ours + `status=0
if [ -x "$prev/` + n + `" ]; then "$prev/` + n + `" "$@"; status=$?; fi
if [ -n "$J" ]; then "$J" git hook ` + n + ` "$@" < /dev/null >/dev/null; else git rev-parse HEAD | pending ` + n + `; fi
exit $status
`
		default:
			s = head + ours + `status=0
if [ -x "$prev/` + n + `" ]; then "$prev/` + n + `" "$@"; status=$?; fi
[ -n "$J" ] && "$J" git hook ` + n + ` "$@" < /dev/null >/dev/null
exit $status
`
		}
		if err := writeScript(filepath.Join(dir, n), s); err != nil {
			return err
		}
	}
	return nil
}

func writeScript(p, s string) error {
	if old, err := os.ReadFile(p); err == nil && string(old) == s {
		return nil
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte(s), 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// Uninstall takes back what Install did: core.hooksPath as it was, the
// fetch refspecs it added, its hooks directory. The notes stay; commits
// still pending stay listed (`journal git note` writes them).
func Uninstall(ctx context.Context, r *Repo) (*InstallReport, error) {
	in, err := readInstall(r)
	if errors.Is(err, os.ErrNotExist) {
		return &InstallReport{Already: true}, nil
	}
	if err != nil {
		return nil, err
	}
	rep := &InstallReport{HooksDir: in.HooksDir, Chained: in.Prev}
	cur, err := r.configGet(ctx, "--local", "core.hooksPath")
	if err != nil {
		return nil, err
	}
	if cur != nil && *cur == in.HooksDir { // else someone set it since: theirs stays
		if in.PrevLocal == nil {
			_, err = r.git(ctx, nil, "config", "--local", "--unset", "core.hooksPath")
		} else {
			_, err = r.git(ctx, nil, "config", "--local", "core.hooksPath", *in.PrevLocal)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, s := range in.Refspecs {
		_, err := r.git(ctx, nil, "config", "--local", "--fixed-value", "--unset-all", "remote."+s.Remote+".fetch", s.Value)
		if err != nil && exitCode(err) != 5 { // 5: not there any more
			return nil, err
		}
		rep.Remotes = append(rep.Remotes, s.Remote)
	}
	if err := os.RemoveAll(in.HooksDir); err != nil {
		return nil, err
	}
	os.RemoveAll(filepath.Join(r.StateDir(), "merged"))
	if err := os.Remove(installFile(r)); err != nil {
		return nil, err
	}
	if p, _ := Pending(r); len(p) == 0 {
		os.Remove(pendingFile(r))
		os.Remove(filepath.Join(r.StateDir(), "pending.lock"))
		os.Remove(r.StateDir()) // only if nothing else is left
	}
	return rep, nil
}
