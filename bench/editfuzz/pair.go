package editfuzz

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Pair is one real edit: a window of a file (its changed lines with up to
// 20 unchanged lines around them) before and after the change, taken from a
// diff between two versions.
type Pair struct {
	// Source says where the pair came from: "module@old..new" or
	// "git:<commit>".
	Source string `json:"source"`
	// Path is the file's path in its source; its extension names the
	// language, and the fuzzer's file gets the same extension.
	Path   string `json:"path"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// Ext is the pair's file extension ("" for none), the one the fuzzer's
// file is given.
func (p Pair) Ext() string { return filepath.Ext(p.Path) }

// Pair bounds: a window has 4 to maxWindow lines and changes at most
// maxChanged of them; longer ones make slow, unrealistic requests.
const (
	maxWindow  = 90
	maxChanged = 30
)

// FromUnifiedDiff turns a unified diff (git's, or diff -ruN's) into pairs,
// one per hunk: the hunk's context and removed lines before, its context
// and added lines after. The file's path is the new side's with its first
// component taken off (a/, b/, or diff -r's version directory). Hunks of
// added or deleted files, hunks touching a last line without a newline,
// binary or non-UTF-8 text, carriage returns (CRLF is a mutation of its
// own) and windows outside the bounds above are left out.
func FromUnifiedDiff(diff []byte, source string) []Pair {
	var out []Pair
	path := ""
	var before, after strings.Builder
	inHunk, bad, changed, lines := false, false, 0, 0
	flush := func() {
		if inHunk && !bad && path != "" && changed > 0 && changed <= maxChanged && lines >= 4 && lines <= maxWindow {
			b, a := before.String(), after.String()
			if b != a && utf8.ValidString(b) && utf8.ValidString(a) && !strings.ContainsAny(b+a, "\r\x00") {
				out = append(out, Pair{Source: source, Path: path, Before: b, After: a})
			}
		}
		before.Reset()
		after.Reset()
		inHunk, bad, changed, lines = false, false, 0, 0
	}
	sc := bufio.NewScanner(bytes.NewReader(diff))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "diff "):
			flush()
			path = ""
		case strings.HasPrefix(l, "--- ") && !inHunk:
		case strings.HasPrefix(l, "+++ ") && !inHunk:
			p := strings.TrimPrefix(l, "+++ ")
			if i := strings.IndexByte(p, '\t'); i >= 0 {
				p = p[:i]
			}
			path = ""
			if p != "/dev/null" {
				if i := strings.IndexByte(p, '/'); i >= 0 {
					path = p[i+1:]
				}
			}
		case strings.HasPrefix(l, "@@"):
			flush()
			inHunk = true
		case !inHunk:
		case strings.HasPrefix(l, `\`):
			bad = true
		case strings.HasPrefix(l, " ") || l == "":
			s := strings.TrimPrefix(l, " ")
			before.WriteString(s + "\n")
			after.WriteString(s + "\n")
			lines++
		case strings.HasPrefix(l, "-"):
			before.WriteString(l[1:] + "\n")
			changed++
			lines++
		case strings.HasPrefix(l, "+"):
			after.WriteString(l[1:] + "\n")
			changed++
		default:
			flush()
		}
	}
	flush()
	return out
}

// Languages the pairs are drawn from: source files of Go, Python, JS/TS,
// Rust, C, and Markdown and YAML.
var Languages = []string{".go", ".py", ".js", ".mjs", ".ts", ".tsx", ".rs", ".c", ".h", ".md", ".yml", ".yaml"}

// GitHistory returns the pairs of the last commits (at most max) of the
// repository holding dir, in the languages above (git log -p -U20). A
// shallow checkout gives what it has.
func GitHistory(dir string, max int) ([]Pair, error) {
	args := []string{"-C", dir, "log", "-p", "-U20", "--no-merges", "--no-color", "--no-ext-diff", "--format=commit %h", "-n", fmt.Sprint(max), "--"}
	for _, l := range Languages {
		args = append(args, "*"+l)
	}
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("editfuzz: git log in %s: %w", dir, err)
	}
	var pairs []Pair
	commit := regexp.MustCompile(`(?m)^commit ([0-9a-f]+)$`)
	locs := commit.FindAllSubmatchIndex(out, -1)
	for i, loc := range locs {
		end := len(out)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		pairs = append(pairs, FromUnifiedDiff(out[loc[1]:end], "git:"+string(out[loc[2]:loc[3]]))...)
	}
	return pairs, nil
}

// LoadCorpus reads every *.jsonl file of dir: one Pair per line.
func LoadCorpus(dir string) ([]Pair, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("editfuzz: no *.jsonl in %s", dir)
	}
	sort.Strings(paths)
	var out []Pair
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("editfuzz: %w", err)
		}
		for i, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) == 0 {
				continue
			}
			var pr Pair
			if err := json.Unmarshal(l, &pr); err != nil {
				return nil, fmt.Errorf("editfuzz: %s:%d: %w", p, i+1, err)
			}
			out = append(out, pr)
		}
	}
	return out, nil
}
