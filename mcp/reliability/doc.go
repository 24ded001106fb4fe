// Package reliability holds the reliability and security suite at the
// product's edges (issue 8): it drives the real `journal serve` binary and the
// CLI the way agents and people use them, and checks what must hold whatever
// happens.
//
// # Modes
//
// The default mode (`go test ./mcp/reliability`) runs in well under three
// minutes on two cores and is part of the repository's default test run. The
// long mode, JOURNAL_LONG=1 (scripts/long.sh), scales every loop up to the
// issue's figures. JOURNAL_FIGURES=FILE appends each test's figures to FILE as
// one JSON object per line (RELIABILITY.md is written from them).
//
// # What is checked
//
//   - crash_test.go: SIGKILL of `journal serve` at random moments while it
//     serves batch tools; after each restart no torn file, no partly applied
//     batch, every acknowledged batch on disk, no temp file, `journal verify` clean.
//   - fault_test.go: ENOSPC, EIO, EACCES and EXDEV injected at every step of
//     the apply protocol (replay.Options.Fault and CommitFault) under the MCP
//     layer: a coded tool error and an unchanged workspace.
//   - escape_test.go: generated path-escape attempts through every tool that
//     takes a path (found from tools/list), and a directory/symlink swap race;
//     a canary directory outside the root must stay byte-identical.
//   - concurrency_test.go: two servers and the CLI on one workspace; every
//     edit applied and journaled exactly once or refused with EDIT_CONFLICT,
//     the final files equal to a replay of the journal.
//   - outside_test.go: changes behind the server's back are observed, never lost.
//   - bbolt_test.go: a second opener gets ErrBusy, not a hang; the journal
//     file stays bounded over create/delete cycles with retention (gc --keep).
//
// This package has no non-test code besides this file.
package reliability
