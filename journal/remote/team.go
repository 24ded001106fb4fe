package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// indexPage is the most events one page of a workspace's index holds: the
// newest page, which a team view reads first, stays this small whatever
// the workspace's size.
const indexPage = 256

// Index is a workspace's team index (workspaces/<ws>/index.json): its
// events, newest last, in pages of at most indexPage events, each page an
// object of the events' export lines as a segment holds them. Only the last
// page may hold fewer; a push rewrites it as a new object. It is written
// with a conditional write (If-Match on the ETag it was read with,
// If-None-Match for the first), so a writer that did not read the index it
// replaces is refused, and each workspace has its own: pushes of different
// workspaces never touch one object.
type Index struct {
	Version   int         `json:"version"` // 1
	Workspace string      `json:"workspace"`
	Last      uint64      `json:"last"` // the newest event indexed: the head's once a push ends
	Hash      snapshot.ID `json:"hash"` // its hash
	Pages     []Segment   `json:"pages"`
	Updated   time.Time   `json:"updated"`
	// Repository is the git repository the workspace's files are a
	// checkout of, as the newest push that knew it found it; nil: none
	// known. It is the pusher's word, like the workspace's ID: no hash
	// covers it.
	Repository *Repository `json:"repository,omitempty"`
}

// Repository names the git repository a workspace is a checkout of. Its
// identity is its root commits: every clone and fork of a repository has
// them, and two unrelated repositories never share one (a commit's ID is
// the hash of its content, history included).
type Repository struct {
	// Roots are its root commits (git rev-list --max-parents=0 HEAD),
	// sorted; none before its first commit.
	Roots []string `json:"roots,omitempty"`
	// URL is its origin's URL (remote.origin.url), any user and password
	// taken out; it identifies a repository without commits.
	URL string `json:"url,omitempty"`
	// Prefix is the workspace's root inside the repository, slash-separated
	// and ending in "/" ("": the repository's top): a journal key K is the
	// repository's path Prefix+K.
	Prefix string `json:"prefix,omitempty"`
}

// Shares reports whether r and o are one repository: they have a root
// commit in common or, when either has none, the same origin URL.
func (r *Repository) Shares(o *Repository) bool {
	if r == nil || o == nil {
		return false
	}
	for _, x := range r.Roots {
		if slices.Contains(o.Roots, x) {
			return true
		}
	}
	return (len(r.Roots) == 0 || len(o.Roots) == 0) && r.URL != "" && r.URL == o.URL
}

// same reports whether r and o say the same (nil for none).
func (r *Repository) same(o *Repository) bool {
	if r == nil || o == nil {
		return r == o
	}
	return slices.Equal(r.Roots, o.Roots) && r.URL == o.URL && r.Prefix == o.Prefix
}

// TeamRepository returns the repository workspace ws's index names (nil:
// none, or no index), by one GET of the index.
func TeamRepository(ctx context.Context, s *Store, ws string) (*Repository, error) {
	ix, _, err := s.readIndex(ctx, ws)
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrDamaged) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ix.Repository, nil
}

func indexKey(ws string) string { return "workspaces/" + ws + "/index.json" }

func pageKey(ws string, first, last uint64) string {
	return fmt.Sprintf("workspaces/%s/index/%020d-%020d.jsonl.zst", ws, first, last)
}

// readIndex returns workspace ws's index and its ETag (the ETag also when
// the object is there but is no index: a push replaces it).
func (s *Store) readIndex(ctx context.Context, ws string) (*Index, string, error) {
	return readJSON(ctx, s, indexKey(ws), "a workspace index (altered)", func(ix *Index) bool { return ix.Version == 1 && ix.Workspace == ws })
}

// updateIndex brings workspace ws's index up to head (which the push has
// written) from journal j: the pages after the last full one are written
// again with the events since. An index that does not match the journal
// (altered, or written by another journal) is rebuilt whole. An encrypted
// remote has none: its pages would hold the arguments in the clear. repo,
// when not nil, is recorded as the workspace's repository (nil keeps the
// one recorded).
func updateIndex(ctx context.Context, s *Store, j *journal.Journal, ws string, head *Head, repo *Repository) error {
	if s.Encrypted() || head.Last == head.BaseSeq {
		return nil
	}
	ix, etag, err := s.readIndex(ctx, ws)
	switch {
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrDamaged):
		ix = nil
	case err != nil:
		return err
	}
	if ix != nil && ix.Last == head.Last && ix.Hash == head.Hash && (repo == nil || repo.same(ix.Repository)) {
		return nil
	}
	if repo == nil && ix != nil {
		repo = ix.Repository
	}
	var baseSeq uint64
	err = j.View(func(tx *journal.Tx) error {
		baseSeq, _ = tx.Base()
		if ix == nil || ix.Last > head.Last || len(ix.Pages) == 0 || ix.Pages[0].First <= baseSeq {
			ix = nil
			return nil
		}
		if e, err := tx.Event(ix.Last); err != nil || e.Hash != ix.Hash {
			ix = nil // not this journal's events: rebuilt
		}
		return nil
	})
	if err != nil {
		return err
	}
	first := max(head.BaseSeq, baseSeq) + 1
	var drop []Segment
	if ix == nil {
		ix = &Index{Version: 1, Workspace: ws}
	} else {
		first = ix.Last + 1
		if n := len(ix.Pages); n > 0 && ix.Pages[n-1].Last-ix.Pages[n-1].First+1 < indexPage {
			drop = ix.Pages[n-1:] // the partial page: written again with the events after it
			ix.Pages, first = ix.Pages[:n-1], drop[0].First
		}
	}
	for f := first; f <= head.Last; f += indexPage {
		l := min(f+indexPage-1, head.Last)
		b, err := buildSegment(j, ws, f, l, false)
		if err != nil {
			return err
		}
		b.sg.Key = pageKey(ws, f, l)
		if _, err := s.put(ctx, b.sg.Key, b.z, "", false); err != nil {
			return err
		}
		ix.Pages = append(ix.Pages, b.sg)
		ix.Last, ix.Hash = l, b.lastHash
	}
	ix.Updated, ix.Repository = time.Now().UTC(), repo
	ib, _ := json.MarshalIndent(ix, "", " ")
	if _, err := s.put(ctx, indexKey(ws), ib, etag, etag == ""); errors.Is(err, ErrConflict) {
		return fail(ErrConflict, "remote %s: workspace %s's index moved while this push ran: another writer is pushing to it (run push again once it is the only writer)", s.r.Name, ws)
	} else if err != nil {
		return err
	}
	for _, d := range drop {
		if d.Key != ix.Pages[len(ix.Pages)-1].Key {
			s.remove(ctx, d.Key) // no index names it now; one left behind is only garbage
		}
	}
	return nil
}

// TeamWorkspace is what ReadTeam read of one workspace.
type TeamWorkspace struct {
	Workspace string
	// Events are the events read, oldest first, each checked against its
	// hash and the chain back from the workspace's head: the newest ones
	// (as many as Enough asked for), or all when Complete.
	Events []*journal.Event
	// Complete says Events start at the first event the remote holds.
	Complete bool
	// FromSegments says the index could not serve (none: pushed by an
	// older journal; behind the head: a push stopped before it; damaged):
	// the events were read from the segments, whole.
	FromSegments bool
	// Note says why, when FromSegments and nothing is damaged.
	Note string
	// Repository is the git repository the workspace's index names (nil:
	// none, or no index read): the pusher's word, as Index.Repository.
	Repository *Repository
	// Problems name each object that is missing or altered; nothing read
	// from it is in Events.
	Problems []string
}

// TeamOptions tune ReadTeam.
type TeamOptions struct {
	// Enough, if set, is asked after each index page read (newest first)
	// with the events read so far, oldest first: true ends the reading.
	// Nil reads every event.
	Enough func(evs []*journal.Event) bool
	// IndexOnly reads no segment when the index cannot serve (Verify
	// checks them itself): Events are then empty and FromSegments set.
	IndexOnly bool
}

// TeamWorkspaces lists the workspaces on the store by one listing of the
// workspaces' folder (with a delimiter: its size does not grow with the
// events they hold).
func TeamWorkspaces(ctx context.Context, s *Store) ([]string, error) {
	var out []string
	p := s3.NewListObjectsV2Paginator(s.c, &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket), Prefix: aws.String(s.key("workspaces/")), Delimiter: aws.String("/")})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, s.wrap(err, "workspaces/")
		}
		for _, cp := range page.CommonPrefixes {
			ws := strings.TrimSuffix(strings.TrimPrefix(aws.ToString(cp.Prefix), s.key("workspaces/")), "/")
			if ws != "" {
				out = append(out, ws)
			}
		}
	}
	return out, nil
}

// ReadTeam reads workspace ws's newest events for a team view: its head,
// its index, and its index's pages newest first until o.Enough is
// satisfied. Each page is checked as a segment is (its blake3 against the
// index, each event against its hash and the one before it) and then
// against the head: the newest page's last event must be the head's, and
// each older page's last event the one the page after it links to — so an
// altered index or page is found, named in Problems and not used; the
// workspace is then read from its segments, which verify --remote checks
// the same way. An error is returned only when the store cannot be read.
func ReadTeam(ctx context.Context, s *Store, ws string, o TeamOptions) (*TeamWorkspace, error) {
	tw := &TeamWorkspace{Workspace: ws}
	head, _, err := s.readHead(ctx, ws)
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrDamaged) {
		tw.Problems = append(tw.Problems, cause(err))
		return tw, nil
	}
	if err != nil {
		return nil, err
	}
	if head.Last == head.BaseSeq {
		tw.Complete = true
		return tw, nil
	}
	ix, _, err := s.readIndex(ctx, ws)
	switch {
	case errors.Is(err, ErrNotFound):
		tw.Note = fmt.Sprintf("workspace %s has no index on the remote (pushed by an older journal, or an encrypted remote): read from its segments; a push from it writes one", ws)
		return tw, s.teamSegments(ctx, head, tw, o)
	case errors.Is(err, ErrDamaged):
		tw.Problems = append(tw.Problems, cause(err))
		return tw, s.teamSegments(ctx, head, tw, o)
	case err != nil:
		return nil, err
	}
	tw.Repository = ix.Repository
	switch {
	case ix.Last < head.Last: // a push stopped between the head and the index
		tw.Note = fmt.Sprintf("workspace %s's index ends at event %d, its head at %d: read from its segments; a push from it brings the index up", ws, ix.Last, head.Last)
		return tw, s.teamSegments(ctx, head, tw, o)
	case ix.Last != head.Last || ix.Hash != head.Hash:
		tw.Problems = append(tw.Problems, fmt.Sprintf("%s: it names event %d (%s) as the newest, the head event %d (%s) (altered)", indexKey(ws), ix.Last, ix.Hash.Short(), head.Last, head.Hash.Short()))
		return tw, s.teamSegments(ctx, head, tw, o)
	}
	anchorSeq, anchor := head.Last, head.Hash // what the next page read (older) must end in
	var pages [][]*journal.Event              // newest first
	n := 0
	for i := len(ix.Pages) - 1; i >= 0; i-- {
		pg := ix.Pages[i]
		if pg.Last != anchorSeq || pg.First > pg.Last || !strings.HasPrefix(pg.Key, "workspaces/"+ws+"/index/") {
			tw.Problems = append(tw.Problems, fmt.Sprintf("%s: its page %s does not end at event %d where the page after it starts (altered)", indexKey(ws), pg.Key, anchorSeq))
			return tw, s.teamSegments(ctx, head, tw, o)
		}
		sr, err := s.segmentAfter(ctx, pg, pg.First-1, snapshot.ID{}, false)
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrDamaged) {
			tw.Problems = append(tw.Problems, cause(err))
			return tw, s.teamSegments(ctx, head, tw, o)
		} else if err != nil {
			return nil, err
		}
		last := sr.evs[len(sr.evs)-1]
		if link := last.NextLink(); i == len(ix.Pages)-1 && last.Hash != anchor || i < len(ix.Pages)-1 && link != anchor {
			tw.Problems = append(tw.Problems, fmt.Sprintf("%s: event %d there is not the one the chain from the head names (altered)", pg.Key, last.Seq))
			return tw, s.teamSegments(ctx, head, tw, o)
		}
		pages = append(pages, sr.evs)
		n += len(sr.evs)
		anchorSeq, anchor = pg.First-1, sr.evs[0].Prev
		if o.Enough != nil && o.Enough(joinPages(pages, n)) {
			break
		}
	}
	tw.Events = joinPages(pages, n)
	if anchorSeq == head.BaseSeq {
		tw.Complete = true
	} else if o.Enough == nil || !o.Enough(tw.Events) { // the index starts after the remote's first event
		tw.Events = nil
		tw.Note = fmt.Sprintf("workspace %s's index starts at event %d: the events before it were read from its segments", ws, anchorSeq+1)
		return tw, s.teamSegments(ctx, head, tw, o)
	}
	return tw, nil
}

// joinPages is pages (newest first) as one run of events, oldest first.
func joinPages(pages [][]*journal.Event, n int) []*journal.Event {
	out := make([]*journal.Event, 0, n)
	for i := len(pages) - 1; i >= 0; i-- {
		out = append(out, pages[i]...)
	}
	return out
}

// teamSegments reads every event of head's workspace from its segments,
// checked as walk checks them; a missing or altered segment is a problem
// and leaves the workspace without events. With o.IndexOnly it reads
// nothing.
func (s *Store) teamSegments(ctx context.Context, head *Head, tw *TeamWorkspace, o TeamOptions) error {
	tw.FromSegments, tw.Events, tw.Complete = true, nil, false
	if o.IndexOnly {
		return nil
	}
	var evs []*journal.Event
	err := s.walk(ctx, head, func(sr *segRead, _ *keyFile) error {
		evs = append(evs, sr.evs...)
		return nil
	})
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrDamaged) {
		tw.Problems = append(tw.Problems, cause(err))
		return nil
	}
	if err != nil {
		return err
	}
	tw.Events, tw.Complete = evs, true
	return nil
}

// ReadContent returns content id for a team view's diff: read from the
// store (its manifest when it has several chunks, then its chunks, nothing
// else) and checked against id. A content larger than limit is not read:
// its size is returned with no bytes. An encrypted remote's contents need
// the keys of its segments, which a team view does not read: ErrUsage.
func ReadContent(ctx context.Context, s *Store, id snapshot.ID, limit int64) ([]byte, int64, error) {
	if s.Encrypted() {
		return nil, 0, fail(ErrUsage, "remote %s is encrypted: a content is read with its key (journal clone the workspace to see its diffs)", s.r.Name)
	}
	size, chunks, _, err := s.contentChunks(ctx, id, nil)
	if err != nil {
		return nil, 0, err
	}
	if size > limit {
		return nil, size, nil
	}
	var b []byte
	for _, c := range chunks {
		cb, err := s.chunk(ctx, c, nil)
		if err != nil {
			return nil, 0, err
		}
		if b = append(b, cb...); int64(len(b)) > limit {
			return nil, int64(len(b)), nil
		}
	}
	if snapshot.Sum(b) != id {
		return nil, 0, fail(ErrDamaged, "remote %s: the chunks %s names make another content (%s)", s.r.Name, contentKey(id), snapshot.Sum(b).Short())
	}
	return b, int64(len(b)), nil
}
