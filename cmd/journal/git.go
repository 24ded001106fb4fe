package main

import "github.com/spf13/cobra"

// gitCommands are the subcommands of `journal git`; files of this package
// add theirs from init. Their logic lives in package replay/gitai: these are
// flags and wiring only.
var gitCommands []func(a *app) *cobra.Command

func newGitCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "git",
		Short: "Carry the journal's attribution into git: notes in the Git AI Standard on every commit, and their readers",
		Long: `git writes, for every commit, a note under refs/notes/ai in the Git AI Standard v3.0.0 naming who wrote
each line the commit adds (an agent's session and tool call, a known person, or nothing where the journal
cannot prove it), computed from the commit's content and the journal's history, and reads them back;
attest signs the same attribution as an in-toto attestation (DSSE) that other supply-chain tools verify.`,
		Args: cobra.NoArgs,
	}
	for _, mk := range gitCommands {
		cmd.AddCommand(mk(a))
	}
	return cmd
}
