package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// The seeds name a tool's path argument in six ways: absolute_file_path
// (seed 004, revert_edit), file (seed 000), file_path and target_file
// (seed 001), filePath (seed 002), path (seed 003's ops, journal_log). A
// tool keeps its seed's name, in its schema and in its results; a call may
// send any of the others instead. pathNames is the table the renaming
// follows; the schemas do not list the aliases (every tool would carry five
// more properties in the model's context on every turn), and no input
// schema forbids unknown properties (schema.go drops additionalProperties),
// so nothing refuses an alias before it is renamed here.
var pathNames = []string{"absolute_file_path", "file", "file_path", "target_file", "filePath", "path"}

// pathAliases says how a tool's arguments are renamed: its own path
// argument (top), and for each array argument whose items carry one (the
// mutate tools' ops), that item's. A name is an alias only where the tool
// (or item) does not take it as an argument of its own; a tool with no path
// argument, or with two, gets no renaming.
type pathAliases struct {
	top   string
	items map[string]string // array argument → its items' path argument
	probe [][]byte          // the quoted names whose presence means an alias may be sent
}

// aliasesFor reads the path arguments of a tool's input type t.
func aliasesFor(t reflect.Type) pathAliases {
	a := pathAliases{top: pathField(t)}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return a
	}
	for f := range jsonFields(t) {
		ft := f.typ
		if ft.Kind() != reflect.Slice {
			continue
		}
		if p := pathField(ft.Elem()); p != "" {
			if a.items == nil {
				a.items = map[string]string{}
			}
			a.items[f.name] = p
		}
	}
	// the tool's own name is no sign of an alias when every part of the
	// tool has that one
	own := a.top
	for _, p := range a.items {
		if own == "" {
			own = p
		} else if p != own {
			own = ""
			break
		}
	}
	for _, n := range pathNames {
		if n != own {
			a.probe = append(a.probe, []byte(`"`+n+`"`))
		}
	}
	return a
}

type jsonField struct {
	name string
	typ  reflect.Type
}

// jsonFields yields the JSON names of a struct's fields (embedded structs'
// fields as their own, as encoding/json decodes them).
func jsonFields(t reflect.Type) func(func(jsonField) bool) {
	return func(yield func(jsonField) bool) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tag == "-" || !f.IsExported() && !f.Anonymous {
				continue
			}
			if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
				for g := range jsonFields(f.Type) {
					if !yield(g) {
						return
					}
				}
				continue
			}
			if tag == "" {
				tag = f.Name
			}
			if !yield(jsonField{tag, f.Type}) {
				return
			}
		}
	}
}

// pathField is the one argument of struct type t named in pathNames, ""
// when it has none or several.
func pathField(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return ""
	}
	found := ""
	for f := range jsonFields(t) {
		if slices.Contains(pathNames, f.name) {
			if found != "" {
				return ""
			}
			found = f.name
		}
	}
	return found
}

// rename returns the arguments raw with every alias of a path argument
// renamed to the tool's own name. Two names of one path (the tool's and an
// alias, or two aliases) are INVALID_INPUT, whatever their values: which
// one was meant is not for the server to guess. Arguments that send no
// alias come back as they are, unparsed.
func (a pathAliases) rename(in any) (any, error) {
	if a.top == "" && len(a.items) == 0 || in == nil {
		return in, nil
	}
	raw, ok := in.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(in); err != nil {
			return in, nil // decodeArgs says what is wrong
		}
	}
	if !a.mentionsAlias(raw) {
		return in, nil
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil {
		return in, nil // not an object: decodeArgs says so
	}
	changed, err := renameIn(args, a.top, "")
	if err != nil {
		return nil, err
	}
	for arr, p := range a.items {
		var list []json.RawMessage
		if json.Unmarshal(args[arr], &list) != nil {
			continue
		}
		listChanged := false
		for i, item := range list {
			var m map[string]json.RawMessage
			if json.Unmarshal(item, &m) != nil {
				continue
			}
			ch, err := renameIn(m, p, arr+"["+itoa(i)+"].")
			if err != nil {
				return nil, err
			}
			if ch {
				list[i], _ = json.Marshal(m)
				listChanged = true
			}
		}
		if listChanged {
			args[arr], _ = json.Marshal(list)
			changed = true
		}
	}
	if !changed {
		return in, nil
	}
	b, err := json.Marshal(args)
	return json.RawMessage(b), err
}

// renameIn renames the alias of path argument own in args (at where, for
// the error), reporting whether it renamed one.
func renameIn(args map[string]json.RawMessage, own, where string) (bool, error) {
	if own == "" {
		return false, nil
	}
	var sent []string
	for _, n := range pathNames {
		if _, ok := args[n]; ok {
			sent = append(sent, n)
		}
	}
	switch {
	case len(sent) > 1:
		return false, invalid("send the path once, as "+where+own,
			"%s: %s name the same path argument (%s%s): which one is meant is not guessed", where+strings.Join(sent, ", "+where), nameWord(len(sent)), where, own)
	case len(sent) == 0 || sent[0] == own:
		return false, nil
	}
	args[own] = args[sent[0]]
	delete(args, sent[0])
	return true, nil
}

func nameWord(n int) string {
	if n == 2 {
		return "both"
	}
	return "all"
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// mentionsAlias reports whether raw may hold an alias as a key: a quick
// look before the arguments are parsed into a map.
func (a pathAliases) mentionsAlias(raw []byte) bool {
	for _, q := range a.probe {
		if bytes.Contains(raw, q) {
			return true
		}
	}
	return false
}
