package gitai_test

import (
	"bytes"
	"testing"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"

	"github.com/journalfs/journal/replay/gitai"
)

// PAE is DSSE's pre-authentication encoding byte for byte, as the DSSE
// library computes it: the bytes a signature signs (empty and non-ASCII
// payloads, a type of another length).
func TestPAE_AsTheDSSELibrary(t *testing.T) {
	for _, c := range []struct{ typ, body string }{
		{gitai.PayloadType, `{"_type":"https://in-toto.io/Statement/v1"}`},
		{gitai.PayloadType, ""},
		{"http://example.com/HelloWorld", "hello world"},
		{"application/x", "é\x00\n ✓"},
	} {
		if got, want := gitai.PAE(c.typ, []byte(c.body)), dsse.PAE(c.typ, []byte(c.body)); !bytes.Equal(got, want) {
			t.Errorf("PAE(%q, %q) = %q, the library's %q", c.typ, c.body, got, want)
		}
	}
	// the DSSE spec's own example
	if got := string(gitai.PAE("http://example.com/HelloWorld", []byte("hello world"))); got != "DSSEv1 29 http://example.com/HelloWorld 11 hello world" {
		t.Errorf("the spec's example: %q", got)
	}
}
