package mcp

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzLighten: whatever the message, the arguments mcp-go sees after
// lighten, with the placeholders filled back, decode to exactly what the
// message itself decodes to — and a message lighten cannot handle reaches
// mcp-go byte for byte.
func FuzzLighten(f *testing.F) {
	const min = 64 // small values keep the fuzzer fast
	long := strings.Repeat(`a\"\\\n\t\u00e9\ud83d\ude00 `, 3)
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"content":"`+long+`"}}}`), uint8(0))
	f.Add([]byte(`{"params":{"arguments":{"ops":[{"path":"p","content":"`+long+`"},{"content":"`+long+`x"}],"n":1},"name":"t"},"id":"x","method":"tools/call","jsonrpc":"2.0"}`), uint8(2))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":{"b":["`+long+`",null,true,1.5e3]}}}}`+"\n"), uint8(4))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":"`+long+`","a":"x"}}}`), uint8(6))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":"`+long+`"}}} {}`), uint8(1))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"u","arguments":{"a":"`+long+`"}}}`), uint8(3))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":"`+long+"\xff"+`"}}}`), uint8(5))
	tools := map[string]bool{"t": true}
	f.Fuzz(func(t *testing.T, msg []byte, block uint8) {
		sp := newSpills()
		sp.min = min
		m := pieces(msg, int(block))
		out, ok := sp.lighten(m, tools)
		if string(bytes.Join(m.segments(), nil)) != string(msg) {
			t.Fatal("lighten changed its input")
		}
		if !ok {
			if out != nil || len(sp.m) != 0 {
				t.Fatalf("not lightened, yet %d values kept", len(sp.m))
			}
			return
		}
		type envelope struct {
			Method string `json:"method"`
			Params struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		var a, b envelope
		if err := json.Unmarshal(msg, &a); err != nil {
			t.Fatalf("lightened a message encoding/json rejects: %v", err)
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("the lightened message does not parse: %v\n%.300s", err, out)
		}
		if a.Method != "tools/call" || !tools[a.Params.Name] || b.Method != a.Method || b.Params.Name != a.Params.Name {
			t.Fatalf("lightened %q %q", a.Method, a.Params.Name)
		}
		if len(b.Params.Arguments) >= len(a.Params.Arguments) {
			t.Fatalf("nothing was taken out: %d → %d bytes", len(a.Params.Arguments), len(b.Params.Arguments))
		}
		var want, got any
		if err := json.Unmarshal(a.Params.Arguments, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b.Params.Arguments, &got); err != nil {
			t.Fatal(err)
		}
		claimed := sp.claim(b.Params.Arguments)
		wrap := map[string]any{"v": got}
		fill(wrap, claimed)
		if !reflect.DeepEqual(wrap["v"], want) {
			t.Fatalf("the filled arguments differ from the sent ones")
		}
		if len(sp.m) != 0 {
			t.Fatalf("%d values left unclaimed", len(sp.m))
		}
		if again := sp.claim(b.Params.Arguments); again != nil {
			t.Fatal("a placeholder was claimed twice")
		}
	})
}

// TestFill_TypedInput: fill reaches every string of a typed input — nested
// structs, slices, maps, pointers, named string types and interfaces.
func TestFill_TypedInput(t *testing.T) {
	type mode string
	type op struct {
		Path    string
		Content string
		Mode    mode
		Any     any
		Ptr     *string
	}
	type in struct {
		Ops  []op
		Map  map[string]string
		Anys map[string]any
	}
	p := "P2"
	v := in{Ops: []op{{Path: "p", Content: "P1", Mode: "P3", Any: "P4", Ptr: &p}}, Map: map[string]string{"k": "P5"}, Anys: map[string]any{"k": []any{"P6"}, "j": "P7"}}
	got := map[string]string{}
	for i := 1; i <= 7; i++ {
		got["P"+string(rune('0'+i))] = strings.Repeat(string(rune('a'+i)), 3)
	}
	fill(&v, got)
	if v.Ops[0].Content != "bbb" || *v.Ops[0].Ptr != "ccc" || v.Ops[0].Mode != "ddd" || v.Ops[0].Any != "eee" || v.Map["k"] != "fff" ||
		v.Anys["k"].([]any)[0] != "ggg" || v.Anys["j"] != "hhh" || v.Ops[0].Path != "p" {
		t.Fatalf("%+v %+v %s", v.Ops[0], v.Anys, *v.Ops[0].Ptr)
	}
}

// pieces returns a message holding msg in blocks of block bytes (the
// default size if 0), added in pieces of at most 7 bytes.
func pieces(msg []byte, block int) *message {
	m := &message{block: block}
	for rest := msg; len(rest) > 0; {
		k := min(len(rest), 7)
		m.add(rest[:k])
		rest = rest[k:]
	}
	return m
}

// TestLighten_WhatItTakes: a call of a known tool loses its long strings;
// an unknown tool, duplicate names, trailing data and short strings keep
// the message as it is.
func TestLighten_WhatItTakes(t *testing.T) {
	long := strings.Repeat(`x\"`, spillMin)
	msg := func(name, args string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`)
	}
	tools := map[string]bool{"t": true}
	sp := newSpills()
	for _, c := range []struct {
		msg  []byte
		took int
	}{
		{msg("t", `{"a":"`+long+`","b":["`+long+`"],"c":"short"}`), 2},
		{msg("u", `{"a":"`+long+`"}`), 0},
		{msg("t", `{"a":"`+long+`","a":"`+long+`"}`), 0},
		{append(msg("t", `{"a":"`+long+`"}`), " {}"...), 0},
		{msg("t", `{"a":"short","b":"`+strings.Repeat("y", spillMin-3)+`"}`), 0},
	} {
		before := len(sp.m)
		_, ok := sp.lighten(pieces(c.msg, 1000), tools)
		if took := len(sp.m) - before; took != c.took || (took == 0) == ok {
			t.Errorf("took %d values (want %d) from %.80s…", took, c.took, c.msg)
		}
	}
}

// BenchmarkLighten: the transport's pass over a 1 MB write of source-like
// text (about one escape per line, as code has).
func BenchmarkLighten(b *testing.B) {
	var text strings.Builder
	for i := 0; text.Len() < 1<<20; i++ {
		if i%8 == 0 {
			text.WriteString("    fmt.Println(\"a line with a quoted string\", v)\n")
		} else {
			text.WriteString("    x := compute(y, 42, 0x1234abcd) + offset // naïve\n")
		}
	}
	args, _ := json.Marshal(map[string]any{"ops": []map[string]any{{"path": "/a/b.go", "content": text.String()}}})
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":` + string(args) + `}}`)
	tools := map[string]bool{"t": true}
	sp := newSpills()
	b.SetBytes(int64(len(msg)))
	m := pieces(msg, 0)
	for b.Loop() {
		out, _ := sp.lighten(m, tools)
		sp.claim(out)
	}
}

// TestMessage_Segments: a message read in pieces of any size, short or
// over many blocks, comes out byte for byte, and the next one after reset
// starts empty.
func TestMessage_Segments(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var m message
	for _, size := range []int{0, 1, 100, 64 << 10, messageBlock - 1, messageBlock, messageBlock + 1, 3*messageBlock + 12345} {
		want := make([]byte, size)
		for i := range want {
			want[i] = byte(rng.IntN(256))
		}
		for rest := want; len(rest) > 0; {
			k := min(len(rest), 1+rng.IntN(128<<10))
			m.add(rest[:k])
			rest = rest[k:]
		}
		if got := bytes.Join(m.segments(), nil); !bytes.Equal(got, want) || m.len() != size {
			t.Fatalf("size %d: got %d bytes (len %d), not the message", size, len(got), m.len())
		}
		for i, seg := range m.segments()[:len(m.segments())-1] {
			if len(seg) < messageBlock {
				t.Fatalf("size %d: block %d holds %d bytes", size, i, len(seg))
			}
		}
		m.reset()
		if m.len() != 0 || len(bytes.Join(m.segments(), nil)) != 0 {
			t.Fatalf("size %d: not empty after reset", size)
		}
	}
}

// FuzzUnquoter: the unquoter accepts the body of a JSON string, fed whole or
// in pieces cut anywhere, exactly when jsontext reads it as one string
// value, and returns the value jsontext.AppendUnquote does.
func FuzzUnquoter(f *testing.F) {
	for _, s := range []string{``, `abc`, `a\"b\\c\/d\b\f\n\r\t`, `\u00e9\u00E9\ud83d\ude00\uD83D\uDE00`,
		`\u0000\u001f x`, `naïve 😀 \n`, `\ud800`, `\udc00\ud800`, `\ud83d\u0041`, `x\`, `\u12`, `\q`, "a\x01b", `a"b`,
		"\xff", "\xed\xa0\x80", "\xef\xbf\xbd", "0123456789abcdef\x7f\x80", "01234567\t"} {
		f.Add([]byte(s), uint64(0x5555))
	}
	long := strconvQuote(strings.Repeat("line \"q\" \\ ü\t\n", 50))
	f.Add([]byte(long[1:len(long)-1]), uint64(0x8421))
	f.Fuzz(func(t *testing.T, v []byte, cut uint64) {
		raw := append(append([]byte{'"'}, v...), '"')
		var want []byte
		dec := jsontext.NewDecoder(bytes.NewReader(raw))
		val, err := dec.ReadValue()
		valid := err == nil && len(val) == len(raw)
		if valid {
			if want, err = jsontext.AppendUnquote(nil, val); err != nil {
				t.Fatal(err)
			}
		}
		// fed whole, and fed in pieces cut where cut's bits say
		for _, cuts := range []uint64{0, cut, ^uint64(0)} {
			u := unquoter{}
			ok := true
			for i := 0; i < len(v); {
				j := i + 1
				for j < len(v) && cuts&(1<<(j%64)) == 0 {
					j++
				}
				ok = ok && u.feed(v[i:j])
				i = j
			}
			ok = ok && u.nc == 0
			if ok != valid || (ok && !bytes.Equal(u.dst, want)) {
				t.Fatalf("unquoter(%q, cuts %x) = %q, %v; jsontext: %q, %v", v, cuts, u.dst, ok, want, valid)
			}
		}
	})
}

// TestSpecial: the lowest byte special flags in a word is its first byte
// that is not plain, for every byte value at every position (the bytes
// after it random).
func TestSpecial(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var w [8]byte
	for pos := range 8 {
		for c := range 256 {
			for trial := range 8 {
				for i := range w {
					switch {
					case i < pos:
						w[i] = byte(0x20 + rng.IntN(0x5f))
						for !plain(w[i]) {
							w[i] = byte(0x20 + rng.IntN(0x5f))
						}
					case i == pos:
						w[i] = byte(c)
					default:
						w[i] = byte(rng.IntN(256))
						if trial%2 == 0 {
							w[i] = []byte{0, 0x1f, '"', '\\', 0x80, 0xff, 0x20, 0x7f}[rng.IntN(8)]
						}
					}
				}
				first := 8
				for i, b := range w {
					if !plain(b) {
						first = i
						break
					}
				}
				m := special(binary.LittleEndian.Uint64(w[:]))
				got := 8
				if m != 0 {
					got = bits.TrailingZeros64(m) >> 3
				}
				if got != first {
					t.Fatalf("% x: special flags byte %d first, want %d", w, got, first)
				}
			}
		}
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
