package remote

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/snapshot"
)

// checkpointDir holds workspace ws's checkpoints, one object each, named
// by tree size and signing time (20 digits each) so that they list in
// order; like segments they are immutable, under Object Lock with a
// retention, and never overwritten (If-None-Match).
func checkpointDir(ws string) string { return "workspaces/" + ws + "/checkpoints/" }

// checkpointKey names c's object. A copy of a checkpoint that carries more
// than its signer's signature (a witness cosigned it) is an object of its
// own, named also by a digest of the note, since the first copy pushed is
// never overwritten; Checkpoints merges the copies' signatures.
func checkpointKey(ws string, c *audit.Checkpoint) string {
	base := fmt.Sprintf("%s%020d-%020d", checkpointDir(ws), c.Size, c.Time.UnixNano())
	if c.Signatures() > 1 {
		return fmt.Sprintf("%s-%s.note", base, snapshot.Sum(c.Note).String()[:16])
	}
	return base + ".note"
}

// pushCheckpoints sends the journal's checkpoints the remote lacks, of
// trees whose events the remote holds (up to event last); it returns how
// many it sent.
func pushCheckpoints(ctx context.Context, s *Store, j *journal.Journal, ws string, last uint64) (int, error) {
	var cps []*audit.Checkpoint
	var base uint64
	err := j.View(func(tx *journal.Tx) (err error) {
		base = audit.TreeBase(tx)
		cps, err = audit.Checkpoints(tx)
		return err
	})
	if err != nil || len(cps) == 0 {
		return 0, err
	}
	keys, err := s.list(ctx, checkpointDir(ws))
	if err != nil {
		return 0, err
	}
	there := map[string]bool{}
	for _, k := range keys {
		there[k] = true
	}
	sent := 0
	for _, c := range cps {
		k := checkpointKey(ws, c)
		if there[k] || base+uint64(c.Size) > last {
			continue
		}
		if _, err := s.put(ctx, k, c.Note, "", true); err != nil {
			return sent, err
		}
		sent++
	}
	return sent, nil
}

// Checkpoints returns workspace ws's checkpoints on the store, smallest
// tree first, their signatures not checked (journal.Reopen does).
func Checkpoints(ctx context.Context, s *Store, ws string) ([]*audit.Checkpoint, error) {
	keys, err := s.list(ctx, checkpointDir(ws))
	if err != nil {
		return nil, err
	}
	sort.Strings(keys)
	var out []*audit.Checkpoint
	for _, k := range keys {
		if !strings.HasSuffix(k, ".note") {
			continue
		}
		b, _, err := s.get(ctx, k)
		if err != nil {
			return nil, err
		}
		c, err := audit.OpenCheckpoint(b, nil)
		if err != nil {
			return nil, fmt.Errorf("remote %s: %s: %w", s.r.Name, k, err)
		}
		if n := len(out); n > 0 && out[n-1].Size == c.Size && out[n-1].Time.Equal(c.Time) { // a cosigned copy
			m, same, err := audit.MergeCheckpoints(out[n-1], c)
			if err != nil {
				return nil, fmt.Errorf("remote %s: %s: %w", s.r.Name, k, err)
			}
			if same {
				out[n-1] = m
				continue
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// History returns what the store holds of workspace ws as the record a
// local journal must still match (journal.CheckOptions): the chain hash of
// every event by leaf, from the workspace's base, and its checkpoints.
func History(ctx context.Context, s *Store, ws string) (leaves []snapshot.ID, cps []*audit.Checkpoint, err error) {
	head, err := s.workspaceHead(ctx, ws)
	if err != nil {
		return nil, nil, err
	}
	err = s.walk(ctx, head, func(sr *segRead, _ *keyFile) error {
		for _, e := range sr.evs {
			for head.BaseSeq+uint64(len(leaves))+1 < e.Seq { // numbers a damaged event spans
				leaves = append(leaves, snapshot.ID{})
			}
			leaves = append(leaves, e.Hash)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	cps, err = Checkpoints(ctx, s, ws)
	return leaves, cps, err
}
