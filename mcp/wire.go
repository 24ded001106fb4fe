package mcp

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mark3labs/mcp-go/server"
)

// The wire: long string arguments are decoded once, where they arrive.
//
// mcp-go decodes a tools/call message about eight times over before a
// handler sees it (the stdio reader, three probes for responses, the method
// probe, HandleMessage's envelope, the request, CallToolParams into a map),
// and our handler decoded and re-encoded it twice more; on a 1 MB file write
// that was ~60 % of the server's CPU. lighten decodes every string value of
// a known tool's arguments that is at least spillMin bytes long into a
// buffer of its own, in one pass over it where the message was read
// (unquoter), and hands mcp-go the message with those values replaced by
// short placeholders, checked with a JSON tokenizer (jsontext): everything mcp-go does to the message is then done
// to a few hundred bytes. The tool handler claims the placeholders it finds
// (claim) and puts the decoded values back into its typed input (fill) — the
// same strings, decoded by a JSON decoder that follows the same RFC.
//
// A placeholder names a random per-process nonce and a counter, so a client
// cannot forge one, and is claimed once: a string that merely looks like one
// is an ordinary string. A message that does not parse, is not a tools/call
// of one of our tools, or has nothing long is passed on unchanged, so
// mcp-go's own errors and behaviour are untouched.

// spillMin is the length of a string argument's JSON text from which lighten
// decodes it at the transport.
const spillMin = 8 << 10

// spillTTL bounds how long an unclaimed value is kept (a message that never
// reached its handler).
const spillTTL = 10 * time.Minute

// spills holds decoded long arguments between the transport and the handler.
type spills struct {
	min    int    // spillMin; smaller in tests
	prefix string // "journal-spill:<nonce>:"
	mu     sync.Mutex
	n      uint64
	m      map[string]spilled
}

type spilled struct {
	data string
	at   time.Time
}

func newSpills() *spills {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("mcp: no randomness for the spill nonce: %v", err))
	}
	return &spills{min: spillMin, prefix: "journal-spill:" + hex.EncodeToString(b[:]) + ":", m: map[string]spilled{}}
}

// reserve returns n new placeholders, not yet holding values (see keep).
func (sp *spills) reserve(n int) []string {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	keys := make([]string, n)
	for i := range keys {
		sp.n++
		keys[i] = sp.prefix + strconv.FormatUint(sp.n, 10)
	}
	return keys
}

// keep stores data[i] under keys[i] (placeholders from reserve) until a
// handler claims them, and drops values left unclaimed past spillTTL.
func (sp *spills) keep(keys, data []string) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	now := time.Now()
	for k, v := range sp.m {
		if now.Sub(v.at) > spillTTL {
			delete(sp.m, k)
		}
	}
	for i, k := range keys {
		sp.m[k] = spilled{data: data[i], at: now}
	}
}

// claim takes the values whose placeholders occur in raw (a tool call's
// arguments as mcp-go kept them) out of the store. It returns nil when there
// are none.
func (sp *spills) claim(raw []byte) map[string]string {
	pre := []byte(sp.prefix)
	if !bytes.Contains(raw, pre) {
		return nil
	}
	var got map[string]string
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for rest := raw; ; {
		i := bytes.Index(rest, pre)
		if i < 0 {
			break
		}
		j := i + len(pre)
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		key := string(rest[i:j])
		if v, ok := sp.m[key]; ok {
			if got == nil {
				got = map[string]string{}
			}
			got[key] = v.data
			delete(sp.m, key)
		}
		rest = rest[j:]
	}
	return got
}

// lighten returns the message msg holds with the long string values of a
// tools/call's arguments replaced by placeholders, and true; or nil and false
// when msg is not a call of one of tools, does not parse, or has no long
// string (the message is then passed on as it is).
//
// It reads a long string once, where it lies (msg is the blocks the message
// was read in, never joined): a first pass finds the message's strings (in
// JSON, a '"' outside a string opens one); each long one is then decoded
// into a buffer of its raw length in a single pass that checks it as
// jsontext would (unquoter), and the light message is built with a
// placeholder in its place. jsontext walks only that light message — a few
// hundred bytes — to check it is valid JSON, a tools/call of one of tools,
// with every placeholder a string value inside the arguments. Replacing one
// valid string token by another keeps a message's validity and structure,
// so the light message passes exactly when the message itself would have,
// and decodes to the same arguments once the placeholders are filled back.
func (sp *spills) lighten(msg *message, tools map[string]bool) ([]byte, bool) {
	if msg.len() < sp.min {
		return nil, false
	}
	segs := msg.segments()
	type span struct{ start, end int } // a long string, quotes included, by offset in the message
	var spans []span
	jsonStrings(segs, func(start, end int) {
		if end-start >= sp.min {
			spans = append(spans, span{start, end})
		}
	})
	if len(spans) == 0 {
		return nil, false
	}
	data := make([]string, len(spans))
	for k, s := range spans {
		u := unquoter{dst: make([]byte, 0, s.end-s.start-2)}
		ok := true
		within(segs, s.start+1, s.end-1, func(p []byte) { ok = ok && u.feed(p) })
		if !ok || u.nc > 0 {
			return nil, false
		}
		// dst is never written again: it becomes the string without a copy
		data[k] = unsafe.String(unsafe.SliceData(u.dst), len(u.dst))
	}
	keys := sp.reserve(len(spans))
	out := make([]byte, 0, msg.len()-(spans[len(spans)-1].end-spans[0].start)+len(spans)*64+256)
	at := 0
	for k, s := range spans {
		within(segs, at, s.start, func(p []byte) { out = append(out, p...) })
		out = strconv.AppendQuote(out, keys[k])
		at = s.end
	}
	within(segs, at, msg.len(), func(p []byte) { out = append(out, p...) })
	if !inArguments(out, keys, tools) {
		return nil, false
	}
	sp.keep(keys, data)
	return out, true
}

// jsonStrings calls fn with the offsets of every complete string of the
// message segs hold (start at its opening quote, end just past its closing
// one), in order. It looks for quotes only (at memchr speed): a quote inside
// a string is escaped when an odd number of backslashes comes before it.
func jsonStrings(segs [][]byte, fn func(start, end int)) {
	in := false
	start, base := 0, 0
	tail := 0 // backslashes that end the current string's bytes in the segments before this one
	for _, seg := range segs {
		for i := 0; i < len(seg); {
			k := bytes.IndexByte(seg[i:], '"')
			if k < 0 {
				break
			}
			q := i + k
			i = q + 1
			if !in {
				in, start, tail = true, base+q, 0
				continue
			}
			p := q - 1
			for p >= 0 && seg[p] == '\\' {
				p--
			}
			n := q - 1 - p
			if p < 0 {
				n += tail
			}
			if n%2 == 0 {
				in = false
				fn(start, base+i)
			}
		}
		if in {
			p := len(seg) - 1
			for p >= 0 && seg[p] == '\\' {
				p--
			}
			if p >= 0 {
				tail = 0
			}
			tail += len(seg) - 1 - p
		}
		base += len(seg)
	}
}

// within calls fn with the pieces of segs that hold bytes [from,to) of the
// message, in order.
func within(segs [][]byte, from, to int, fn func(p []byte)) {
	base := 0
	for _, seg := range segs {
		if from < base+len(seg) && to > base {
			fn(seg[max(from-base, 0):min(to-base, len(seg))])
		}
		base += len(seg)
		if base >= to {
			return
		}
	}
}

// inArguments reports whether light is one valid JSON object, a tools/call
// of one of tools, in whose arguments every key of keys is a string value,
// once each (and nowhere else).
func inArguments(light []byte, keys []string, tools map[string]bool) bool {
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	found := 0
	var method, name string
	dec := jsontext.NewDecoder(bytes.NewBuffer(light))
	// value walks one value of the arguments, counting placeholders.
	var value func() error
	value = func() error {
		switch dec.PeekKind() {
		case '"':
			t, err := dec.ReadToken()
			if err != nil {
				return err
			}
			if s := t.String(); want[s] {
				delete(want, s)
				found++
			}
			return nil
		case '{', '[':
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			for dec.PeekKind() != '}' && dec.PeekKind() != ']' {
				if dec.PeekKind() == 0 {
					return errors.New("truncated")
				}
				if k, _ := dec.StackIndex(dec.StackDepth()); k == '{' {
					if _, err := dec.ReadToken(); err != nil { // member name
						return err
					}
				}
				if err := value(); err != nil {
					return err
				}
			}
			_, err := dec.ReadToken()
			return err
		default:
			return dec.SkipValue()
		}
	}
	// members reads the members of the object whose '{' is next, calling
	// fn for each name with the decoder before the member's value; fn must
	// consume the value.
	members := func(fn func(name string) error) error {
		if dec.PeekKind() != '{' {
			return errors.New("not an object")
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for dec.PeekKind() == '"' {
			t, err := dec.ReadToken()
			if err != nil {
				return err
			}
			if err := fn(t.String()); err != nil {
				return err
			}
		}
		_, err := dec.ReadToken()
		return err
	}
	str := func(into *string) error {
		if dec.PeekKind() != '"' {
			return dec.SkipValue()
		}
		t, err := dec.ReadToken()
		*into = t.String()
		return err
	}
	err := members(func(k string) error {
		switch k {
		case "method":
			return str(&method)
		case "params":
			if dec.PeekKind() != '{' {
				return dec.SkipValue()
			}
			return members(func(k string) error {
				switch k {
				case "name":
					return str(&name)
				case "arguments":
					return value()
				}
				return dec.SkipValue()
			})
		}
		return dec.SkipValue()
	})
	if err != nil || found != len(keys) || method != "tools/call" || !tools[name] {
		return false
	}
	_, err = dec.ReadToken() // trailing data: leave it to mcp-go
	return err == io.EOF
}

// unquoter decodes the body of a JSON string (the bytes between its
// quotes) fed in pieces, checking it as jsontext does: no raw quote or
// control byte, well-formed escapes, surrogate escapes paired, valid UTF-8.
// Plain ASCII is skipped eight bytes at a time and copied by runs between
// escapes. An escape or a UTF-8 sequence cut by the end of a piece is kept
// (carry) until the next completes it; a body is valid when every feed
// returned true and nothing is left in carry.
type unquoter struct {
	dst   []byte
	carry [12]byte // a cut unit: shorter than the longest one (a surrogate pair's 12 bytes)
	nc    int
}

// feed decodes p, or returns false if the body is not valid.
func (u *unquoter) feed(p []byte) bool {
	if u.nc > 0 {
		var buf [24]byte
		k := min(len(p), len(u.carry))
		tmp := append(append(buf[:0], u.carry[:u.nc]...), p[:k]...)
		n, ok := u.step(tmp)
		if !ok {
			return false
		}
		if n < u.nc { // still cut: p is shorter than what the unit lacks
			u.nc = copy(u.carry[:], tmp)
			return u.nc == len(tmp)
		}
		p, u.nc = p[n-u.nc:], 0
	}
	n, ok := u.step(p)
	if !ok || len(p)-n > len(u.carry) {
		return false
	}
	u.nc = copy(u.carry[:], p[n:])
	return true
}

// step decodes src onto u.dst up to a unit cut by its end, and returns the
// bytes it took; false if src holds something invalid.
func (u *unquoter) step(src []byte) (int, bool) {
	dst := u.dst // a local: kept in a register, not reloaded through u
	defer func() { u.dst = dst }()
	run, i := 0, 0 // src[run:i] is checked, not yet copied
	for {
		for i+8 <= len(src) {
			if m := special(binary.LittleEndian.Uint64(src[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < len(src) && i+8 > len(src) && plain(src[i]) {
			i++
		}
		if i >= len(src) {
			dst = append(dst, src[run:]...)
			return len(src), true
		}
		switch c := src[i]; {
		case c >= utf8.RuneSelf:
			if c >= 0xc2 && c <= 0xdf && i+1 < len(src) && src[i+1]&0xc0 == 0x80 { // two bytes: Latin, Greek, Cyrillic…
				i += 2
				continue
			}
			if !utf8.FullRune(src[i:]) {
				dst = append(dst, src[run:i]...)
				return i, true
			}
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n == 1 {
				return 0, false
			}
			i += n
		case c == '\\':
			dst = append(dst, src[run:i]...)
			if escapeCut(src[i:]) {
				return i, true
			}
			var n int
			if dst, n = appendEscape(dst, src[i:]); n == 0 {
				return 0, false
			}
			i += n
			run = i
		default: // a raw quote or control byte
			return 0, false
		}
	}
}

// escapeCut reports whether the escape src starts with needs bytes past the
// end of src to be read: its letter, its four hexadecimal digits, or a
// surrogate's pair.
func escapeCut(src []byte) bool {
	switch {
	case len(src) < 2:
		return true
	case src[1] != 'u':
		return false
	case len(src) < 6:
		return true
	}
	r, ok := hex4(src[2:])
	return ok && utf16.IsSurrogate(r) && len(src) < 12
}

// plain reports whether c stands for itself in a JSON string and is ASCII.
func plain(c byte) bool { return c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf }

// special has the high bit set in (at least) the lowest byte of w that is
// not plain; where the lowest is flagged, it is not plain (the borrows of
// the zero-byte tests only flag bytes above a true one).
func special(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := w ^ (ones * '"')
	b := w ^ (ones * '\\')
	return ((q-ones)&^q | (b-ones)&^b | (w-ones*0x20)&^w | w) & highs
}

// appendEscape appends the value of the escape src starts with (a backslash and
// what follows) to dst and returns the bytes it took, or 0 if it is not a
// valid escape (a surrogate escape is valid only with its pair).
func appendEscape(dst, src []byte) ([]byte, int) {
	if len(src) < 2 {
		return dst, 0
	}
	switch c := src[1]; c {
	case '"', '\\', '/':
		return append(dst, c), 2
	case 'b':
		return append(dst, '\b'), 2
	case 'f':
		return append(dst, '\f'), 2
	case 'n':
		return append(dst, '\n'), 2
	case 'r':
		return append(dst, '\r'), 2
	case 't':
		return append(dst, '\t'), 2
	case 'u':
		r, ok := hex4(src[2:])
		if !ok {
			return dst, 0
		}
		if !utf16.IsSurrogate(r) {
			return utf8.AppendRune(dst, r), 6
		}
		rest := src[6:] // the pair's second half follows
		if len(rest) < 6 || rest[0] != '\\' || rest[1] != 'u' {
			return dst, 0
		}
		r2, ok := hex4(rest[2:])
		if r = utf16.DecodeRune(r, r2); !ok || r == utf8.RuneError {
			return dst, 0
		}
		return utf8.AppendRune(dst, r), 12
	}
	return dst, 0
}

// hex4 parses the four hexadecimal digits b starts with.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// fill replaces every string in *in (a decoded tool input) that is a claimed
// placeholder by its value.
func fill(in any, got map[string]string) {
	if len(got) == 0 {
		return
	}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			if data, ok := got[v.String()]; ok && v.CanSet() {
				v.SetString(data)
			}
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				return
			}
			if v.Kind() == reflect.Interface {
				e := v.Elem()
				if e.Kind() == reflect.String {
					if data, ok := got[e.String()]; ok && v.CanSet() {
						v.Set(reflect.ValueOf(data))
					}
					return
				}
				walk(e)
				return
			}
			walk(v.Elem())
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			for _, k := range v.MapKeys() {
				e := v.MapIndex(k)
				if e.Kind() == reflect.Interface && !e.IsNil() {
					e = e.Elem()
				}
				if e.Kind() == reflect.String {
					if data, ok := got[e.String()]; ok {
						v.SetMapIndex(k, reflect.ValueOf(data).Convert(v.Type().Elem()))
					}
					continue
				}
				if e.Kind() == reflect.Map || e.Kind() == reflect.Slice || e.Kind() == reflect.Pointer {
					walk(e)
				}
			}
		}
	}
	walk(reflect.ValueOf(in))
}

// ServeStdio serves MCP on in and out (newline-delimited JSON-RPC) until in
// ends or ctx is done: mcp-go's stdio transport, fed through lighten.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(s.feed(in, pw))
	}()
	defer pr.Close()
	return server.NewStdioServer(s.srv).Listen(ctx, pr, out)
}

// feed copies newline-delimited messages from in to w, lightened.
func (s *Server) feed(in io.Reader, w io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var line message
	for {
		err := readMessage(r, &line)
		if line.len() > 0 {
			if werr := s.pass(&line, w); werr != nil {
				return werr
			}
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// readMessage reads r's next newline-delimited message into m (emptied
// first), block by block. err is ReadSlice's at the message's end: io.EOF
// after a last message without its newline (or none); another error leaves
// in m what was read of a message cut short.
func readMessage(r *bufio.Reader, m *message) error {
	m.reset()
	for {
		chunk, err := r.ReadSlice('\n')
		m.add(chunk)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// pass writes the message m holds to w, lightened if lighten takes it, else
// as it came, block by block.
func (s *Server) pass(m *message, w io.Writer) error {
	if light, ok := s.spill.lighten(m, s.toolNames); ok {
		_, err := w.Write(light)
		return err
	}
	for _, seg := range m.segments() {
		if _, err := w.Write(seg); err != nil {
			return err
		}
	}
	return nil
}

// message gathers a message as it is read: in one buffer while it is short,
// then in blocks of messageBlock bytes, never joined (lighten reads them in
// place). Doubling one buffer allocated and copied about three times a long
// message's size, and joining blocks once more its size, in memmoves the
// garbage collector cannot preempt.
type message struct {
	buf    []byte   // a short message, or the block being filled
	blocks [][]byte // full blocks before buf
	n      int      // bytes in blocks
	block  int      // the block size; messageBlock if 0 (smaller in tests)
}

const messageBlock = 1 << 20

func (m *message) add(p []byte) {
	block := m.block
	if block == 0 {
		block = messageBlock
	}
	for len(p) > 0 {
		if len(m.buf) == cap(m.buf) {
			if len(m.buf) < block {
				m.buf = slices.Grow(m.buf, min(len(p), block-len(m.buf))) // short: grown as append does
			} else {
				m.blocks = append(m.blocks, m.buf)
				m.n += len(m.buf)
				m.buf = make([]byte, 0, block)
			}
		}
		k := copy(m.buf[len(m.buf):cap(m.buf)], p)
		m.buf, p = m.buf[:len(m.buf)+k], p[k:]
	}
}

// len is the message's length so far.
func (m *message) len() int { return m.n + len(m.buf) }

// segments returns the message's bytes, in order (valid until reset).
func (m *message) segments() [][]byte {
	return append(m.blocks[:len(m.blocks):len(m.blocks)], m.buf)
}

// reset empties m for the next message, keeping a short buffer.
func (m *message) reset() {
	if cap(m.buf) >= messageBlock {
		m.buf = nil // do not keep a large message's buffer
	}
	m.buf, m.blocks, m.n = m.buf[:0], nil, 0
}

// Lighten wraps an HTTP handler of the Streamable HTTP transport: a POSTed
// JSON-RPC message is lightened before mcp-go reads it.
func (s *Server) Lighten(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil || (r.ContentLength >= 0 && r.ContentLength < spillMin) {
			next.ServeHTTP(w, r)
			return
		}
		var body message
		buf := make([]byte, 64<<10)
		for {
			n, err := r.Body.Read(buf)
			body.add(buf[:n])
			if err == io.EOF {
				break
			}
			if err != nil {
				r.Body.Close()
				http.Error(w, fmt.Sprintf("reading the request body: %v", err), http.StatusBadRequest)
				return
			}
		}
		r.Body.Close()
		var rd io.Reader
		if light, ok := s.spill.lighten(&body, s.toolNames); ok {
			rd = bytes.NewReader(light)
			r.ContentLength = int64(len(light))
		} else {
			segs := body.segments()
			rds := make([]io.Reader, len(segs))
			for i, seg := range segs {
				rds[i] = bytes.NewReader(seg)
			}
			rd = io.MultiReader(rds...)
			r.ContentLength = int64(body.len())
		}
		r.Body = io.NopCloser(rd)
		next.ServeHTTP(w, r)
	})
}
