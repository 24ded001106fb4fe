package web

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

// promptUndoPreview shows what undoing prompt {ref} (its id or its event's
// number) and the later prompts of its session would do (a dry run), or
// what blocks it, and the form that does it. The form's token binds the
// newest event the preview saw.
func (s *Server) promptUndoPreview(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("ref")
	var through uint64
	var p *replay.Prompt
	err := s.e.Journal().View(func(tx *journal.Tx) (err error) {
		through = tx.Last()
		if p, _, err = replay.FindPrompt(tx, ref); err == nil {
			p = s.maskPrompt(tx, p)
		}
		return err
	})
	if err != nil {
		s.fail(w, r, http.StatusNotFound, err, "the timeline names each prompt")
		return
	}
	data := map[string]any{"Title": "Undo prompt " + p.ID, "Ref": ref, "Prompt": p, "Through": through, "Token": s.token("undo-prompt "+ref, through)}
	res, err := s.e.UndoPrompt(r.Context(), ref, replay.RevertOptions{DryRun: true, Through: through, Actor: &s.actor, WriteReadOnly: true})
	s.preview(w, r, "promptundo.html", data, res, err, "the timeline names each prompt")
}

// promptUndo applies the undo the preview offered, as one new event.
func (s *Server) promptUndo(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("ref")
	through, _ := strconv.ParseUint(r.PostFormValue("through"), 10, 64) // a wrong one fails the token
	if !s.confirmed(w, r, "undo-prompt "+ref, through, "the prompt's undo page") {
		return
	}
	res, err := s.e.UndoPrompt(r.Context(), ref, replay.RevertOptions{Through: through, Actor: &s.actor, WriteReadOnly: true})
	s.undone(w, r, res, err)
}

// promptRewind sends to the preview of the rewind to the exact state
// right before prompt {ref}: its prompt event's (which changes no file),
// else the event's before the first that names it.
func (s *Server) promptRewind(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("ref")
	var p *replay.Prompt
	var start uint64
	err := s.e.Journal().View(func(tx *journal.Tx) (err error) {
		p, start, err = replay.FindPrompt(tx, ref)
		return err
	})
	if err != nil {
		s.fail(w, r, http.StatusNotFound, err, "the timeline names each prompt")
		return
	}
	at := start
	if p.Seq == 0 {
		at = start - 1
	}
	http.Redirect(w, r, fmt.Sprintf("/event/%d/rewind", at), http.StatusSeeOther)
}

// maskPrompt is p with the secrets in its text masked (as its event's
// arguments are), unless the app reveals them.
func (s *Server) maskPrompt(tx *journal.Tx, p *replay.Prompt) *replay.Prompt {
	if p == nil || p.Seq == 0 {
		return p
	}
	ev, err := tx.Event(p.Seq)
	if err != nil {
		return p
	}
	return replay.PromptOfEvent(s.mask().Event(ev))
}
