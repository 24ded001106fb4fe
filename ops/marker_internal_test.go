package ops

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestMayMentionElision_Runes: U+0130 and U+212A are the only runes beyond
// ASCII that lower to an ASCII letter, so a phrase lowered from a text
// holds a stem only where the text does, ASCII letters folded, or holds
// one of those two (mayMentionElision's reasoning).
func TestMayMentionElision_Runes(t *testing.T) {
	var got []rune
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		for _, c := range strings.ToLower(string(r)) {
			if c < 0x80 {
				got = append(got, r)
				break
			}
		}
	}
	if len(got) != 2 || got[0] != 0x130 || got[1] != 0x212a {
		t.Fatalf("runes lowering to ASCII: %U", got)
	}
}

// TestIsMarkerLine_QuickTestsLoseNothing: the quick tests (an ellipsis, or
// a stem of an elision word in a comment) reject no line that the phrase
// rules accept, over the phrasings the marker tests use, each in other
// cases, spacings and comment styles, and over every line of this
// module's Go sources and the elision test data; they do reject most
// lines of code.
func TestIsMarkerLine_QuickTestsLoseNothing(t *testing.T) {
	phrasings := []string{"... existing code ...", "...existing code...", "… rest of the code …", "rest of the code remains the same",
		"... (unchanged) ...", "keep existing code", "[...]", "…", "...", "... 2 lines omitted ...", "(12 more lines)", ". . .",
		"existing code here", "rest of the function unchanged", "... other code ...", "(unchanged)", "remainder of the file",
		"the rest  of   the code", "same as before", "remains as is", "as   before", "not  shown for brevity", "snip", "truncated",
		"skipped", "untouched", "intact", "elided", "omitted", "remaining methods", "other fields here", "s\u212aipped", "\u0130ntact"}
	var lines []string
	for _, p := range phrasings {
		for _, v := range []string{p, strings.ToUpper(p), strings.Title(p)} { //nolint:staticcheck // the cases agents write
			for _, f := range []string{"// %s", "# %s", "/* %s */", "<!-- %s -->", "-- %s", "; %s", "%s", "\t//\t%s"} {
				lines = append(lines, strings.Replace(f, "%s", v, 1))
			}
		}
	}
	files, _ := filepath.Glob("*.go")
	more, _ := filepath.Glob("../testdata/elide/*")
	for _, f := range append(files, more...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(b), "\n")...)
	}
	accepted, rejected := 0, 0
	for _, l := range lines {
		key := strings.TrimSpace(l)
		for _, kind := range []markerKind{kindCode, kindProse} {
			if key == "" || len(key) > 160 {
				continue
			}
			in, comment := uncomment(key, kind)
			// the rules before the quick tests: bare text needs a '.' or '…'
			want := false
			if comment || strings.IndexByte(key, '.') >= 0 || strings.Contains(key, "…") {
				want, _ = phraseMarker(in, comment)
			}
			if got, _ := isMarkerLine(key, kind); got != want {
				t.Errorf("%q (kind %d): isMarkerLine %v, the phrase rules %v", key, kind, got, want)
			}
			if want {
				accepted++
			} else if ellipsis := hasEllipsis(in); !comment && !ellipsis || !ellipsis && !mayMentionElision(in) {
				rejected++
			}
		}
	}
	if accepted < len(phrasings) || rejected < len(lines)/2 {
		t.Fatalf("%d lines, each of two kinds: %d markers, %d rejected by the quick tests", len(lines), accepted, rejected)
	}
	t.Logf("%d lines, each of two kinds: %d markers, %d rejected by the quick tests", len(lines), accepted, rejected)
}

// TestCannotMark_OnlyLinesIsMarkerLineRefuses: every line cannotMark passes
// over — in a text with an ellipsis somewhere (ellipses) or with none (then
// the line has none either) — is one isMarkerLine refuses for every kind of
// code: markerLines' quick path skips no marker. Lines are made of blanks
// (ASCII and Unicode), comment openers, ellipses, elision words and code.
func TestCannotMark_OnlyLinesIsMarkerLineRefuses(t *testing.T) {
	parts := []string{"", " ", "\t", "\u00a0", "\u2003", "\v", "//", "/*", "*/", "#", "--", ";", "%", "<!--", "-->", "{/*", "(*",
		"...", "…", ". . .", "existing code", "rest of", "unchanged", "x := 1", "foo()", "*", "'", "\"", "}", "é", "\r", "\n"}
	rng := rand.New(rand.NewPCG(5, 6))
	skipped, checked := 0, 0
	for i := 0; i < 200000; i++ {
		var b strings.Builder
		for n := 1 + rng.IntN(5); n > 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		l := b.String()
		for _, ellipses := range []bool{true, false} {
			if !ellipses && hasEllipsis(l) {
				continue // a text without an ellipsis has no such line
			}
			if !cannotMark(l, ellipses) {
				continue
			}
			skipped++
			for _, kind := range []markerKind{kindCode, kindPython, kindYAML} {
				checked++
				if ok, _ := isMarkerLine(strings.TrimSpace(l), kind); ok {
					t.Fatalf("cannotMark(%q, %v) passes over a line isMarkerLine takes (kind %d)", l, ellipses, kind)
				}
			}
		}
	}
	if skipped < 10000 {
		t.Fatalf("only %d lines passed over: the test reaches too little", skipped)
	}
}

// TestCannotPhrase_OnlyWhatPhraseRestRefuses: every phrase cannotPhrase
// refuses (without lowering it) is one phraseRest refuses, for every
// ellipsis and comment setting: phraseMarker's quick refusal drops no
// marker. Phrases are made of elision words, code, Unicode spaces, runes
// that lower to several (İ) or have case without being letters (Ⓐ, Ⅻ).
func TestCannotPhrase_OnlyWhatPhraseRestRefuses(t *testing.T) {
	parts := []string{" ", "\t", "\u00a0", "existing", "code", "rest", "of", "the", "unchanged", "lines", "omitted", "12",
		"İ", "Ⓐ", "Ⅻ", "\\", "=", "x := 1", "\"", "’", "-", "(", ")", ",", ".", ":", "/", "_", "é", "\xff", "`", "*", "{"}
	rng := rand.New(rand.NewPCG(7, 8))
	refused := 0
	for i := 0; i < 200000; i++ {
		var b strings.Builder
		for n := 1 + rng.IntN(14); n > 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
			if rng.IntN(2) == 0 {
				b.WriteString(" ")
			}
		}
		phrase := b.String()
		if !cannotPhrase(phrase) {
			continue
		}
		refused++
		for _, c := range [][3]bool{{false, false, false}, {true, false, false}, {false, true, true}, {true, true, true}, {false, false, true}} {
			if ok, _ := phraseRest(phrase, c[0], c[1], c[2]); ok {
				t.Fatalf("cannotPhrase(%q) refuses a phrase phraseRest takes (lead %v, trail %v, comment %v)", phrase, c[0], c[1], c[2])
			}
		}
	}
	if refused < 20000 {
		t.Fatalf("only %d phrases refused: the test reaches too little", refused)
	}
}
