package ops_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/journalfs/journal/ops"
)

var sentinels = []error{ops.ErrInvalidInput, ops.ErrFileNotFound, ops.ErrFileExists, ops.ErrNoMatch,
	ops.ErrAmbiguousMatch, ops.ErrOverlap, ops.ErrBinary}

// FuzzDecodeEncode checks the round-trip property: whatever Decode accepts,
// Encode gives back byte for byte, and line bookkeeping is consistent.
func FuzzDecodeEncode(f *testing.F) {
	for _, s := range [][]byte{nil, []byte("a\r\nb\rc\n"), []byte("\xEF\xBB\xBFx"), utf16le("hi\r\n", true),
		utf16be("hi\n", false), []byte("caf\xe9"), {0xFF, 0xFE, 0x00}, []byte("\x00\x00")} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := ops.Decode(raw)
		if err != nil {
			if !errors.Is(err, ops.ErrBinary) {
				t.Fatalf("Decode error %v does not wrap ErrBinary", err)
			}
			return
		}
		if got := d.Encode(); !bytes.Equal(got, raw) {
			t.Fatalf("round trip %v: got %q, want %q", d.Encoding, got, raw)
		}
		var text string
		for n := 1; n <= d.LineCount(); n++ {
			text += d.Line(n) + d.EOL(n)
		}
		if text != d.Text() {
			t.Fatalf("lines join to %q, text is %q", text, d.Text())
		}
	})
}

// FuzzApplyBatch drives every op kind with arbitrary coordinates over an
// arbitrary file: ApplyBatch must not panic, must fail only with a
// *BatchError of sentinels, and on success must produce files that decode.
func FuzzApplyBatch(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), uint8(0), int8(1), int8(0), int8(2), int8(-1), "x\n")
	f.Add([]byte("a\r\nb"), uint8(3), int8(1), int8(-1), int8(2), int8(1), "")
	f.Add([]byte(""), uint8(4), int8(1), int8(0), int8(1), int8(0), "z")
	f.Add(utf16le("é\n", true), uint8(2), int8(1), int8(1), int8(1), int8(0), "€")
	f.Fuzz(func(t *testing.T, raw []byte, kind uint8, a, b, c, d int8, text string) {
		files := files{"f": string(raw), "g": "1\n2\n"}
		l1, c1, l2, c2 := int(a), int(b), int(c), int(d)
		var op ops.Op
		switch kind % 7 {
		case 0:
			op = ops.InsertOp{Path: "f", At: []string{"bof", "eof", "before_line", "after_line"}[uint(c2)%4], Line: &l1, Content: text}
		case 1:
			op = ops.InsertOp{Path: "f", At: "after_line", Line: &l1, Col: &c1, Content: text}
		case 2:
			op = ops.ReplaceOp{Path: "f", StartLine: &l1, StartCol: &c1, EndLine: &l2, EndCol: &c2, Content: text}
		case 3:
			op = ops.ReplaceOp{Path: "f", StartLine: &l1, EndLine: &l2, Content: text, TargetLineText: text}
		case 4:
			op = ops.CopyPasteOp{SourcePath: "f", SourceStartLine: l1, SourceEndLine: l2, TargetPath: "f", TargetLine: c2}
		case 5:
			op = ops.MoveOp{SourcePath: "f", SourceStartLine: l1, SourceStartCol: &c1, SourceEndLine: l2, TargetPath: "g", TargetLine: c2, TargetCol: &c1}
		case 6:
			op = ops.MoveOp{SourcePath: "f", SourceStartLine: l1, SourceEndLine: l2, TargetPath: "f", TargetLine: c2}
		}
		second := ops.InsertOp{Path: "f", At: "before_line", Line: &l2, Content: "y"}
		out, err := ops.ApplyBatch([]ops.Op{op, second}, files.load)
		if err != nil {
			var be *ops.BatchError
			if !errors.As(err, &be) || len(be.Failed) == 0 {
				t.Fatalf("error %T %v is not a *BatchError", err, err)
			}
			for _, e := range be.Failed {
				if !wrapsSentinel(e) {
					t.Fatalf("failure %v wraps no sentinel", e)
				}
			}
			return
		}
		for p, r := range out.Files {
			if _, err := ops.Decode(r.New); err != nil && p == "g" {
				t.Fatalf("%s no longer decodes: %v", p, err)
			}
		}
	})
}

func wrapsSentinel(err error) bool {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}
