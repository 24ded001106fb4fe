// Package corpus reads the edit-robustness corpus (testdata/robustness; its
// README gives the format and the classes): imperfect edit requests of the
// kinds agents send, each with what a careful person would have made of it.
// The in-process test (mcp.TestRobustness), the TypeScript SDK test
// (mcp/e2e) and the side-by-side harness (bench/cmd/mcpbench -robustness)
// read it through this one package.
package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Case is one case of the corpus.
type Case struct {
	Name     string            `json:"name"`
	About    string            `json:"about"`
	Files    map[string]string `json:"files"`
	Setup    []Call            `json:"setup,omitempty"`
	Outside  map[string]string `json:"outside,omitempty"`
	Call     Call              `json:"call"`
	Expect   Expect            `json:"expect"`
	KnownGap string            `json:"known_gap,omitempty"`
	// UnparsableOK says why the file the case expects does not parse (the
	// agent's own text is not valid code): the runners' parse check
	// (Unparsed) then does not count the call's result against it.
	UnparsableOK string `json:"unparsable_ok,omitempty"`
	// Family is the name of the case's file, without ".json".
	Family string `json:"-"`
}

// Call is one tool call of a case.
type Call struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// Expect is what a careful person would have made of a case's call.
type Expect struct {
	Outcome string            `json:"outcome"` // applied | already_applied | refused
	Files   map[string]string `json:"files,omitempty"`
	Code    string            `json:"code,omitempty"`
	Retry   bool              `json:"retry,omitempty"`
}

// The classes of a case's result.
const (
	Correct       = "correct"
	RefusedUsable = "refused-usable"
	RefusedBare   = "refused-bare"
	Wrong         = "WRONG"
)

// Load reads every family file (*.json) of dir, in name order, refusing
// unknown fields, duplicate or empty names and incomplete expectations.
func Load(dir string) ([]Case, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("corpus: no *.json in %s", dir)
	}
	sort.Strings(paths)
	var all []Case
	names := map[string]bool{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("corpus: %w", err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		var cs []Case
		if err := dec.Decode(&cs); err != nil {
			return nil, fmt.Errorf("corpus: %s: %w", p, err)
		}
		fam := strings.TrimSuffix(filepath.Base(p), ".json")
		for _, c := range cs {
			switch {
			case c.Name == "" || names[c.Name]:
				return nil, fmt.Errorf("corpus: %s: case name %q empty or not unique", p, c.Name)
			case c.Call.Tool == "" || len(c.Files) == 0:
				return nil, fmt.Errorf("corpus: %s: case %s has no call or no files", p, c.Name)
			case c.Expect.Outcome != "applied" && c.Expect.Outcome != "already_applied" && c.Expect.Outcome != "refused":
				return nil, fmt.Errorf("corpus: %s: case %s: outcome %q", p, c.Name, c.Expect.Outcome)
			case c.Expect.Outcome == "applied" && c.Expect.Files == nil,
				c.Expect.Outcome == "refused" && c.Expect.Retry && c.Expect.Files == nil:
				return nil, fmt.Errorf("corpus: %s: case %s: expected files missing", p, c.Name)
			}
			names[c.Name] = true
			c.Family = fam
			all = append(all, c)
		}
	}
	return all, nil
}

// Rooted returns v with a leading "$ROOT" of every string in it replaced by
// root (maps and slices are copied).
func Rooted(v any, root string) any { return Substitute(v, "$ROOT", root) }

// Substitute returns v with a leading placeholder of every string in it
// replaced by with (maps and slices are copied): the runners' "$ROOT", the
// edit fuzzer's "$FILE".
func Substitute(v any, placeholder, with string) any {
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, placeholder) {
			return with + strings.TrimPrefix(x, placeholder)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Substitute(e, placeholder, with)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Substitute(e, placeholder, with)
		}
		return out
	case []map[string]string:
		out := make([]any, len(x))
		for i, m := range x {
			o := make(map[string]any, len(m))
			for k, s := range m {
				o[k] = Substitute(s, placeholder, with)
			}
			out[i] = o
		}
		return out
	}
	return v
}
