package web

import (
	"github.com/journalfs/journal/journal/audit"
)

// The app masks the secrets the detector finds (journal/secrets) in what
// it shows of the journal — arguments, diffs, blame — unless Reveal: a page
// is easily shared or screenshotted. Contents stay in the journal as they
// were; reverts and restores made here put back the exact bytes.

// mask masks what the pages show, unless Reveal.
func (s *Server) mask() audit.Masking { return audit.Masking{Reveal: s.Reveal} }
