package audit_test

// The store's tests' helpers (journal/journal_test.go, journal/gc_test.go),
// from package journaltest.

import (
	"testing"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/journaltest"
)

func create(t testing.TB) *journal.Journal { return journaltest.Create(t) }

func appendN(t testing.TB, j *journal.Journal, n int, session string) {
	journaltest.AppendN(t, j, n, session)
}

func timed(t *testing.T, j *journal.Journal, t0 time.Time, n int) { journaltest.Timed(t, j, t0, n) }
