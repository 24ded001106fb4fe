package web

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/styles"
)

var update = flag.Bool("update", false, "rewrite assets/hl.css")

// TestHighlightCSS: assets/hl.css is the stylesheet of the highlighting
// classes made from chroma's GitHub styles, light, and dark where the
// system asks for it (go test ./cmd/journal/web -run TestHighlightCSS
// -update rewrites it). It is made here, not at run time, so that the
// binary does not build chroma's styles at every start.
func TestHighlightCSS(t *testing.T) {
	want := highlightCSS()
	if *update {
		if err := os.WriteFile("assets/hl.css", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("assets/hl.css")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("assets/hl.css is not chroma's styles (%v): run go test ./cmd/journal/web -run TestHighlightCSS -update", err)
	}
}

// highlightCSS is the stylesheet of the highlighting classes: GitHub's
// colours, light, and dark where the system asks for it.
func highlightCSS() []byte {
	var b bytes.Buffer
	types := slices.Sorted(maps.Keys(chroma.StandardTypes))
	rules := func(st *chroma.Style, indent string) {
		text := st.Get(chroma.Text)
		for _, tt := range types {
			cls := chroma.StandardTypes[tt]
			if cls == "" || tt == chroma.Text || tt == chroma.Background {
				continue
			}
			e := st.Get(tt)
			var decl []string
			if e.Colour.IsSet() && e.Colour != text.Colour {
				decl = append(decl, "color:"+e.Colour.String())
			}
			if e.Bold == chroma.Yes {
				decl = append(decl, "font-weight:600")
			}
			if e.Italic == chroma.Yes {
				decl = append(decl, "font-style:italic")
			}
			if len(decl) > 0 {
				fmt.Fprintf(&b, "%s.hl .%s{%s}\n", indent, cls, strings.Join(decl, ";"))
			}
		}
	}
	rules(styles.Get("github"), "")
	b.WriteString("@media (prefers-color-scheme: dark) {\n")
	rules(styles.Get("github-dark"), "  ")
	b.WriteString("}\n")
	return b.Bytes()
}
