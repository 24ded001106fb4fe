package setup

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// jsonc is a settings file as people write them in JSONC: comments before,
// inside and after members, a comment after the last member, a trailing
// comma, a comment before the closing bracket and around the document.
const jsonc = `// the project's settings
{
  // how the editor behaves
  "general": {"vimMode": true, /* for now */ "theme": "dark",},
  "mcpServers": {
    "myserver": { "command": "python" } // the one we had
  },
  "list": [1, 2, // two
    3,
  ],
  /* nothing below */
}
`

// The editor reads JSON with comments and trailing commas, gives it back
// byte for byte when nothing changed, adds a member after the last one
// (its comment kept before the comma, never swallowing it), replaces one
// in place, and takes one out with its own text only: every comment of the
// user's is still there, and what it prints parses to what was asked.
func TestDoc_JSONC(t *testing.T) {
	d, err := parseDoc([]byte(jsonc))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(d.bytes()); got != jsonc {
		t.Fatalf("unchanged, printed:\n%s", got)
	}
	servers := d.root.get("mcpServers")
	servers.set("journal", fromValue(obj{"command", "journal", "args", []any{"serve"}}))
	d.root.get("general").set("theme", scalar("light"))
	d.root.get("list").push(scalar(4))
	d.root.set("new", fromValue(obj{"a", 1}))
	out := d.bytes()
	for _, c := range []string{"// the project's settings", "// how the editor behaves", "/* for now */", "// the one we had", "// two", "/* nothing below */"} {
		if !strings.Contains(string(out), c) {
			t.Errorf("comment %q lost:\n%s", c, out)
		}
	}
	if !strings.Contains(string(out), `"myserver": { "command": "python" }, // the one we had`) {
		t.Errorf("the comma after the last member is not before its comment:\n%s", out)
	}
	var got, want any
	if err := json.Unmarshal(plainJSON(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	json.Unmarshal([]byte(`{"general": {"vimMode": true, "theme": "light"}, "mcpServers": {"myserver": {"command": "python"},
		"journal": {"command": "journal", "args": ["serve"]}}, "list": [1, 2, 3, 4], "new": {"a": 1}}`), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("printed %v\nwant %v\n%s", got, want, out)
	}
	// read again, journal's entry taken out: the rest as it was
	d2, err := parseDoc(out)
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	d2.root.get("mcpServers").del("journal")
	if s := string(d2.bytes()); !strings.Contains(s, `"myserver": { "command": "python" } // the one we had`+"\n  },") {
		t.Errorf("taken out:\n%s", s)
	}
	for _, bad := range []string{`{"a": 1 /* open`, `{"a": / 1}`, `{"a": 1,,}`, `{,}`} {
		if _, err := parseDoc([]byte(bad)); err == nil {
			t.Errorf("%q read as JSON", bad)
		}
	}
}
