// Package secrets finds credentials in the texts the journal records — file
// contents and tool arguments — and masks them for printing, so that a key
// an agent writes into .env stays in the journal (undo still restores it)
// but is not shown by log, show, web or the MCP history tools unless the
// user asks (--reveal).
//
// # Rules
//
// The rules are gitleaks' default configuration (config/gitleaks.toml of
// RulesVersion, embedded as published, MIT licensed: LICENSE.gitleaks): some
// 220 rules for private keys, cloud and VCS tokens and the like, and
// generic-api-key for high-entropy values assigned to names such as
// password, secret, token or key — the rule set a security team already
// runs in CI, maintained upstream. It is loaded with BurntSushi/toml and
// compiled with Go's regexp, and run as gitleaks' detector runs it: a rule
// runs only on text holding one of its keywords (an Aho-Corasick pass,
// trie.go), each match is matched again alone for its secret group, whose
// Shannon entropy must pass the rule's threshold, and the global and the
// rule's allowlists (regexes on the secret, the match or the line, stop
// words, paths; OR and AND conditions) are applied; a specific rule's
// finding wins over a generic one on the same bytes; "gitleaks:allow" on a
// line keeps it from being reported. Left out: gitleaks' decoding of
// base64, hex and percent-encoded text (a secret encoded in a file is not
// found), and its commit allowlists (the journal has no commits).
//
// Chosen over the alternatives, evaluated in the order:
//
//   - gitleaks' Go library (github.com/zricethezav/gitleaks/v8, detect and
//     config): its config package alone pulls in viper, hcl, zerolog and
//     their trees, and detect adds archive readers (rar, 7z, xz, zip, lz4,
//     brotli), lipgloss and sprig — hundreds of packages for a program that
//     only runs the default detector (BENCHMARKS.md, "Secret detection",
//     has the count, size and build time). Its findings give lines and
//     columns of the match, not byte offsets of the secret, which masking
//     needs.
//   - DefangLabs/secret-detector (a port of Yelp's detect-secrets): a
//     smaller set of detectors, mostly keyword and entropy heuristics, with
//     no per-rule allowlists, so more false positives in code; not the rule
//     set teams maintain in CI.
//   - The rule file alone, as here: the same rules as the library, one small
//     dependency (a TOML parser), byte offsets of the secret itself, and
//     control over time bounds. An update is a new gitleaks.toml and a new
//     RulesVersion; TestRules_GitleaksExamples runs examples taken from
//     gitleaks' own rule definitions.
//
// # Heuristics
//
// The rules catch credentials in their published formats; a token one
// character short of its format, a password in a URL or in a sentence, or
// a key of a provider the rules do not know passes them. A second layer of
// four rules (heuristic.go), run by the same scan behind the same API —
// every caller of ScanFile, ScanArgs, Mask and MaskLines gets their
// findings — catches those, as Entire's redaction does beside its pattern
// rules (entropy over long token-like strings, credentialed URLs and
// connection strings, credential-shaped keys; detect-secrets' entropy
// plugins and truffleHog's generic detectors are the same idea):
//
//   - credential-in-url: the password of scheme://user:PASSWORD@host;
//   - credential-assignment: a value given to a credential's name
//     (password, passwd, passphrase, pwd, secret, token, api key, access
//     key, private key, auth, credential, Bearer, Basic, alone or ending a
//     longer name such as DB_PASSWORD or github.token) by "=", ":", ":=",
//     "is", "to", as in code, configuration, connection strings
//     (Password=...;) and prose ("the db password is ...");
//   - token-prefix: a string that starts with a known token prefix (ghp_,
//     github_pat_, glpat-, sk-, xoxb-, AKIA, AIza, npm_, hf_, ...) and goes
//     on like a token, whatever its length;
//   - high-entropy-string: a run of 20 or more base64 characters with
//     digits and letters whose Shannon entropy is at least 0.8 of the most
//     its length allows.
//
// They fail closed where the text says credential: a value given to a
// password's name is masked unless it is a placeholder (changeme,
// ${VAR}, <your-password>, ****) or letters alone (a word: "the
// password is correct"); a password in a URL is masked unless it is a
// placeholder or under four characters. Without such a word, a string
// must look generated to be masked, and the look-alikes stay readable:
// hex in one case (commit ids, digests), UUIDs, paths and identifiers made
// of words (split at separators, digits and camelCase: most letters in
// pronounceable parts, or long parts and few runs of digits), base64 that
// decodes to text (test data, encoded documents — a key is random bytes),
// digests named by their algorithm (sha512-…, h1:…), the ids agents and
// APIs give their objects (toolu_…, msg_…; and in arguments, any member
// named id or …_id), and AWS's documentation keys (…EXAMPLE…). A
// heuristic's finding gives way to a gitleaks rule's on the same bytes,
// and gitleaks' global allowlist and "gitleaks:allow" apply to it.
//
// The corpus of testdata (near-misses that must be masked, look-alikes
// that must not, and a held-out set of near-misses not tuned on) and the
// counts of findings per 1000 lines of real code measure both rates
// (RELIABILITY.md, "Secrets no rule knows"); DetectorVersion names the
// detector, so findings an earlier one stored are scanned again.
//
// # Findings and masking
//
// A Finding holds the rule's ID, the secret's byte range and its line —
// never the value. ScanFile scans a file's content (with its path, for
// path rules and allowlists), ScanArgs a tool call's JSON arguments (each
// finding names its string by JSON Pointer). Mask and MaskArgs replace each
// secret with a mark such as "AKIA…[secret: aws-access-token]", keeping at
// most a prefix that every credential of the kind shares; Mask makes a
// masked PEM key one line, MaskFile and MaskLines keep its lines ("…" on
// all but the first), so a masked file's lines keep their numbers. Masking
// both sides of a diff before diffing keeps the diff as small as the edit.
//
// # Bounds
//
// Binary contents (a NUL in the first 8000 bytes) and contents over MaxSize
// are not scanned. A text is scanned in windows of 64 KiB cut after a
// newline, overlapping by 8 KiB so that a key across a cut is found whole;
// in a window, a rule whose matches span at most n lines (computed from its
// regular expression, lines.go) runs only on the lines within n of one of
// its keywords, so the generic rule does not run over a whole source file
// because the words key or token occur in it. A window is scanned on its
// own bytes, with its first line counted as the scan goes, so time is
// linear in the size; BENCHMARKS.md has the figures.
//
// Cache.ScanReader scans a content as it is read (a large stored content,
// read in pieces): it keeps one window and its overlap, and since the
// windows are cut from the bytes alone, not from where the reads end, its
// windows, overlaps and findings are ScanFile's on the same bytes
// (TestScanReader_SameAsScanFile).
//
// A Cache makes a scan of an edited file cost about what its edit changed:
// a rule's findings in a region of lines depend only on the rule, the path
// and the region's bytes, so they are remembered by a hash of those bytes
// and the regions an edit left alone are not run again. Its findings are
// ScanFile's, exactly (TestCache_SameAsScanFile).
package secrets
