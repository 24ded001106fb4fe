package secrets

import (
	"bytes"
	"encoding/base64"
	"math"
	"regexp"
	"strings"
)

// The heuristic rules: the second layer of detection, for credentials no
// gitleaks rule knows the format of (doc.go, "Heuristics"). Their IDs name
// them in findings and marks.
const (
	RuleCredentialURL = "credential-in-url"     // scheme://user:PASSWORD@host
	RuleAssignment    = "credential-assignment" // password is X, token=X, Password=X; in a connection string
	RuleTokenPrefix   = "token-prefix"          // a known token prefix with a body of another length (ghp_ one short)
	RuleHighEntropy   = "high-entropy-string"   // a long random-looking string that is no hash, id, path or word
)

// heuristic is a detector of the second layer: it returns the secrets'
// ranges in b[from:hi] (offsets in b).
type heuristic func(b []byte, from, hi int) [][2]int

// heuristicRules returns the second layer as rules of the set: keywords
// (added to the set's, lower case) gate them as they gate gitleaks' rules,
// and each finds secrets on one line (span 0), so it runs on the lines
// holding its keywords; the entropy rule has no keyword and runs on all.
func heuristicRules() []struct {
	id       string
	keywords []string
	find     heuristic
} {
	return []struct {
		id       string
		keywords []string
		find     heuristic
	}{
		{RuleCredentialURL, []string{"://"}, findCredentialURLs},
		{RuleAssignment, assignmentKeywords, findAssignments},
		{RuleTokenPrefix, prefixKeywords(), findTokenPrefixes},
		{RuleHighEntropy, nil, findHighEntropy},
	}
}

// IsHeuristic reports whether a rule ID is one of the heuristics' (the
// second layer, doc.go) rather than a gitleaks rule's: a gitleaks rule's
// finding on the same bytes wins over it (settle).
func IsHeuristic(rule string) bool {
	switch rule {
	case RuleCredentialURL, RuleAssignment, RuleTokenPrefix, RuleHighEntropy:
		return true
	}
	return false
}

// credentialURL is a URL whose userinfo holds a password; group 1 is the
// password. The password stops at the characters a URL's userinfo cannot
// hold unescaped.
var credentialURL = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.\-]{1,31}://[^\s/?#@"'` + "`" + `<>:]*:([^\s/?#@"'` + "`" + `<>]+)@[a-z0-9\[\]_.\-]`)

func findCredentialURLs(b []byte, from, hi int) [][2]int {
	var out [][2]int
	for _, m := range credentialURL.FindAllSubmatchIndex(b[from:hi], -1) {
		s, e := from+m[2], from+m[3]
		if !placeholder(string(b[s:e])) {
			out = append(out, [2]int{s, e})
		}
	}
	return out
}

// assignmentKeywords are the names that say the value after them is a
// credential.
var assignmentKeywords = []string{"password", "passwd", "passphrase", "pwd", "secret", "token", "apikey", "api_key", "api-key", "api key", "access_key", "access-key", "accesskey", "access key", "auth", "credential", "bearer", "basic ", "private_key", "private-key", "privatekey", "signing_key", "signing-key", "encryption_key", "master_key"}

// assignment is a credential's name, maybe inside a longer one
// (DB_PASSWORD, github.token, "client-secret"), then how a value is given
// to it in code, configuration, a connection string or prose ("=", ":",
// ":=", "=>", "is", "to", "as", or a space: "password hunter2x", "Bearer
// X"), maybe quoted, then the value (group 2). A value ends at a space, a
// quote, or the separators of connection strings and lists (; , &).
var assignment = regexp.MustCompile(`(?i)(?:^|[^a-z0-9])([a-z0-9_.\-]*?(?:pass(?:word|wd|phrase)|pwd|secret(?:[_\- ]?key)?|(?:private|signing|encryption|master)[_\- ]?key|token|api[_\- ]?key|access[_\- ]?key|auth(?:[_\-]?token)?|credentials?|bearer|basic)s?)["']?[ \t]*(?:(?::=|=>|->|[:=])[ \t]*|[ \t](?:is|was|to|as|be)[ \t]+|([ \t]+))["'` + "`" + `]?([^\s"'` + "`" + `;,&<>(){}\[\]|]+)`)

// passwordName reports whether a credential's name is a password's, whose
// value may be a short human-made one: any value that is not a placeholder
// or a word is masked (failing closed).
func passwordName(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "pass") || strings.Contains(n, "pwd")
}

func findAssignments(b []byte, from, hi int) [][2]int {
	var out [][2]int
	for _, m := range assignment.FindAllSubmatchIndex(b[from:hi], -1) {
		name := string(b[from+m[2] : from+m[3]])
		spaced := m[4] >= 0 // "secret X", "Bearer X": no word says X is the value
		s, e := from+m[6], from+m[7]
		// an escape in a quoted string of code (\n, \") ends the value
		for k := s; k+1 < e; k++ {
			if b[k] == '\\' && strings.IndexByte("ntr\"'`\\", b[k+1]) >= 0 {
				e = k
				break
			}
		}
		// the value ends a sentence: its full stop is not part of it
		for e > s && (b[e-1] == '.' || b[e-1] == ':') {
			e--
		}
		if e < hi && (b[e] == '(' || b[e] == '[' || b[e] == '{') {
			continue // a call or an index: code, not a value
		}
		v := string(b[s:e])
		switch {
		case spaced && passwordName(name):
			continue // "/etc/passwd HTTP/1.1": a password is given by a word or a sign
		case spaced && !(len(v) >= 12 && tokenLike(v)) && !(basicAuth(name) && base64Text(v)):
			continue // after a space alone, only a token-like value
		}
		if credentialValue(v, passwordName(name)) {
			out = append(out, [2]int{s, e})
		}
	}
	return out
}

// basicAuth reports whether a credential's name is HTTP's Basic scheme,
// whose value is base64 of user:password.
func basicAuth(name string) bool { return strings.EqualFold(name, "basic") }

// credentialValue reports whether v, assigned to a credential's name,
// looks like one: not a placeholder, a word, an identifier, a path, a URL
// or an expression of code. A password's value (password) may be short
// (6 characters) and is masked unless it is letters alone; another's needs
// 8 characters and letters with digits or symbols.
func credentialValue(v string, password bool) bool {
	min := 8
	if password {
		min = 6
	}
	if len(v) < min || placeholder(v) || strings.Contains(v, "://") || strings.Contains(v, "…[secret:") {
		return false
	}
	if strings.IndexByte("+=.-:/*", v[0]) >= 0 {
		return false // an operator: code ("auth "+s.Token, KEY=.*)
	}
	if strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasPrefix(v, "~/") || v[0] == '$' || v[0] == '%' || v[0] == '@' {
		return false // a path, a variable, a template
	}
	lower, upper, digits, others := classes(v)
	letters := lower + upper
	if letters == 0 {
		return password && digits >= 6 // a PIN-like password; numbers are no token
	}
	if digits == 0 && others == 0 {
		// letters alone: a word or an identifier, unless it looks random
		return !password && !wordy(v) && len(v) >= 16
	}
	if digits == 0 && dotted.MatchString(v) {
		return false // cfg.Token, os.Args: a field of code
	}
	if digits <= 2 && wordy(v) {
		return password // "Password1", "journal-test-key": a password fails closed, a token's value is a name
	}
	return true
}

// dotted is an expression naming a field or method in code.
var dotted = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$`)

// placeholders are values documentation and templates stand for a
// credential with.
var placeholders = map[string]bool{
	"password": true, "passwd": true, "pass": true, "pwd": true, "secret": true, "token": true, "changeme": true,
	"example": true, "placeholder": true, "redacted": true, "[redacted]": true, "<redacted>": true, "none": true,
	"null": true, "nil": true, "true": true, "false": true, "undefined": true, "empty": true, "required": true,
	"optional": true, "string": true, "your_password": true, "your-password": true, "yourpassword": true,
	"your_token": true, "your-token": true, "your_api_key": true, "your-api-key": true, "mypassword": true,
	"secret_here": true,
}

// placeholder reports whether v stands for a credential rather than being
// one: a word of placeholders, a template or a variable (${X}, {{ x }},
// <x>, $X, %s), a run of one masking character (****, xxxx), or what
// gitleaks' global allowlist lets pass.
func placeholder(v string) bool {
	t := strings.Trim(v, `"'`+"`")
	if t == "" || placeholders[strings.ToLower(t)] {
		return true
	}
	if strings.ContainsAny(t, "{}") || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "$") || strings.HasPrefix(t, "%") {
		return true
	}
	if len(t) < 4 {
		return true // too short to guard anything ("http://gopher:go@host" in a test)
	}
	if strings.Count(t, string(t[0])) == len(t) && strings.ContainsRune("*x.X-#_0", rune(t[0])) {
		return true
	}
	l := strings.ToLower(t)
	if strings.Contains(l, "example") || strings.Contains(l, "xxxx") || strings.Contains(l, "****") || strings.HasPrefix(l, "your") || strings.HasPrefix(l, "my_") || strings.HasPrefix(l, "<") {
		return true
	}
	return allowed(rules().global, "", t, t, t)
}

// tokenPrefixes are the fixed starts of well-known credentials' formats:
// a string that starts with one and goes on like a token is one, whatever
// its length (a gitleaks rule wants the exact length of its format).
var tokenPrefixes = []string{
	"github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "glpat-", "gldt-", "glptt-", "glrt-",
	"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxe-", "xoxs-", "xapp-",
	"sk_live_", "sk_test_", "rk_live_", "rk_test_", "pk_live_", "sk-ant-", "sk-proj-", "sk-",
	"AKIA", "ASIA", "AIza", "npm_", "pypi-", "hf_", "shpat_", "shpss_", "dop_v1_", "doo_v1_", "SG.", "glc_", "dapi", "sbp_", "sb_secret_",
}

// prefixKeywords are tokenPrefixes in lower case, as keywords.
func prefixKeywords() []string {
	out := make([]string, len(tokenPrefixes))
	for i, p := range tokenPrefixes {
		out[i] = strings.ToLower(p)
	}
	return out
}

// tokenPrefix is a token that starts with one of tokenPrefixes (case as
// published), not inside a longer word, and has a body of 12 or more
// token characters (group 1).
var tokenPrefix = func() *regexp.Regexp {
	alt := make([]string, len(tokenPrefixes))
	for i, p := range tokenPrefixes {
		alt[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(`(?:^|[^A-Za-z0-9_\-])((?:` + strings.Join(alt, "|") + `)[A-Za-z0-9_\-.=]{12,})`)
}()

func findTokenPrefixes(b []byte, from, hi int) [][2]int {
	var out [][2]int
	for _, m := range tokenPrefix.FindAllSubmatchIndex(b[from:hi], -1) {
		s, e := from+m[2], from+m[3]
		for e > s && b[e-1] == '.' {
			e--
		}
		tok := string(b[s:e])
		body := tok[len(prefixOf(tok)):]
		if len(body) >= 12 && tokenLike(body) && !placeholder(tok) {
			out = append(out, [2]int{s, e})
		}
	}
	return out
}

// prefixOf returns the token prefix tok starts with (the longest).
func prefixOf(tok string) string {
	best := ""
	for _, p := range tokenPrefixes {
		if strings.HasPrefix(tok, p) && len(p) > len(best) {
			best = p
		}
	}
	return best
}

// tokenLike reports whether s, a token's body, looks generated: letters
// and digits both, and not an identifier made of words (sk-learn-model-2,
// hf_hub_download).
func tokenLike(s string) bool {
	lower, upper, digits, _ := classes(s)
	return lower+upper > 0 && digits > 0 && !wordy(s)
}

// classes counts the lower-case letters, capitals, digits and other bytes
// of s.
func classes(s string) (lower, upper, digits, others int) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z':
			lower++
		case c >= 'A' && c <= 'Z':
			upper++
		case c >= '0' && c <= '9':
			digits++
		default:
			others++
		}
	}
	return
}

// Bounds of the entropy rule: a string of token characters at least
// minEntropyLen long whose Shannon entropy (bits per character) is at least
// entropyShare of the most its length allows (log2 of its length, or of
// the 64 symbols of base64).
const (
	minEntropyLen = 20
	entropyShare  = 0.8
)

// isTokenByte reports whether c can be part of a generated token: base64's
// and base64url's alphabets (with padding) and the separators of token
// formats.
func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '_' || c == '-'
}

func findHighEntropy(b []byte, from, hi int) [][2]int {
	var out [][2]int
	for i := from; i < hi; {
		if !isTokenByte(b[i]) {
			i++
			continue
		}
		j := i
		for j < hi && isTokenByte(b[j]) && !(b[j] == '=' && j+1 < hi && b[j+1] != '=' && isTokenByte(b[j+1])) {
			j++
		}
		if j == i { // an = before a value
			i++
			continue
		}
		if j+1 < hi && b[j] == '=' && isTokenByte(b[j+1]) {
			// NAME=value: the name and the value are judged apart
			if j-i >= minEntropyLen && (i == 0 || !tokenBefore(b[i-1])) && highEntropy(b, i, j) {
				out = append(out, [2]int{i, j})
			}
			i = j + 1
			continue
		}
		if j-i >= minEntropyLen && (i == 0 || !tokenBefore(b[i-1])) && highEntropy(b, i, j) {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

// tokenBefore reports whether a byte before a run of token characters
// makes the run part of something longer that is not a token: a dot
// (a domain, a file name's or a key's last part), a backslash (an escape),
// or a letter beyond ASCII.
func tokenBefore(c byte) bool { return c == '.' || c == '\\' || c >= 0x80 }

// highEntropy reports whether the run b[i:j] of token characters is a
// random-looking string and none of the look-alikes that must stay
// readable: hex (commit ids, digests), UUIDs, paths, identifiers and
// words, base64 of text, subresource-integrity and go.sum digests.
func highEntropy(b []byte, i, j int) bool {
	s := string(bytes.TrimRight(b[i:j], "=-_/"))
	if len(s) < minEntropyLen {
		return false
	}
	lower, upper, digits, _ := classes(s)
	kinds := btoi(lower > 0) + btoi(upper > 0) + btoi(digits > 0)
	switch {
	case digits == 0: // letters alone: words run together, a name
		return false
	case kinds < 3 && len(s) < 32:
		return false
	case hexLike(s):
		return false // a commit id, a digest, a UUID
	case digestPrefix(b, i), idPrefix(s):
		return false
	case strings.Contains(strings.ToLower(s), "example"):
		return false // a documentation key (AWS's …EXAMPLEKEY)
	case wordy(s):
		return false // an identifier or a path made of words
	}
	if entropy(s) < entropyShare*math.Log2(float64(min(len(s), 64))) {
		return false
	}
	return !base64Text(s)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// hexLike reports whether s is hexadecimal, maybe in groups (a UUID's
// 8-4-4-4-12, a fingerprint's pairs), in one case.
func hexLike(s string) bool {
	var lower, upper bool
	for k := 0; k < len(s); k++ {
		switch c := s[k]; {
		case c >= '0' && c <= '9', c == '-', c == '_':
		case c >= 'a' && c <= 'f':
			lower = true
		case c >= 'A' && c <= 'F':
			upper = true
		default:
			return false
		}
	}
	return !(lower && upper)
}

// digestPrefix reports whether the run at b[i:] is a digest named by its
// algorithm: subresource integrity (sha512-…), go.sum's h1:…, sha256:….
func digestPrefix(b []byte, i int) bool {
	run := b[i:]
	for _, p := range []string{"sha1-", "sha256-", "sha384-", "sha512-"} {
		if bytes.HasPrefix(run, []byte(p)) {
			return true
		}
	}
	before := string(b[max(0, i-8):i])
	for _, p := range []string{"h1:", "sha1:", "sha256:", "sha384:", "sha512:", "md5:"} {
		if strings.HasSuffix(before, p) {
			return true
		}
	}
	return false
}

// idPrefixes start the ids agents and APIs give their objects (a tool
// call's, a message's, a request's), recorded in every hook's arguments:
// random, but no credential.
var idPrefixes = []string{"toolu_", "msg_", "req_", "call_", "chatcmpl-", "resp_", "run_", "thread_", "asst_", "file-", "file_", "evt_", "cus_", "pi_", "ch_", "sub_", "in_", "prod_", "price_"}

// idPrefix reports whether s is an id of an agent's or an API's object.
func idPrefix(s string) bool {
	for _, p := range idPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// wordy reports whether s is made of words: split at separators (/ _ - .
// +), at digits and at camelCase's capitals, most of its letters are in
// parts of three letters or more that hold a vowel and no run of five
// consonants — an identifier (TestScanFile_PrivateKey), a path
// (journal/secrets/scan), a slug — and it has few short parts. A random
// string splits into many parts of one or two letters.
func wordy(s string) bool {
	var letters, inWords, parts, short, digitRuns int
	for k := 0; k < len(s); k++ {
		if s[k] >= '0' && s[k] <= '9' && (k == 0 || s[k-1] < '0' || s[k-1] > '9') {
			digitRuns++
		}
	}
	part := func(p string) {
		if p == "" {
			return
		}
		parts++
		letters += len(p)
		switch {
		case len(p) >= 3 && pronounceable(p), shortWords[strings.ToLower(p)]:
			inWords += len(p)
		case len(p) <= 2:
			short++
		}
	}
	start := -1
	for k := 0; k <= len(s); k++ {
		var c byte
		if k < len(s) {
			c = s[k]
		}
		isLetter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !isLetter {
			if start >= 0 {
				part(s[start:k])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = k
			continue
		}
		// a capital after a lower-case letter starts a word (camelCase);
		// in a run of capitals, the last before a lower-case one does
		// (HTTPServer)
		prev := s[k-1]
		upper := c >= 'A' && c <= 'Z'
		prevUpper := prev >= 'A' && prev <= 'Z'
		nextLower := k+1 < len(s) && s[k+1] >= 'a' && s[k+1] <= 'z'
		if upper && (!prevUpper || nextLower) {
			part(s[start:k])
			start = k
		}
	}
	if letters == 0 {
		return false
	}
	if inWords*4 >= letters*3 && short*2 <= parts+1 {
		return true
	}
	// a long name of long parts and few runs of digits
	// (http2strSliceContains, TLS_DH_anon_WITH_RC4_128_MD5): a random
	// string's parts average under two letters
	return len(s) >= minEntropyLen && parts >= 2 && letters*5 >= parts*16 && digitRuns*8 <= len(s)
}

// shortWords are words and units of one or two letters that names are
// made of (go, id, MiB's Mi and B).
var shortWords = map[string]bool{
	"a": true, "b": true, "i": true, "v": true, "x": true, "go": true, "id": true, "io": true, "db": true, "ok": true, "os": true,
	"ui": true, "js": true, "ts": true, "py": true, "rc": true, "mi": true, "ki": true, "gi": true, "ti": true, "mb": true,
	"kb": true, "gb": true, "ms": true, "ns": true, "us": true, "to": true, "of": true, "in": true, "is": true, "on": true,
	"at": true, "by": true, "up": true, "no": true, "or": true, "if": true, "as": true, "it": true, "do": true, "be": true,
}

// pronounceable reports whether a part of letters reads as a word or an
// abbreviation: it holds a vowel (y counts) and no five consonants in a
// row, or it is a run of capitals of at most five (HTTP, JSON, UTF).
func pronounceable(p string) bool {
	if len(p) <= 5 && strings.ToUpper(p) == p {
		return true
	}
	vowel, run := false, 0
	for k := 0; k < len(p); k++ {
		switch p[k] | 0x20 {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			vowel, run = true, 0
		default:
			if run++; run >= 5 {
				return false
			}
		}
	}
	return vowel
}

// base64Text reports whether s is base64 (or base64url) of text: test
// data and encoded documents stay readable; a key is random bytes.
func base64Text(s string) bool {
	if len(s)%4 == 1 {
		return false
	}
	var d []byte
	var err error
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if d, err = enc.DecodeString(strings.TrimRight(s, "=")); err == nil {
			break
		}
	}
	if err != nil || len(d) == 0 {
		return false
	}
	printable := 0
	for _, c := range d {
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' || c == '\r' {
			printable++
		}
	}
	return printable*20 >= len(d)*19
}
