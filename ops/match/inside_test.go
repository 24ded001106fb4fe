package match

import (
	"errors"
	"testing"
)

// TestLocate_SearchInsideItsReplacement: a retried change whose
// replacement adds lines on both sides of its search text finds the search
// inside the replacement it made; it is applied already only where the
// caller's evidence (MadeAt) names the replacement, else refused — never
// made a second time around the first (issue 59 §5, the fuzzer's retry
// class).
func TestLocate_SearchInsideItsReplacement(t *testing.T) {
	for _, tc := range []struct{ name, search, replace, file string }{
		{name: "exact",
			search:  "func f() {}\n",
			replace: "// f does nothing.\nfunc f() {}\n\n// g does nothing either.\n",
			file:    "package p\n\n// f does nothing.\nfunc f() {}\n\n// g does nothing either.\n"},
		{name: "search matched at the normalized level",
			search:  "func (s *signer) Name() string    { return s.principal }\n",
			replace: "// Name implements note.Signer: the principal.\nfunc (s *signer) Name() string { return s.principal }\n\n// KeyHash implements note.Signer.\n",
			file:    "package p\n\n// Name implements note.Signer: the principal.\nfunc (s *signer) Name() string { return s.principal }\n\n// KeyHash implements note.Signer.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Change{Search: tc.search, Replace: tc.replace, Options: Options{Fuzzy: true}}
			if _, err := Locate(tc.file, []Change{c}); !errors.Is(err, ErrMaybeRepeat) {
				t.Fatalf("without evidence: %v, want ErrMaybeRepeat", err)
			}
			c.MadeAt = 3
			got, applied, err := Apply(tc.file, []Change{c})
			if err != nil || got != tc.file || !applied[0].AlreadyApplied {
				t.Fatalf("with evidence: %q %+v %v", got, applied, err)
			}
			c.MadeAt, c.AllowRepeat = 0, true
			if got, _, err := Apply(tc.file, []Change{c}); err != nil || got == tc.file {
				t.Fatalf("allow_repeat: %q %v", got, err)
			}
		})
	}
}
