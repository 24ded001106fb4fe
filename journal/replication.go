package journal

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Replication is the state of a continuous replication of this journal to
// one remote, as the process running it (`journal serve --replicate`) last
// recorded it beside the journal (.journal/replicate-NAME.json), so that
// any process can report it (`journal status`, the journal_status tool).
type Replication struct {
	Remote    string    `json:"remote"`
	Workspace string    `json:"workspace,omitempty"`
	Pushed    uint64    `json:"pushed"` // the newest event the remote holds
	PushedAt  time.Time `json:"pushed_at,omitempty"`
	Error     string    `json:"error,omitempty"` // the last attempt's failure; "" once one succeeds
	ErrorAt   time.Time `json:"error_at,omitempty"`
	PID       int       `json:"pid"`
	Updated   time.Time `json:"updated"`

	// Filled by Replications, from the journal:
	Behind uint64        `json:"behind"` // events not on the remote yet
	Lag    time.Duration `json:"lag_ns"` // the age of the oldest of them (0: up to date)
}

// replicationFile is the file of remote name's state.
func (j *Journal) replicationFile(name string) string {
	return filepath.Join(filepath.Dir(j.path), "replicate-"+name+".json")
}

// WriteReplication records r (temp file and rename: a reader sees the old
// state or the new one). It is a report, not history: nothing is lost if it
// is.
func (j *Journal) WriteReplication(r Replication) error {
	if r.Remote == "" || strings.ContainsAny(r.Remote, `/\:`) || strings.HasPrefix(r.Remote, ".") {
		return fmt.Errorf("journal: replication state: %q is not a remote's name", r.Remote)
	}
	r.Updated = time.Now().UTC()
	r.Behind, r.Lag = 0, 0
	b, _ := json.Marshal(r)
	p := j.replicationFile(r.Remote)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("journal: replication state: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		return fmt.Errorf("journal: replication state: %w", err)
	}
	return nil
}

// Replications returns the recorded replications of this journal, each with
// how far it is behind: the events after Pushed and the age of the oldest.
func (j *Journal) Replications() ([]Replication, error) {
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(j.path), "replicate-*.json"))
	var out []Replication
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var r Replication
		if json.Unmarshal(b, &r) != nil || "replicate-"+r.Remote+".json" != filepath.Base(f) || strings.ContainsAny(r.Remote, `/\`) {
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Remote < out[b].Remote })
	if len(out) == 0 {
		return nil, nil
	}
	err := j.View(func(tx *Tx) error {
		last := tx.Last()
		for i := range out {
			r := &out[i]
			if r.Pushed >= last {
				continue
			}
			r.Behind = last - r.Pushed
			if e, err := tx.Event(r.Pushed + 1); err == nil {
				r.Lag = time.Since(e.Time)
			}
		}
		return nil
	})
	return out, err
}
