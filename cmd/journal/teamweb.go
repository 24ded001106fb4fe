package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/journalfs/journal/cmd/journal/web"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/remote"
	"github.com/journalfs/journal/snapshot"
	"github.com/spf13/cobra"
)

func newTeamWebCmd(a *app) *cobra.Command {
	var f webFlags
	var name string
	cmd := &cobra.Command{
		Use:   "web",
		Short: "The team view in the web app: one timeline, lines by agent and person as plots, each event's diff",
		Long: `team web serves the web app's team page over a remote, on this machine (no workspace needed): every
workspace's events merged newest first (a page at a time: "Older events" fetches the next), plots of the lines
each agent and person added per day and of their share of each day's lines, filters (workspace, agent, person or
actor, since), and each event's page with its diffs, read from the remote (the event's index pages and the
contents it names, nothing else). It reads as team log and team stats do: every event is checked against its
hash and the chain from its workspace's head; an altered object is named on the page and nothing read from it is
shown or counted. Secrets are masked (--reveal shows them). Flags --addr, --token and --open are web's.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			s, err := openRemote(ctx, name)
			if err != nil {
				return remoteErr(err)
			}
			srv, err := web.NewTeam(&teamSource{a: a, s: s})
			if err != nil {
				return err
			}
			return a.serveWeb(ctx, srv, f)
		},
	}
	cmd.Flags().StringVar(&name, "remote", "", "the remote to read (journal remote list; the only one if not given)")
	addWebFlags(cmd, &f)
	a.addReveal(cmd)
	return cmd
}

// teamSource is the team page's source (web.TeamSource): the remote read
// with the team commands' code (readTeamFrom, attributeRaw, teamStats).
type teamSource struct {
	a *app
	s *remote.Store
}

func (t *teamSource) Remote() string { return t.s.Remote().Name }

// Timeline reads the events q selects as team log does (n > 0: until n of
// each workspace match) and, with n = 0, counts their lines as team stats
// does, summed per day and author.
func (t *teamSource) Timeline(ctx context.Context, q web.TeamQuery, n int) (*web.TeamTimeline, error) {
	f := teamFlags{workspace: q.Workspace, repo: q.Repo, agent: q.Agent, actor: q.Actor, since: q.Since}
	if err := f.parse(); err != nil {
		return nil, fmt.Errorf("%w: %v", web.ErrTeamQuery, err)
	}
	tr, err := t.a.readTeamFrom(ctx, t.s, &f, n)
	if err != nil {
		return nil, err
	}
	tl := &web.TeamTimeline{Problems: tr.problems, Notes: tr.notes}
	for _, te := range tr.events {
		r := te.row()
		r.Repository = tr.repos[te.ws]
		tl.Rows = append(tl.Rows, r)
	}
	if n == 0 {
		rows, _, err := t.a.teamStats(&f, tr)
		if err != nil {
			return nil, err
		}
		at := map[[2]string]int{} // day, author → index in tl.Lines
		for _, r := range rows {
			k := [2]string{r.Day, r.Author}
			i, ok := at[k]
			if !ok {
				i = len(tl.Lines)
				at[k] = i
				tl.Lines = append(tl.Lines, web.TeamLines{Day: r.Day, Author: r.Author, Kind: r.Kind})
			}
			l := &tl.Lines[i]
			l.Events += r.Events
			l.Added += r.Added
			l.Removed += r.Removed
		}
	}
	return tl, nil
}

// row is te as the team page shows it.
func (te *teamEvent) row() web.TeamRow {
	r := web.TeamRow{Workspace: te.ws, Event: te.e, Agent: te.agent, Person: te.person, Who: te.who, Model: te.model}
	if te.prompt != nil {
		r.Prompt = te.prompt.Excerpt
	}
	return r
}

// Event reads workspace ws's index pages, newest first, down to the one
// that holds event seq (each checked as team log checks them).
func (t *teamSource) Event(ctx context.Context, ws string, seq uint64) (*web.TeamRow, []string, error) {
	tw, err := remote.ReadTeam(ctx, t.s, ws, remote.TeamOptions{Enough: func(evs []*journal.Event) bool { return len(evs) > 0 && evs[0].Seq <= seq }})
	if err != nil {
		return nil, nil, remoteErr(err)
	}
	for _, te := range t.a.attributeRaw(ws, tw.Events) {
		if te.e.Seq == seq {
			te.e = t.a.mask().Event(te.e)
			r := te.row()
			return &r, tw.Problems, nil
		}
	}
	return nil, tw.Problems, nil
}

func (t *teamSource) Content(ctx context.Context, id snapshot.ID, limit int64) ([]byte, int64, error) {
	return remote.ReadContent(ctx, t.s, id, limit)
}
