package ops_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/journalfs/journal/ops"
)

func utf16le(s string, bom bool) []byte {
	var out []byte
	if bom {
		out = append(out, 0xFF, 0xFE)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

func utf16be(s string, bom bool) []byte {
	var out []byte
	if bom {
		out = append(out, 0xFE, 0xFF)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u>>8), byte(u))
	}
	return out
}

func TestDecode_Detection(t *testing.T) {
	tests := []struct {
		name    string
		raw     []byte
		enc     ops.Encoding
		bom     bool
		text    string
		lines   int
		eol     string
		finalNL bool
	}{
		{"empty", nil, ops.UTF8, false, "", 0, ops.LF, false},
		{"lf", []byte("a\nb\n"), ops.UTF8, false, "a\nb\n", 2, ops.LF, true},
		{"crlf", []byte("a\r\nb\r\n"), ops.UTF8, false, "a\r\nb\r\n", 2, ops.CRLF, true},
		{"cr", []byte("a\rb\r"), ops.UTF8, false, "a\rb\r", 2, ops.CR, true},
		{"mixed crlf wins", []byte("a\nb\r\nc\r\n"), ops.UTF8, false, "a\nb\r\nc\r\n", 3, ops.CRLF, true},
		{"tie goes to first", []byte("a\r\nb\n"), ops.UTF8, false, "a\r\nb\n", 2, ops.CRLF, true},
		{"no final newline", []byte("a\nb"), ops.UTF8, false, "a\nb", 2, ops.LF, false},
		{"blank lines", []byte("\n\n"), ops.UTF8, false, "\n\n", 2, ops.LF, true},
		{"tabs", []byte("\tx\n"), ops.UTF8, false, "\tx\n", 1, ops.LF, true},
		{"utf8 bom", []byte("\xEF\xBB\xBFhé\n"), ops.UTF8, true, "hé\n", 1, ops.LF, true},
		{"utf16le bom", utf16le("hé\r\nx", true), ops.UTF16LE, true, "hé\r\nx", 2, ops.CRLF, false},
		{"utf16be bom", utf16be("a€\n", true), ops.UTF16BE, true, "a€\n", 1, ops.LF, true},
		{"utf16le no bom", utf16le("hello\nworld\n", false), ops.UTF16LE, false, "hello\nworld\n", 2, ops.LF, true},
		{"utf16be no bom", utf16be("hello\n", false), ops.UTF16BE, false, "hello\n", 1, ops.LF, true},
		{"latin1", []byte("caf\xe9\n"), ops.Latin1, false, "café\n", 1, ops.LF, true},
		{"utf8 bom then latin1", []byte("\xEF\xBB\xBFcaf\xe9"), ops.Latin1, false, "ï»¿café", 1, ops.LF, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ops.Decode(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			if d.Encoding != tt.enc || d.BOM != tt.bom {
				t.Errorf("encoding %v bom %v, want %v %v", d.Encoding, d.BOM, tt.enc, tt.bom)
			}
			if d.Text() != tt.text {
				t.Errorf("text %q, want %q", d.Text(), tt.text)
			}
			if d.LineCount() != tt.lines {
				t.Errorf("lines %d, want %d", d.LineCount(), tt.lines)
			}
			if d.DominantEOL() != tt.eol {
				t.Errorf("eol %q, want %q", d.DominantEOL(), tt.eol)
			}
			if d.HasFinalNewline() != tt.finalNL {
				t.Errorf("final newline %v, want %v", d.HasFinalNewline(), tt.finalNL)
			}
			if got := d.Encode(); !bytes.Equal(got, tt.raw) {
				t.Errorf("round trip: %q, want %q", got, tt.raw)
			}
		})
	}
}

func TestDecode_Binary(t *testing.T) {
	for name, raw := range map[string][]byte{
		"nul":                  []byte("ab\x00cd\nef"),
		"png header":           {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D},
		"controls":             bytes.Repeat([]byte{0x01, 0x02, 0x80, 'a'}, 100),
		"utf16 odd length":     append(utf16le("ab", true), 'x'),
		"utf16 lone surrogate": {0xFF, 0xFE, 0x00, 0xD8, 'a', 0},
		"utf8 bom with nul":    []byte("\xEF\xBB\xBFa\x00b"),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ops.Decode(raw)
			if !errors.Is(err, ops.ErrBinary) {
				t.Fatalf("err = %v, want ErrBinary", err)
			}
		})
	}
}

func TestDoc_LinesAndOffsets(t *testing.T) {
	d, _ := ops.Decode([]byte("héllo\r\n\tworld\nlast"))
	if got := d.Line(1); got != "héllo" {
		t.Errorf("Line(1) = %q", got)
	}
	if got := d.EOL(1); got != ops.CRLF {
		t.Errorf("EOL(1) = %q", got)
	}
	if got := d.EOL(3); got != "" {
		t.Errorf("EOL(3) = %q", got)
	}
	if d.Line(0) != "" || d.Line(4) != "" {
		t.Error("out of range lines should be empty")
	}
	for _, c := range []struct{ line, col, off int }{
		{1, 0, 0}, {1, 2, 3}, {1, -1, 6}, {1, 5, 6}, {2, 1, 9}, {3, -1, 19},
	} {
		off, err := d.Offset(c.line, c.col)
		if err != nil || off != c.off {
			t.Errorf("Offset(%d,%d) = %d, %v; want %d", c.line, c.col, off, err, c.off)
		}
	}
	for _, c := range [][2]int{{0, 0}, {4, 0}, {1, 6}, {1, -2}} {
		if _, err := d.Offset(c[0], c[1]); !errors.Is(err, ops.ErrInvalidInput) {
			t.Errorf("Offset(%d,%d): err = %v, want ErrInvalidInput", c[0], c[1], err)
		}
	}
	if got := d.LineAt(0); got != 1 {
		t.Errorf("LineAt(0) = %d", got)
	}
	if got := d.LineAt(8); got != 2 {
		t.Errorf("LineAt(8) = %d", got)
	}
	if got := d.LineAt(1000); got != 3 {
		t.Errorf("LineAt(1000) = %d", got)
	}
}

func TestDoc_HugeLine(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	raw := []byte("a\n" + long + "\nb\n")
	d, err := ops.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if d.LineCount() != 3 || len(d.Line(2)) != 1<<20 {
		t.Fatalf("lines %d, len %d", d.LineCount(), len(d.Line(2)))
	}
	if !bytes.Equal(d.Encode(), raw) {
		t.Fatal("round trip failed")
	}
}

func TestContext(t *testing.T) {
	d, _ := ops.Decode([]byte("1\n2\n3\n4\n5\n6\n7\n"))
	got := strings.Join(ops.Context(d, 4, 4, 2), "|")
	if got != "2: 2|3: 3|4: 4|5: 5|6: 6" {
		t.Errorf("middle: %s", got)
	}
	got = strings.Join(ops.Context(d, 1, 2, 2), "|")
	if got != "1: 1|2: 2|3: 3|4: 4" {
		t.Errorf("top: %s", got)
	}
	got = strings.Join(ops.Context(d, 7, 7, 2), "|")
	if got != "5: 5|6: 6|7: 7" {
		t.Errorf("bottom: %s", got)
	}
	empty, _ := ops.Decode(nil)
	if c := ops.Context(empty, 1, 1, 2); c != nil {
		t.Errorf("empty: %v", c)
	}
}

func TestDiff(t *testing.T) {
	if got := ops.Diff("a/x", "b/x", []byte("a\n"), []byte("a\n")); got != "" {
		t.Errorf("equal: %q", got)
	}
	got := ops.Diff("a/x", "b/x", utf16le("one\ntwo\n", true), utf16le("one\n2\n", true))
	for _, want := range []string{"--- a/x", "+++ b/x", "-two", "+2"} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
}

func TestLocateLine(t *testing.T) {
	lines := make([]string, 24)
	for i := range lines {
		lines[i] = fmt.Sprintf("l%d", i+1)
	}
	lines[2], lines[10] = "  target  ", "target"
	d, _ := ops.Decode([]byte(strings.Join(lines, "\n") + "\n"))
	tests := []struct {
		line int
		want int
		err  error
	}{
		{3, 3, nil},
		{1, 3, nil},                   // 2 away, no other within 8
		{13, 11, nil},                 // likewise
		{5, 0, ops.ErrAmbiguousMatch}, // 3 is 2 away, but 11 is not far: a generic line
		{7, 0, ops.ErrNoMatch},        // none within 2: the lines that have it are listed
	}
	for _, tt := range tests {
		got, err := ops.LocateLine(d, tt.line, "target")
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("LocateLine(%d) = %d, %v; want %d, %v", tt.line, got, err, tt.want, tt.err)
		}
	}
	_, err := ops.LocateLine(d, 7, "target")
	var e *ops.Error
	if !errors.As(err, &e) || len(e.Candidates) != 2 || e.Candidates[0].Line != 3 && e.Candidates[0].Line != 11 {
		t.Errorf("moved: %+v", e)
	}
	_, err = ops.LocateLine(d, 1, "nope")
	if !errors.As(err, &e) || !errors.Is(err, ops.ErrNoMatch) || len(e.Candidates) != 3 {
		t.Errorf("miss: %v", err)
	}
}
