package secrets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Mask returns a copy of b with each finding's bytes replaced by a mark that
// names the rule and keeps at most a well-known, non-secret prefix of the
// value (the "AKIA" of an AWS key id, the "ghp_" of a GitHub token, a PEM
// block's BEGIN line): "AKIA…[secret: aws-access-token]". The mark holds no
// newline, so a masked multi-line key is one line. Findings must be
// Scan's (sorted, not overlapping); ranges out of b are ignored. The same
// secret masks to the same text, so a diff of masked versions shows only
// what changed around it.
func Mask(b []byte, fs []Finding) []byte { return mask(b, fs, Mark) }

// mask is Mask with mark making each finding's text.
func mask(b []byte, fs []Finding, mark func(rule string, secret []byte) string) []byte {
	if len(fs) == 0 {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b))
	at := 0
	for _, f := range fs {
		if f.Start < at || f.End > len(b) || f.Start >= f.End {
			continue
		}
		out.Write(b[at:f.Start])
		out.WriteString(mark(f.Rule, b[f.Start:f.End]))
		at = f.End
	}
	out.Write(b[at:])
	return out.Bytes()
}

// MaskString is Mask for a string.
func MaskString(s string, fs []Finding) string { return string(Mask([]byte(s), fs)) }

// Mark is the text that stands for secret, found by rule, in masked output.
func Mark(rule string, secret []byte) string {
	return publicPrefix(secret) + "…[secret: " + rule + "]"
}

// publicPrefixes are prefixes that name a kind of credential and are the
// same in every one of its kind, so showing them reveals nothing.
var publicPrefixes = []string{
	"AKIA", "ASIA", "ABIA", "ACCA", "A3T",
	"github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "glpat-", "gldt-", "glptt-",
	"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxe-", "xapp-",
	"sk_live_", "sk_test_", "rk_live_", "rk_test_", "sk-ant-", "sk-proj-", "sk-",
	"AIza", "npm_", "pypi-", "shpat_", "shpss_", "dop_v1_", "doo_v1_", "hf_", "SG.", "glc_", "dapi",
}

// publicPrefix returns the public prefix of a secret, if it has one.
func publicPrefix(secret []byte) string {
	if bytes.HasPrefix(secret, []byte("-----BEGIN")) {
		if i := bytes.Index(secret[10:], []byte("-----")); i >= 0 && i < 100 {
			return string(secret[:10+i+5])
		}
		return "-----BEGIN"
	}
	for _, p := range publicPrefixes {
		if bytes.HasPrefix(secret, []byte(p)) && len(secret) > 2*len(p) {
			return p
		}
	}
	return ""
}

// ScanArgs returns the secrets in an event's arguments (a tool call's JSON):
// every string value is scanned, as the content of the file its object
// names by a "path" member, else the arguments' top-level "path", if any
// (so path rules apply: {"ops": [{"path": "go.sum", "content": ...}]}). A
// finding's Arg is the JSON Pointer (RFC 6901) of the string holding it, its
// Start and End offsets into the string's decoded value, its Line the line
// in that value. Arguments that are not JSON have none.
func ScanArgs(args []byte) []Finding {
	if len(args) == 0 || !bytes.Contains(args, []byte{'"'}) {
		return nil
	}
	paths := objectPaths(args)
	var fs []Finding
	_ = walkStrings(args, nil, func(ptr, s string) (string, bool) {
		for _, f := range ScanFile(pathAt(paths, ptr), []byte(s)) {
			if f.Rule == RuleHighEntropy && idMember(ptr) {
				continue // an id: random, named so
			}
			f.Arg = ptr
			fs = append(fs, f)
		}
		return s, false
	})
	return fs
}

// idMember reports whether the JSON Pointer ptr names a member that holds
// an id ("id", "tool_use_id", "sessionId"): its value is random by design,
// and the entropy rule does not take it for a secret.
func idMember(ptr string) bool {
	name := ptr[strings.LastIndexByte(ptr, '/')+1:]
	return name == "id" || strings.HasSuffix(name, "_id") || strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "ID")
}

// MaskArgs returns args with the findings ScanArgs returned masked in their
// strings (as Mask does), the JSON otherwise as it was: members in their
// order, numbers as written. Arguments that are not JSON come back as they
// are (they held no findings).
func MaskArgs(args []byte, fs []Finding) []byte {
	if len(fs) == 0 {
		return args
	}
	by := map[string][]Finding{}
	for _, f := range fs {
		by[f.Arg] = append(by[f.Arg], f)
	}
	var out bytes.Buffer
	if err := walkStrings(args, &out, func(ptr, s string) (string, bool) {
		if m, ok := by[ptr]; ok {
			return MaskString(s, m), true
		}
		return s, false
	}); err != nil {
		return args
	}
	return out.Bytes()
}

// ArgPath returns the file path a string of the arguments belongs to (ptr:
// its JSON Pointer, a Finding's Arg): its object's "path" member, else the
// arguments' top-level "path", else "".
func ArgPath(args []byte, ptr string) string { return pathAt(objectPaths(args), ptr) }

// objectPaths maps the JSON Pointer of every object of args that has a
// string "path" member to it.
func objectPaths(args []byte) map[string]string {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return nil
	}
	out := map[string]string{}
	var walk func(ptr string, v any)
	walk = func(ptr string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if p, ok := x["path"].(string); ok {
				out[ptr] = p
			}
			for k, y := range x {
				walk(ptr+"/"+pointerEscaper.Replace(k), y)
			}
		case []any:
			for i, y := range x {
				walk(ptr+"/"+strconv.Itoa(i), y)
			}
		}
	}
	walk("", v)
	return out
}

// pathAt returns the path of the object holding the string at ptr, else
// the top level's.
func pathAt(paths map[string]string, ptr string) string {
	if i := strings.LastIndexByte(ptr, '/'); i >= 0 {
		if p, ok := paths[ptr[:i]]; ok {
			return p
		}
	}
	return paths[""]
}

// pointerEscaper escapes a member name in a JSON Pointer (RFC 6901).
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// walkStrings calls fn with the JSON Pointer and value of every string value
// (not member names) in the JSON text b, and, if out is not nil, writes b
// there with each string fn changed replaced (compact JSON).
func walkStrings(b []byte, out *bytes.Buffer, fn func(ptr, s string) (string, bool)) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	type frame struct {
		object bool
		key    string // the member name just read (objects)
		index  int    // the next element's index (arrays)
		n      int    // values written so far
		inKey  bool   // the next string token is a member name
	}
	var stack []*frame
	ptr := func() string {
		var sb strings.Builder
		for _, f := range stack {
			sb.WriteByte('/')
			if f.object {
				sb.WriteString(pointerEscaper.Replace(f.key))
			} else {
				sb.WriteString(strconv.Itoa(f.index))
			}
		}
		return sb.String()
	}
	write := func(s string) {
		if out != nil {
			out.WriteString(s)
		}
	}
	// before writes the separator a value needs in its container.
	before := func() {
		if len(stack) == 0 {
			return
		}
		f := stack[len(stack)-1]
		if !f.object && f.n > 0 {
			write(",")
		}
	}
	after := func() {
		if len(stack) == 0 {
			return
		}
		f := stack[len(stack)-1]
		f.n++
		if f.object {
			f.inKey = true
		} else {
			f.index++
		}
	}
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("secrets: arguments: %w", err)
		}
		if len(stack) > 0 {
			if f := stack[len(stack)-1]; f.object && f.inKey {
				if k, ok := t.(string); ok {
					if f.n > 0 {
						write(",")
					}
					kb := marshal(k)
					write(string(kb) + ":")
					f.key, f.inKey = k, false
					continue
				}
			}
		}
		switch v := t.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				before()
				write(string(v))
				stack = append(stack, &frame{object: v == '{', inKey: v == '{'})
			default:
				write(string(v))
				stack = stack[:len(stack)-1]
				after()
			}
		case string:
			before()
			s, _ := fn(ptr(), v)
			sb := marshal(s)
			write(string(sb))
			after()
		default:
			before()
			vb := marshal(v)
			write(string(vb))
			after()
		}
	}
}

// marshal encodes a JSON token without escaping HTML's characters.
func marshal(v any) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// MaskFile returns the content of the file at path with its secrets masked
// (ScanFile, then Mask): b itself when it holds none. A secret spanning
// lines (a PEM key) keeps its line breaks, its mark on its first line and
// "…" on the others, as MaskLines does, so the masked content has the
// file's lines: a diff of masked versions numbers them as the file does.
func MaskFile(path string, b []byte) []byte { return mask(b, ScanFile(path, b), markLines) }

// markLines is Mark followed by secret's line breaks, each further line
// of it a "…".
func markLines(rule string, secret []byte) string {
	m := Mark(rule, secret)
	if bytes.IndexByte(secret, '\n') < 0 {
		return m
	}
	var b strings.Builder
	b.WriteString(m)
	parts := bytes.Split(secret, []byte{'\n'})
	for i := 1; i < len(parts); i++ {
		if bytes.HasSuffix(parts[i-1], []byte{'\r'}) {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
		if len(parts[i]) > 0 {
			b.WriteString("…")
		}
	}
	return b.String()
}

// MaskLines masks the secrets of a file given as its lines (each with or
// without its line ending, as long as joining them with "\n" where one is
// missing gives the content): a secret on one line is masked as Mask does;
// one spanning lines (a PEM key) leaves its mark on its first line and
// "…" on the others, so the lines keep their number.
func MaskLines(path string, lines []string) []string {
	var b strings.Builder
	starts := make([]int, len(lines))
	for i, l := range lines {
		starts[i] = b.Len()
		b.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			b.WriteByte('\n')
		}
	}
	text := b.String()
	fs := ScanFile(path, []byte(text))
	if len(fs) == 0 {
		return lines
	}
	out := append([]string(nil), lines...)
	for _, f := range fs {
		for i, l := range lines {
			ls, le := starts[i], starts[i]+len(strings.TrimRight(l, "\r\n")) // line endings stay
			if le <= f.Start || ls >= f.End || (le == ls && ls > f.Start) {
				continue
			}
			a, z := max(f.Start, ls)-ls, min(f.End, le)-ls
			cur := out[i]
			shift := len(cur) - len(l) // earlier findings on this line changed its length
			if ls <= f.Start {
				out[i] = cur[:a+shift] + Mark(f.Rule, []byte(text[f.Start:f.End])) + cur[z+shift:]
			} else {
				out[i] = cur[:a+shift] + "…" + cur[z+shift:]
			}
		}
	}
	return out
}
