package reliability

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jmcp "github.com/journalfs/journal/mcp"
)

// secret marks every file outside the root: no tool result may contain it.
const secret = "CANARY-SECRET-5f3a"

// escapeLayout builds base/{root, canary, root2, root-old, root.bak} and the
// links inside root that lead out (to files, directories, dangling, chained,
// hard links, into .journal).
func escapeLayout(t *testing.T) (base, root string) {
	base = t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	root = filepath.Join(base, "root")
	mk := func(p, s string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"canary", "root2", "root-old", "root.bak"} {
		mk(filepath.Join(base, d, "secret.txt"), secret+" "+d+"\nhello\n")
		mk(filepath.Join(base, d, "dir", "nested.txt"), secret+" nested\nhello\n")
	}
	mk(filepath.Join(root, "ok.txt"), "hello\nworld\n")
	mk(filepath.Join(root, "sub", "inner.txt"), "hello\n")
	mk(filepath.Join(root, "paste-target.txt"), "target\n")
	links := map[string]string{
		"lfile":         filepath.Join(base, "canary", "secret.txt"),
		"lfile_rel":     "../canary/secret.txt",
		"ldir":          filepath.Join(base, "canary"),
		"ldir_rel":      "../canary",
		"dangling":      filepath.Join(base, "canary", "missing.txt"),
		"dangling_dir":  filepath.Join(base, "canary", "nodir"),
		"chain1":        "chain2",
		"chain2":        "ldir",
		"sub/deep_up":   "../../canary",
		"sub/loop":      "loop",
		"jl":            ".journal",
		"up":            ".",
		"sub/jl2":       "../.journal",
		"ljournal_file": ".journal/journal.db",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(base, "canary", "secret.txt"), filepath.Join(root, "hl.txt")); err != nil {
		t.Fatal(err)
	}
	return base, root
}

// attackPaths are the generated escape attempts; lookalike paths are legal
// names inside the root (they may be refused, be missing, or act inside).
func attackPaths(base, root string) (escapes, lookalikes []string) {
	outsideRel := []string{"canary/secret.txt", "canary/dir/nested.txt", "canary/new.txt", "root2/secret.txt", "canary"}
	// `..` in every position.
	for _, o := range outsideRel {
		escapes = append(escapes, "../"+o, "./../"+o, "sub/../../"+o, "sub/x/../../../"+o, "../root/../"+o,
			"../../"+filepath.Base(base)+"/"+o, root+"/../"+o, root+"/sub/../../"+o)
	}
	escapes = append(escapes, "..", "../", "../..", strings.Repeat("../", 40)+"etc/passwd", "sub/../..", root+"/..")
	// Absolute paths outside, and sibling prefixes of the root.
	escapes = append(escapes, "/etc/passwd", "/etc/hostname", "/", base, base+"/canary/secret.txt", base+"/canary/new.txt")
	for _, sib := range []string{"root2", "root-old", "root.bak"} {
		escapes = append(escapes, filepath.Join(base, sib, "secret.txt"), filepath.Join(base, sib, "new.txt"), filepath.Join(base, sib))
	}
	escapes = append(escapes, root+"2/secret.txt", root+"-old/secret.txt", root+".bak/dir/nested.txt")
	// Symlinks (files, dirs, dangling, chained, loops) and hard links.
	escapes = append(escapes, "lfile", "lfile_rel", "ldir/secret.txt", "ldir_rel/secret.txt", "ldir/new.txt", "ldir/dir/nested.txt",
		"dangling", "dangling_dir/new.txt", "chain1/secret.txt", "chain1/new.txt", "chain2/secret.txt", "sub/deep_up/secret.txt",
		"sub/deep_up/new.txt", "sub/loop", "sub/loop/x.txt", "hl.txt", root+"/ldir/secret.txt", root+"/lfile", "./lfile", "sub/../lfile")
	// Malformed: NUL bytes, empty, over-long.
	escapes = append(escapes, "ok.txt\x00", "\x00", "ok\x00/../../canary/secret.txt", "", strings.Repeat("a", 256)+".txt",
		"sub/"+strings.Repeat("b", 300), strings.Repeat("c/", 2100)+"x", ".")
	// Into the journal.
	escapes = append(escapes, ".journal/journal.db", ".journal/.gitignore", ".journal/new.txt", "./.journal/journal.db",
		"sub/../.journal/journal.db", root+"/.journal/journal.db", ".journal", "jl/journal.db", "jl/.gitignore", "jl/new.txt",
		"up/.journal/.gitignore", "up/up/.journal/journal.db", "sub/jl2/.gitignore", "ljournal_file")
	// Unicode look-alikes and other spellings of `..` that are plain names on this system.
	lookalikes = []string{"\uff0e\uff0e/canary/secret.txt", "\u2024\u2024/canary/secret.txt", "..\u2215canary\u2215secret.txt",
		"..\\canary\\secret.txt", "%2e%2e/canary/secret.txt", "\u2025/canary/secret.txt", ".\u200b./canary/secret.txt",
		"ok.txt\u202e", "\u0130.journal/x", ".journa\u0142/journal.db"}
	return escapes, lookalikes
}

// pathFields are the properties that name files in tool inputs.
var pathFields = regexp.MustCompile(`(^|_)(path|file)$|^file$|^target_file$|^absolute_file_path$`)

// escapeTemplates give each known tool valid arguments; "{P}" marks the
// attacked path field, "{Q}" other path fields (legitimate).
var escapeTemplates = map[string][]string{
	"ai_code_editing.edit_file": {`{"target_file":"{P}","edit_instruction":"x","start_line":1,"end_line":1,"code_block":"hello","edit_type":"replace"}`},
	"ai_get_code_context":       {`{"file_path":"{P}"}`},
	"edit_content":              {`{"absolute_file_path":"{P}","search_text":"hello","replace_text":"HELLO","preview":false}`, `{"absolute_file_path":"{P}","search_text":"hello","replace_text":"HELLO"}`},
	"edit_move_text": {`{"ops":[{"source_path":"{P}","source_start_line":1,"source_end_line":1,"target_path":"{Q}","target_line":1}]}`,
		`{"ops":[{"source_path":"{Q}","source_start_line":1,"source_end_line":1,"target_path":"{P}","target_line":1}]}`},
	"file_copy_paste_text": {`{"ops":[{"source_path":"{P}","source_start_line":1,"source_end_line":1,"target_path":"paste-target.txt","target_line":1}]}`,
		`{"ops":[{"source_path":"{Q}","source_start_line":1,"source_end_line":1,"target_path":"{P}","target_line":1}]}`},
	"file_create_new":  {`{"ops":[{"path":"{P}","content":"x"}]}`},
	"file_edit":        {`{"file":"{P}","code":"hello","startLine":1,"endLine":1}`},
	"file_insert_text": {`{"ops":[{"path":"{P}","content":"x","at":"eof"}]}`},
	"file_read":        {`{"file":"{P}","startLine":1}`},
	"file_replace":     {`{"ops":[{"path":"{P}","content":"x"}]}`, `{"ops":[{"path":"{Q}","content":"x"}],"expected_versions":{"{P}":"absent"}}`},
	"get_overview":     {`{"absolute_file_path":"{P}"}`},
	"journal_log":      {`{"path":"{P}"}`},
	"read_content":     {`{"absolute_file_path":"{P}"}`},
	"revert_edit":      {`{"absolute_file_path":"{P}"}`, `{"absolute_file_path":"{P}","force":true}`},
	"search_content":   {`{"absolute_file_path":"{P}","pattern":"hello"}`},
}

// genericTemplates builds arguments for a tool without a template from its
// input schema: every required property gets a plain value, every path field
// in turn the attacked path.
func genericTemplates(schema map[string]any) []string {
	var fields []string
	var build func(props map[string]any, req []any, attack string) map[string]any
	build = func(props map[string]any, req []any, attack string) map[string]any {
		out := map[string]any{}
		required := map[string]bool{}
		for _, r := range req {
			required[fmt.Sprint(r)] = true
		}
		for name, p := range props {
			pm, _ := p.(map[string]any)
			typ := fmt.Sprint(pm["type"])
			switch {
			case pathFields.MatchString(name) && strings.Contains(typ, "string"):
				if attack == "" {
					fields = append(fields, name)
				}
				if name == attack {
					out[name] = "{P}"
				} else {
					out[name] = "{Q}"
				}
			case !required[name]:
			case strings.Contains(typ, "array"):
				items, _ := pm["items"].(map[string]any)
				ip, _ := items["properties"].(map[string]any)
				ir, _ := items["required"].([]any)
				out[name] = []any{build(ip, ir, attack)}
			case strings.Contains(typ, "integer"), strings.Contains(typ, "number"):
				out[name] = 1
			case strings.Contains(typ, "boolean"):
				out[name] = false
			default:
				out[name] = "hello"
			}
		}
		return out
	}
	props, _ := schema["properties"].(map[string]any)
	req, _ := schema["required"].([]any)
	build(props, req, "")
	var out []string
	for _, f := range fields {
		b, _ := jsonMarshal(build(props, req, f))
		out = append(out, string(b))
	}
	return out
}

// takesPath reports whether a tool's input schema has a path field (at the top or in array items).
func takesPath(schema map[string]any) bool {
	var walk func(props map[string]any) bool
	walk = func(props map[string]any) bool {
		for name, p := range props {
			pm, _ := p.(map[string]any)
			if pathFields.MatchString(name) {
				return true
			}
			if items, ok := pm["items"].(map[string]any); ok {
				if ip, ok := items["properties"].(map[string]any); ok && walk(ip) {
					return true
				}
			}
		}
		return false
	}
	props, _ := schema["properties"].(map[string]any)
	return walk(props)
}

// fill substitutes the attacked path p and a legitimate path q into a template.
func fill(tmpl, p, q string) map[string]any {
	ps, _ := jsonMarshal(p)
	qs, _ := jsonMarshal(q)
	s := strings.ReplaceAll(tmpl, `"{P}"`, string(ps))
	s = strings.ReplaceAll(s, `"{Q}"`, string(qs))
	var out map[string]any
	if err := jsonUnmarshal([]byte(s), &out); err != nil {
		panic(fmt.Sprintf("template %s: %v", s, err))
	}
	return out
}

// outside snapshots everything under base except root.
func outside(base, root string) map[string]string {
	t := tree(base)
	rel, _ := filepath.Rel(base, root)
	for k := range t {
		if k == rel+"/" || strings.HasPrefix(k, rel+"/") {
			delete(t, k)
		}
	}
	return t
}

// TestEscape_EveryPathTool sends generated escape attempts through every tool
// that takes a path (found from tools/list): every one is refused with
// OUTSIDE_ROOT or INVALID_INPUT, no result contains an outside file's content,
// and everything outside the root is byte-identical afterwards.
func TestEscape_EveryPathTool(t *testing.T) {
	base, root := escapeLayout(t)
	s := mustStart(t, root, "escape")
	// Create the journal (and .journal/) first, so the journal attacks hit real files.
	if r, err := s.call("file_create_new", map[string]any{"ops": []map[string]any{{"path": "seed.txt", "content": "hello\n"}}}); err != nil || r.IsError {
		t.Fatalf("seed: %v %+v", err, r)
	}
	before := outside(base, root)
	journalBefore, _ := os.ReadFile(filepath.Join(root, ".journal", ".gitignore"))
	resp, err := s.request("tools/list", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := resp["result"].(map[string]any)["tools"].([]any)
	escapes, lookalikes := attackPaths(base, root)
	var (
		attempts, refused, lookRefused, lookMissing, lookInside int
		byCode                                                  = map[string]int{}
		toolNames                                               []string
		ctl, nameOnlyN                                          int
	)
	for _, tl := range tools {
		tm := tl.(map[string]any)
		name := tm["name"].(string)
		schema, _ := tm["inputSchema"].(map[string]any)
		if !takesPath(schema) {
			continue
		}
		toolNames = append(toolNames, name)
		tmpls, known := escapeTemplates[name]
		if !known {
			tmpls = genericTemplates(schema)
		}
		for _, tmpl := range tmpls {
			// Control: the template with legitimate paths reaches the tool (not refused for its path).
			ctl++
			cp := fmt.Sprintf("ctl-%d.txt", ctl)
			if !strings.Contains(name, "create") {
				os.WriteFile(filepath.Join(root, cp), []byte("hello\nworld\n"), 0o644)
			}
			r, err := s.call(name, fill(tmpl, cp, fmt.Sprintf("ctlq-%d.txt", ctl)))
			if strings.Contains(tmpl, "{Q}") && strings.Contains(tmpl, "source_path\":\"{Q}") {
				os.WriteFile(filepath.Join(root, fmt.Sprintf("ctlq-%d.txt", ctl)), []byte("hello\n"), 0o644)
			}
			if err != nil {
				t.Fatalf("%s control: %v", name, err)
			}
			if r.Protocol != nil || (r.IsError && (r.Err.Code == jmcp.CodeInvalidInput || r.Err.Code == jmcp.CodeOutsideRoot)) {
				if !known {
					t.Errorf("%s: no escape template and the generated arguments fail for a legitimate path (%s %v): add one to escapeTemplates", name, r.Text, r.Protocol)
				} else {
					t.Errorf("%s control %s: %s %v", name, tmpl, r.Text, r.Protocol)
				}
				continue
			}
			for _, p := range append(append([]string{}, escapes...), lookalikes...) {
				q := fmt.Sprintf("q-%d.txt", attempts)
				os.WriteFile(filepath.Join(root, q), []byte("hello\n"), 0o644)
				r, err := s.call(name, fill(tmpl, p, q))
				if err != nil {
					t.Fatalf("%s %q: server died: %v", name, p, err)
				}
				attempts++
				if strings.Contains(r.Text, secret) || strings.Contains(fmt.Sprint(r.Structured), secret) {
					t.Errorf("%s %q: the result shows an outside file's content: %.200s", name, p, r.Text)
				}
				look := false
				for _, l := range lookalikes {
					look = look || l == p
				}
				code := r.Err.Code
				if r.Protocol != nil {
					code = "protocol error"
				} else if !r.IsError {
					code = "success"
				}
				if look {
					// A look-alike is a legal name inside the root: refused, missing,
					// or acted on inside are all right (the canary check catches the rest).
					switch code {
					case jmcp.CodeOutsideRoot, jmcp.CodeInvalidInput:
						lookRefused++
					case jmcp.CodeFileNotFound, jmcp.CodeNothingToDo:
						lookMissing++
					case "protocol error":
						t.Errorf("%s look-alike %q: %s %v", name, p, code, r.Protocol)
					default:
						lookInside++
					}
					continue
				}
				byCode[code]++
				if code == jmcp.CodeOutsideRoot || code == jmcp.CodeInvalidInput {
					refused++
					continue
				}
				// Name-only uses: a journal filter (journal_log, revert_edit looking
				// for events of a file) or an expected_versions key of a file the
				// batch does not touch opens nothing; they may answer "no events".
				nameOnly := (name == "journal_log" && code == "success" && !strings.Contains(r.Text, "event ")) ||
					(name == "revert_edit" && code == jmcp.CodeNothingToDo) ||
					(strings.Contains(tmpl, `"expected_versions":{"{P}"`) && code == "success")
				if (name == "journal_log" || name == "diagnostics") && p == "" && code == "success" {
					nameOnly = true // an empty filter is no filter; no file is the whole workspace
				}
				if nameOnly && !strings.ContainsRune(p, 0) {
					nameOnlyN++
					continue
				}
				t.Errorf("%s %q: not refused: %s %.300s", name, p, code, r.Text)
			}
		}
	}
	if d := diffTrees(before, outside(base, root)); d != "" {
		t.Errorf("outside the root changed: %s", d)
	}
	if b, _ := os.ReadFile(filepath.Join(root, ".journal", ".gitignore")); string(b) != string(journalBefore) {
		t.Errorf(".journal/.gitignore changed: %q", b)
	}
	if out, err := cli(root, "verify"); err != nil {
		t.Errorf("journal verify: %v\n%s", err, out)
	}
	if attempts < 300 {
		t.Errorf("only %d attempts", attempts)
	}
	sort.Strings(toolNames)
	figures(t, map[string]any{"tools": toolNames, "attempts": attempts, "escape_attempts_refused": refused, "escape_attempts_name_only_no_file_opened": nameOnlyN,
		"escape_attempts": attempts - lookRefused - lookMissing - lookInside, "refused_by_code": byCode,
		"lookalike_refused": lookRefused, "lookalike_missing_inside": lookMissing, "lookalike_acted_inside": lookInside,
		"outside_changed": 0})
}

// TestEscape_SwapRace swaps a directory inside the root with a symlink to a
// directory outside (renameat2 RENAME_EXCHANGE) while a server edits files
// under that name: nothing outside changes.
func TestEscape_SwapRace(t *testing.T) {
	swaps := scale("SWAPS", 2000, 10000)
	base, root := escapeLayout(t)
	os.MkdirAll(filepath.Join(root, "sw"), 0o755)
	os.WriteFile(filepath.Join(root, "sw", "secret.txt"), []byte("inside\n"), 0o644)
	if err := os.Symlink(filepath.Join(base, "canary"), filepath.Join(root, "swx")); err != nil {
		t.Fatal(err)
	}
	s := mustStart(t, root, "race")
	s.call("file_create_new", map[string]any{"ops": []map[string]any{{"path": "seed.txt", "content": "x"}}})
	before := outside(base, root)
	var done atomic.Bool
	var swapped atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a, b := filepath.Join(root, "sw"), filepath.Join(root, "swx")
		for i := 0; i < swaps; i++ {
			if err := exchange(a, b); err != nil {
				t.Errorf("swap: %v", err)
				break
			}
			swapped.Add(1)
			// Vary the pace: bursts of flips, and pauses long enough for whole edits.
			switch i % 16 {
			case 0:
				time.Sleep(3 * time.Millisecond)
			case 1, 2, 3:
				time.Sleep(time.Duration(i%700) * time.Microsecond)
			}
		}
		done.Store(true)
	}()
	edits, applied, refusedN := 0, 0, 0
	codes := map[string]int{}
	for !done.Load() {
		var r *result
		var err error
		switch edits % 4 {
		case 0:
			r, err = s.call("file_replace", map[string]any{"ops": []map[string]any{{"path": "sw/secret.txt", "content": fmt.Sprintf("edit %d\n", edits)}}})
		case 1:
			r, err = s.call("file_create_new", map[string]any{"ops": []map[string]any{{"path": fmt.Sprintf("sw/new-%d.txt", edits), "content": "x"}}})
		case 2:
			r, err = s.call("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "sw/secret.txt", "content": "more", "at": "eof"}}})
		case 3:
			r, err = s.call("edit_content", map[string]any{"absolute_file_path": root + "/sw/secret.txt", "search_text": "edit", "replace_text": "EDIT", "preview": false})
		}
		if err != nil {
			t.Fatal(err)
		}
		edits++
		if strings.Contains(r.Text, secret) {
			t.Errorf("result shows outside content: %.200s", r.Text)
		}
		if r.IsError {
			refusedN++
			codes[r.Err.Code]++
		} else if r.Protocol != nil {
			// Losing the race is the agent's problem to hear about, with a
			// code (OUTSIDE_ROOT, INVALID_INPUT), never an internal error.
			t.Errorf("%s lost the race as an internal error: %v", r.Text, r.Protocol["message"])
		} else {
			applied++
		}
	}
	wg.Wait()
	// A batch that lost the race mid-way and could not finish its rollback
	// (the directory was a link outside) is recovered by the next batch.
	if r, err := s.call("file_create_new", map[string]any{"ops": []map[string]any{{"path": "after-race.txt", "content": "x"}}}); err != nil || r.IsError || r.Protocol != nil {
		t.Fatalf("the batch after the race: %v %+v", err, r)
	}
	if d := diffTrees(before, outside(base, root)); d != "" {
		t.Errorf("outside the root changed: %s", d)
	}
	if tmp := tempFiles(base); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	figures(t, map[string]any{"swaps": swapped.Load(), "edits": edits, "applied": applied, "refused": refusedN, "codes": codes, "outside_changed": 0})
}
