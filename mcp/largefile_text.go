package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/journalfs/journal/ops"
	"github.com/journalfs/journal/ops/match"
	"github.com/journalfs/journal/replay"
)

// mmapLimit is the largest file the large-file tools memory-map (tests lower it).
var mmapLimit int64 = replay.DefaultMmapLimit

// streamThreshold is the size from which the large-file tools read a file in
// place (mapped or streamed), as the engine does (replay.Options).
const streamThreshold = replay.DefaultStreamThreshold

func mmapLimitOrDefault() int64 {
	if mmapLimit <= 0 {
		return replay.DefaultMmapLimit
	}
	return mmapLimit
}

// mib formats a byte count as whole MiB.
func mib(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }

// ltext is a file's text as the large-file tools see it: UTF-8 with the
// original line endings. Small files are decoded (any encoding ops.Decode
// knows); files at or above the stream threshold must be UTF-8 (or ASCII-
// compatible) and are read in place: mapped (data) or streamed (body only).
type ltext struct {
	v    *replay.View
	enc  ops.Encoding
	bom  bool
	data []byte      // the whole text when in memory or mapped; nil when streamed
	body io.ReaderAt // the text, always
	size int64       // bytes of text
	pre  int64       // bytes before the text in the file (a UTF-8 BOM)
	// progress hears of long scans (the line index, searches) and stops
	// them when the call is cancelled (progress.go); nil reports nothing.
	progress *progress
}

// openText classifies a view: binary is refused, large UTF-16 is TOO_LARGE.
func openText(v *replay.View) (*ltext, error) {
	t := &ltext{v: v}
	if v.Strategy == replay.StrategyMemory && bytes.IndexByte(v.Data, 0) < 0 && utf8.Valid(v.Data) {
		// What ops.Decode makes of valid UTF-8 without NULs (a UTF-16 BOM is
		// not valid UTF-8), without its copy of the text and its line table.
		t.enc, t.bom, t.data = ops.UTF8, bytes.HasPrefix(v.Data, utf8BOM), v.Data
		if t.bom {
			t.data, t.pre = v.Data[3:], 3
		}
		t.body, t.size = bytes.NewReader(t.data), int64(len(t.data))
		return t, nil
	}
	if v.Strategy == replay.StrategyMemory {
		d, err := ops.Decode(v.Data)
		if err != nil {
			return nil, err
		}
		t.enc, t.bom = d.Encoding, d.BOM
		switch {
		case d.Encoding == ops.UTF8 && d.BOM:
			t.data, t.pre = v.Data[3:], 3
		case d.Encoding == ops.UTF8:
			t.data = v.Data
		default:
			t.data = []byte(d.Text())
		}
		t.body, t.size = bytes.NewReader(t.data), int64(len(t.data))
		return t, nil
	}
	head := make([]byte, 8<<10)
	n, err := v.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	head = head[:n]
	if i := bytes.LastIndexByte(head, '\n'); i > 0 {
		head = head[:i+1] // do not cut a UTF-8 sequence
	}
	d, err := ops.Decode(head)
	if err != nil {
		return nil, err
	}
	if d.Encoding == ops.UTF16LE || d.Encoding == ops.UTF16BE {
		return nil, fmt.Errorf("%s is %d bytes of %s: the large-file tools read UTF-16 only under %s: %w", v.Path.Rel, v.Size, d.Encoding, mib(streamThreshold), ErrTooLarge)
	}
	t.enc, t.bom = d.Encoding, d.BOM
	if d.BOM {
		t.pre = 3
	}
	t.size = v.Size - t.pre
	if v.Data != nil {
		t.data = v.Data[t.pre:]
		t.body = bytes.NewReader(t.data)
	} else {
		t.body = io.NewSectionReader(v, t.pre, t.size)
	}
	return t, nil
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// edited returns the file's new bytes, edits (in content order) applied to
// its text, for a file in memory: UTF-8 is built in one buffer of the exact
// size (a 50 MB edit allocates 50 MB, not a growing buffer and a copy);
// other encodings are encoded back.
func (t *ltext) edited(edits []match.Edit) []byte {
	n := int(t.pre) + len(t.data)
	for _, e := range edits {
		n += len(e.Replacement) - (e.Match.End - e.Match.Start)
	}
	out := make([]byte, 0, n)
	out = append(out, utf8BOM[:t.pre]...) // pre is a UTF-8 BOM's length or 0
	off := 0
	for _, e := range edits {
		out = append(append(out, t.data[off:e.Match.Start]...), e.Replacement...)
		off = e.Match.End
	}
	out = append(out, t.data[off:]...)
	if t.enc == ops.UTF8 {
		return out
	}
	return ops.NewDoc(string(out), t.enc, t.bom).Encode()
}

// markEvery: the line index keeps the offset of every markEvery-th line.
const markEvery = 256

// longLine is the length above which a line counts as long (seed 004).
const longLine = 1000

// lineIdx is a sparse index of a text's lines, cached by content hash.
type lineIdx struct {
	lines     int     // as ops.Doc counts them: "" → 0, "a" and "a\n" → 1
	marks     []int64 // marks[k]: offset of line k*markEvery+1
	lf, crlf  int     // line endings seen
	long      int     // lines longer than longLine bytes
	maxLen    int
	finalNL   bool
	textBytes int64
}

// index returns the text's line index, from the cache or by one scan.
func (t *ltext) index() (*lineIdx, error) {
	key := t.v.ID.String()
	if li, ok := lineCache.get(key); ok {
		return li, nil
	}
	li := &lineIdx{textBytes: t.size}
	var off int64 // offset of buf[0]
	lineStart := int64(0)
	nl := 0
	prevCR := false
	scan := func(buf []byte) {
		for p := 0; ; {
			i := bytes.IndexByte(buf[p:], '\n')
			if i < 0 {
				if len(buf) > 0 {
					prevCR = buf[len(buf)-1] == '\r'
				}
				break
			}
			end := off + int64(p+i)
			cr := (p+i > 0 && buf[p+i-1] == '\r') || (p+i == 0 && prevCR)
			if cr {
				li.crlf++
			} else {
				li.lf++
			}
			if l := int(end - lineStart); l > li.maxLen {
				li.maxLen = l
			}
			if end-lineStart > longLine {
				li.long++
			}
			if nl%markEvery == 0 {
				li.marks = append(li.marks, lineStart)
			}
			nl++
			lineStart = end + 1
			p += i + 1
		}
		off += int64(len(buf))
	}
	step := func() error {
		if err := t.progress.cancelled(); err != nil {
			return err
		}
		t.progress.report(off, t.size, fmt.Sprintf("indexed %s of %s", humanSize(off), humanSize(t.size)))
		return nil
	}
	if t.data != nil {
		for off < t.size { // in blocks of 4 MiB, for progress and cancellation
			scan(t.data[off:min(off+4<<20, t.size)])
			if err := step(); err != nil {
				return nil, err
			}
		}
	} else {
		buf := make([]byte, 1<<20)
		for off < t.size {
			n, err := t.body.ReadAt(buf[:min(int64(len(buf)), t.size-off)], off)
			if n == 0 && err != nil {
				return nil, err
			}
			scan(buf[:n])
			if err := step(); err != nil {
				return nil, err
			}
		}
	}
	li.lines = nl
	if lineStart < t.size { // a last line without a newline
		if nl%markEvery == 0 {
			li.marks = append(li.marks, lineStart)
		}
		li.lines++
		if l := int(t.size - lineStart); l > li.maxLen {
			li.maxLen = l
		}
		if t.size-lineStart > longLine {
			li.long++
		}
	}
	li.finalNL = t.size > 0 && lineStart == t.size
	lineCache.put(key, li)
	return li, nil
}

// eolName names a text's line endings.
func (li *lineIdx) eolName() string {
	switch {
	case li.lf > 0 && li.crlf > 0:
		return "mixed"
	case li.crlf > 0:
		return "crlf"
	case li.lf > 0:
		return "lf"
	}
	return "none"
}

// lineText is one line read from a text.
type lineText struct {
	n    int
	text string // without its line ending
	cut  int    // bytes left out of a very long line
	col  int    // byte offset in the line where text starts (a long line read on)
}

// maxReadLine: longer lines are cut in reads (the rest is reported).
const maxReadLine = 16 << 10

// lines reads lines from..to (1-based, inclusive) stopping once budget bytes
// of text were read; it returns what it read.
func (t *ltext) lines(li *lineIdx, from, to, budget int) ([]lineText, error) {
	if from < 1 || from > li.lines {
		return nil, nil
	}
	k := (from - 1) / markEvery
	off := li.marks[k]
	n := k*markEvery + 1
	br := bufio.NewReaderSize(io.NewSectionReader(t.body, off, t.size-off), 64<<10)
	var out []lineText
	for n <= to && n <= li.lines {
		raw, cut, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return out, err
		}
		if n >= from {
			out = append(out, lineText{n: n, text: string(raw), cut: cut})
			budget -= len(raw) + 8
			if budget <= 0 {
				break
			}
		}
		n++
		if err != nil {
			break
		}
	}
	return out, nil
}

// readLine reads one line without its ending, keeping at most maxReadLine bytes.
func readLine(br *bufio.Reader) ([]byte, int, error) {
	var line []byte
	cut := 0
	for {
		frag, err := br.ReadSlice('\n')
		room := maxReadLine - len(line)
		if cut == 0 && len(frag) > room {
			room = runeStart(frag, room) // the next read starts on a whole character
		}
		if len(frag) <= room {
			line = append(line, frag...)
		} else {
			line = append(line, frag[:max(room, 0)]...)
			cut += len(frag) - max(room, 0)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if bytes.HasSuffix(line, []byte("\n")) {
			line = line[:len(line)-1]
			if bytes.HasSuffix(line, []byte("\r")) {
				line = line[:len(line)-1]
			}
		} else if cut > 0 && bytes.HasSuffix(frag, []byte("\n")) {
			cut-- // the newline was cut, not text
			if bytes.HasSuffix(frag, []byte("\r\n")) {
				cut--
			}
		}
		return line, cut, err
	}
}

// runeStart moves i back to the start of the UTF-8 character it falls in
// (at most 3 bytes), so b[:i] ends on a whole character.
func runeStart(b []byte, i int) int {
	for k := 0; k < 3 && i > 0 && i < len(b) && b[i]&0xC0 == 0x80; k++ {
		i--
	}
	return i
}

// lineAt reads line n from byte col of it (a long line read on): at most
// limit bytes, cut on a whole character, and how many bytes of the
// line follow them. col is moved back to its character's start; at or past
// the line's end it reads nothing.
func (t *ltext) lineAt(li *lineIdx, n, col, limit int) (lineText, error) {
	if n < 1 || n > li.lines {
		return lineText{}, nil
	}
	k := (n - 1) / markEvery
	off := li.marks[k]
	br := bufio.NewReaderSize(io.NewSectionReader(t.body, off, t.size-off), 64<<10)
	for m := k*markEvery + 1; m < n; { // skip to line n
		frag, err := br.ReadSlice('\n')
		off += int64(len(frag))
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return lineText{}, err // line n exists: no EOF before it
		}
		if err == nil {
			m++
		}
	}
	length, err := t.lineLength(off)
	if err != nil {
		return lineText{}, err
	}
	col = min(max(col, 0), length)
	lo := max(col-3, 0) // up to 3 bytes before col: the start of its character
	buf := make([]byte, min(length-lo, col-lo+limit+1))
	if _, err := t.body.ReadAt(buf, off+int64(lo)); err != nil && !errors.Is(err, io.EOF) {
		return lineText{}, err
	}
	i := runeStart(buf, col-lo)
	col, buf = lo+i, buf[i:]
	if len(buf) > limit {
		buf = buf[:runeStart(buf, limit)]
	}
	return lineText{n: n, text: string(buf), col: col, cut: length - col - len(buf)}, nil
}

// lineLength returns the length of the line starting at off, without its
// line ending.
func (t *ltext) lineLength(off int64) (int, error) {
	end := off
	buf := make([]byte, 64<<10)
	for end < t.size {
		c, err := t.body.ReadAt(buf[:min(int64(len(buf)), t.size-end)], end)
		if c == 0 && err != nil {
			return 0, err
		}
		if i := bytes.IndexByte(buf[:c], '\n'); i >= 0 {
			end += int64(i)
			if i > 0 && buf[i-1] == '\r' {
				end--
			} else if i == 0 && end > off {
				if b := []byte{0}; func() bool { _, err := t.body.ReadAt(b, end-1); return err == nil }() && b[0] == '\r' {
					end--
				}
			}
			return int(end - off), nil
		}
		end += int64(c)
	}
	return int(end - off), nil
}

// tailStart returns the offset of the n-th line from the end, reading
// backwards in blocks (the file is never read as a whole).
func (t *ltext) tailStart(n int) (int64, error) {
	end := t.size
	buf := make([]byte, 64<<10)
	if end > 0 {
		last := make([]byte, 1)
		if _, err := t.body.ReadAt(last, end-1); err == nil && last[0] == '\n' {
			end-- // the final newline ends the last line, it does not start one
		}
	}
	pos, seen := end, 0
	for pos > 0 {
		from := max(pos-int64(len(buf)), 0)
		b := buf[:pos-from]
		if _, err := t.body.ReadAt(b, from); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] == '\n' {
				seen++
				if seen == n {
					return from + int64(i) + 1, nil
				}
			}
		}
		pos = from
	}
	return 0, nil
}
