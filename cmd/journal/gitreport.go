package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
	"github.com/journalfs/journal/replay/gitai"
)

// grReportTitle opens every `journal git stats --markdown` report: the CI
// recipe (docs/ci/github-actions-journal-report.yml) finds its earlier
// comment on a pull request by it, to update that one comment.
const grReportTitle = "### Who wrote these lines (journal)"

// grPromptTexts is, for each prompt id st names, its reference with the
// start of its text (secrets masked, cut to one line of 60 characters),
// where this workspace's journal records the prompt. A missing or busy
// journal (a CI runner has none) leaves the ids alone.
func (a *app) grPromptTexts(st *gitai.Stats) map[string]*promptRef {
	refs := map[string]*promptRef{}
	if len(st.Total.Prompts) == 0 || a.locate() != nil {
		return refs
	}
	a.view(func(tx *journal.Tx) error {
		for _, p := range st.Total.Prompts {
			if _, ok := refs[p.Prompt]; ok {
				continue
			}
			found, _, err := replay.FindPrompt(tx, p.Prompt)
			if err != nil || found.ID != p.Prompt {
				continue
			}
			if found.Seq != 0 {
				ev, err := tx.Event(found.Seq)
				if err != nil {
					continue
				}
				found = replay.PromptOfEvent(a.mask().Event(ev))
			}
			refs[p.Prompt] = newPromptRef(found)
		}
		return nil
	})
	return refs
}

// mdText escapes the characters GitHub Markdown would read as formatting,
// a table's cell bound or HTML, so that names and prompt texts show as
// they are.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range strings.Join(strings.Fields(s), " ") {
		if strings.ContainsRune("\\`*_[]<>|#~!", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// printGitStatsMarkdown prints st as a pull request's comment: the share of
// added lines by agents (per agent and model), people and nobody known;
// the agent lines that survived review (reached the tip unchanged) and
// those changed or removed within the range; the sessions and the prompts
// their lines served (prompts holds their texts where known).
func printGitStatsMarkdown(out io.Writer, st *gitai.Stats, prompts map[string]*promptRef) error {
	w := bufio.NewWriter(out)
	t := st.Total
	fmt.Fprintf(w, "%s\n\n", grReportTitle)
	fmt.Fprintf(w, "`%s` (tip `%s`): %d commits, %d with a note; **%d lines added**, %s by agents.\n\n",
		strings.ReplaceAll(strings.Join(st.Range, " "), "`", ""), grShort(st.Tip), t.Commits, t.Noted, t.Added, grPercent(t.Agent, t.Added))
	fmt.Fprintln(w, "| who | model | lines added | share | still in the tip |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: |")
	type agentModel struct{ tool, model string }
	var order []agentModel
	byAM := map[agentModel]*gitai.Group{}
	for _, s := range t.Sessions {
		k := agentModel{s.Tool, s.Model}
		g := byAM[k]
		if g == nil {
			g = &gitai.Group{}
			byAM[k] = g
			order = append(order, k)
		}
		g.Lines += s.Lines
		g.Survived += s.Survived
	}
	orDash := func(s string) string {
		if s == "" {
			return "–"
		}
		return mdText(s)
	}
	for _, k := range order {
		g := byAM[k]
		fmt.Fprintf(w, "| agent %s | %s | %d | %s | %d |\n", orDash(k.tool), orDash(k.model), g.Lines, grPercent(g.Lines, t.Added), g.Survived)
	}
	fmt.Fprintf(w, "| people | – | %d | %s | – |\n", t.Human, grPercent(t.Human, t.Added))
	fmt.Fprintf(w, "| untracked | – | %d | %s | – |\n", t.Untracked, grPercent(t.Untracked, t.Added))
	fmt.Fprintf(w, "\n**Survived review:** %d of %d agent lines (%s) reached `%s` unchanged, as git blame says; changed or removed within the range: %d.\n",
		t.Survived, t.Agent, grPercent(t.Survived, t.Agent), grShort(st.Tip), t.Agent-t.Survived)
	sessionID := map[string]string{}
	if len(t.Sessions) > 0 {
		fmt.Fprintln(w, "\n| session | agent | model | lines | survived |")
		fmt.Fprintln(w, "| --- | --- | --- | ---: | ---: |")
		for _, s := range t.Sessions {
			id := s.ID
			if id == "" {
				id = s.Session
			}
			sessionID[s.Session] = id
			fmt.Fprintf(w, "| %s | %s | %s | %d | %d |\n", mdText(id), orDash(s.Tool), orDash(s.Model), s.Lines, s.Survived)
		}
	}
	if len(t.Prompts) > 0 {
		fmt.Fprintln(w, "\n| prompt | session | lines | survived |")
		fmt.Fprintln(w, "| --- | --- | ---: | ---: |")
		for _, p := range t.Prompts {
			label := mdText(shortPrompt(p.Prompt))
			if ref := prompts[p.Prompt]; ref != nil && ref.Excerpt != "" {
				label += ": " + mdText(ref.Excerpt)
			}
			sess := sessionID[p.Session]
			if sess == "" {
				sess = p.Session
			}
			fmt.Fprintf(w, "| %s | %s | %d | %d |\n", label, mdText(sess), p.Lines, p.Survived)
		}
	}
	if t.Noted < t.Commits {
		fmt.Fprintf(w, "\n%d commits have no note: their lines are counted untracked (`journal git note` computes notes).\n", t.Commits-t.Noted)
	}
	return w.Flush()
}
