package web

import (
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/secrets"
)

// The app masks the secrets the detector finds (journal/secrets) in what
// it shows of the journal — arguments, diffs, blame — unless Reveal: a page
// is easily shared or screenshotted. Contents stay in the journal as they
// were; reverts and restores made here put back the exact bytes.

// maskEvent returns e with the secrets in its arguments masked.
func (s *Server) maskEvent(e *journal.Event) *journal.Event {
	if s.Reveal {
		return e
	}
	return journal.MaskEvent(e)
}

// maskFile returns the content of the file at path with its secrets masked.
func (s *Server) maskFile(path string, b []byte) []byte {
	if s.Reveal || b == nil {
		return b
	}
	return secrets.MaskFile(path, b)
}

// maskLines is maskFile for a file given as lines.
func (s *Server) maskLines(path string, lines []string) []string {
	if s.Reveal {
		return lines
	}
	return secrets.MaskLines(path, lines)
}
