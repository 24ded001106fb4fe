package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// rewindPreview shows what rewinding the whole workspace to its state
// right after event {seq} would change (a dry run): the list of files and
// what happens to each (created, modified, deleted, mode), the form that
// does it, then each file's diff (a page of files at a time, as every
// preview: Server.preview). The form's token binds the newest event
// the preview saw, so the rewind never takes back a change it did not show.
func (s *Server) rewindPreview(w http.ResponseWriter, r *http.Request) {
	seq, err := seqParam(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err, "")
		return
	}
	res, err := s.e.Rewind(r.Context(), seq, replay.RevertOptions{DryRun: true, Actor: &s.actor, WriteReadOnly: true})
	// read after the dry run, which brought in every batch a writer had logged
	var through uint64
	if verr := s.e.Journal().View(func(tx *journal.Tx) error { through = tx.Last(); return nil }); verr != nil {
		s.fail(w, r, http.StatusInternalServerError, verr, "")
		return
	}
	data := map[string]any{"Title": fmt.Sprintf("Rewind to event %d", seq), "Seq": seq, "Through": through,
		"Token": s.token(rewindAction(through), seq)}
	hint := "fix or move the path named, then open this page again: nothing was changed"
	if errors.Is(err, replay.ErrBadEvent) {
		hint = "the timeline lists the events"
	}
	s.preview(w, r, "rewind.html", data, res, err, hint)
}

// rewind applies the rewind the preview offered, as one new event, unless
// the journal has moved on since the preview (then it asks for a new look).
func (s *Server) rewind(w http.ResponseWriter, r *http.Request) {
	seq, err := seqParam(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err, "")
		return
	}
	through, _ := strconv.ParseUint(r.PostFormValue("through"), 10, 64) // a wrong one fails the token
	if !s.confirmed(w, r, rewindAction(through), seq, "the rewind page") {
		return
	}
	res, err := s.e.Rewind(r.Context(), seq, replay.RevertOptions{Through: through, Actor: &s.actor, WriteReadOnly: true})
	switch {
	case errors.Is(err, replay.ErrNothing):
		http.Redirect(w, r, fmt.Sprintf("/event/%d", seq), http.StatusSeeOther)
	case errors.Is(err, replay.ErrConflict):
		s.fail(w, r, http.StatusConflict, err, fmt.Sprintf("open the rewind page again (/event/%d/rewind): it shows what the rewind does now", seq))
	case err != nil:
		s.fail(w, r, http.StatusConflict, err, "nothing was changed")
	default:
		http.Redirect(w, r, fmt.Sprintf("/event/%d", res.Seq), http.StatusSeeOther)
	}
}

// rewindAction is the CSRF token's action of a rewind previewed when the
// journal's newest event was through.
func rewindAction(through uint64) string { return fmt.Sprintf("rewind through %d", through) }
