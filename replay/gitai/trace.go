package gitai

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// TraceVersion is the Agent Trace version the records follow: the
// specification is v0.1.0, and its schema (schemas.ts, trace-record.json)
// takes a "major.minor" version only.
const TraceVersion = "0.1"

// TraceRecord is an Agent Trace record (cursor/agent-trace, schemas.ts):
// one per commit, built from the commit's note.
type TraceRecord struct {
	Version   string         `json:"version"`
	ID        string         `json:"id"`
	Timestamp string         `json:"timestamp"`
	VCS       *TraceVCS      `json:"vcs,omitempty"`
	Tool      *TraceTool     `json:"tool,omitempty"`
	Files     []TraceFile    `json:"files"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// TraceVCS names the revision the record's line numbers refer to.
type TraceVCS struct {
	Type     string `json:"type"`
	Revision string `json:"revision"`
}

// TraceTool is the tool that produced the code.
type TraceTool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// TraceFile is one file's conversations.
type TraceFile struct {
	Path          string              `json:"path"`
	Conversations []TraceConversation `json:"conversations"`
}

// TraceConversation is the ranges one attestation key names: an agent's
// tool call in a session, or a known person.
type TraceConversation struct {
	URL         string            `json:"url,omitempty"`
	Contributor *TraceContributor `json:"contributor,omitempty"`
	Ranges      []TraceRange      `json:"ranges"`
	Related     []TraceRelated    `json:"related,omitempty"`
}

// TraceContributor is "ai" or "human", and an AI's model.
type TraceContributor struct {
	Type    string `json:"type"`
	ModelID string `json:"model_id,omitempty"`
}

// TraceRange is consecutive lines, and a hash of their content.
type TraceRange struct {
	StartLine   int               `json:"start_line"`
	EndLine     int               `json:"end_line"`
	ContentHash string            `json:"content_hash,omitempty"`
	Contributor *TraceContributor `json:"contributor,omitempty"`
}

// TraceRelated links a conversation to a resource by URI.
type TraceRelated struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// TraceOptions says what produced the records (metadata only).
type TraceOptions struct {
	Generator string // e.g. "journal v1.2.3"
}

// Trace builds one Agent Trace record per commit of revs from its note
// (ErrNoNote when one has none). Each attestation key becomes a
// conversation: an agent's session and tool call (contributor "ai", its
// model in the models.dev "provider/model" form where the provider is
// known; related links "urn:git-ai:session:s_…" and
// "urn:git-ai:trace:t_…") or a person (contributor "human"). Ranges carry
// content_hash "sha256:<hex>" of their lines at the commit, each line with
// its "\n". The id is a UUID (version 8) derived from the commit and the
// note, so the same note gives the same record; the timestamp is the
// commit's committer time in UTC. The session records, people and the
// generator are under metadata "dev.journal". Untracked lines are not
// listed: nothing is known of them.
func (r Reader) Trace(ctx context.Context, opts TraceOptions, revs ...string) ([]*TraceRecord, error) {
	idx, err := r.rdNoteIndex(ctx)
	if err != nil {
		return nil, err
	}
	notes, err := r.rdOpenNotes(ctx, idx)
	if err != nil {
		return nil, err
	}
	defer notes.close()
	var out []*TraceRecord
	for _, rev := range revs {
		commit, err := r.Resolve(ctx, rev)
		if err != nil {
			return nil, err
		}
		n, err := notes.note(commit)
		if err != nil {
			return nil, err
		}
		if n == nil {
			return nil, fmt.Errorf("%s (%s): %w under %s", rev, commit[:min(12, len(commit))], ErrNoNote, r.ref())
		}
		ct, err := r.rdOutput(ctx, "show", "-s", "--format=%ct", commit)
		if err != nil {
			return nil, err
		}
		sec, _ := strconv.ParseInt(strings.TrimSpace(string(ct)), 10, 64)
		rec, err := traceRecord(commit, time.Unix(sec, 0), n, notes.raw[commit], notes.cat, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

func traceRecord(commit string, at time.Time, n *Note, raw []byte, cat *rdCat, opts TraceOptions) (*TraceRecord, error) {
	rec := &TraceRecord{
		Version:   TraceVersion,
		ID:        traceUUID(commit, raw),
		Timestamp: at.UTC().Format("2006-01-02T15:04:05Z"),
		VCS:       &TraceVCS{Type: "git", Revision: commit},
		Files:     []TraceFile{},
	}
	files := slices.Clone(n.Files)
	slices.SortStableFunc(files, func(x, y FileNote) int { return strings.Compare(x.Path, y.Path) })
	for _, f := range files {
		if len(f.Entries) == 0 {
			continue
		}
		var lines [][]byte
		if blob, err := cat.get(commit + ":" + f.Path); err == nil {
			lines = bytes.SplitAfter(blob, []byte("\n"))
		}
		tf := TraceFile{Path: f.Path, Conversations: []TraceConversation{}}
		for _, e := range f.Entries {
			if len(e.Lines) == 0 {
				continue
			}
			a := AuthorOf(n, e.Key)
			conv := TraceConversation{Contributor: &TraceContributor{Type: "ai", ModelID: modelsDevID(a.Model)}}
			if a.Kind == KindHuman {
				conv.Contributor = &TraceContributor{Type: "human"}
			} else {
				conv.Related = append(conv.Related, TraceRelated{Type: "session", URL: "urn:git-ai:session:" + a.Session})
				if a.Trace != "" {
					conv.Related = append(conv.Related, TraceRelated{Type: "trace", URL: "urn:git-ai:trace:" + a.Trace})
				}
			}
			for _, rg := range runs(e.Lines) {
				tr := TraceRange{StartLine: rg[0], EndLine: rg[1]}
				if rg[1] <= len(lines) && len(lines[rg[1]-1]) > 0 {
					h := sha256.New()
					for _, l := range lines[rg[0]-1 : rg[1]] {
						h.Write(bytes.TrimSuffix(l, []byte("\n")))
						h.Write([]byte("\n"))
					}
					tr.ContentHash = "sha256:" + hex.EncodeToString(h.Sum(nil))
				}
				conv.Ranges = append(conv.Ranges, tr)
			}
			tf.Conversations = append(tf.Conversations, conv)
		}
		rec.Files = append(rec.Files, tf)
	}
	meta := map[string]any{"note_schema": n.Meta.SchemaVersion, "base_commit_sha": n.Meta.BaseCommitSHA}
	if opts.Generator != "" {
		meta["generator"] = opts.Generator
	}
	if len(n.Meta.Sessions) > 0 {
		meta["sessions"] = n.Meta.Sessions
	}
	if len(n.Meta.Humans) > 0 {
		meta["humans"] = n.Meta.Humans
	}
	rec.Metadata = map[string]any{"dev.journal": meta}
	return rec, nil
}

// traceUUID is a version 8 UUID from the commit and its note's bytes.
func traceUUID(commit string, raw []byte) string {
	note := sha256.Sum256(raw)
	sum := sha256.Sum256([]byte("journal-agent-trace:" + commit + ":" + hex.EncodeToString(note[:])))
	u := sum[:16]
	u[6] = u[6]&0x0f | 0x80
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// modelsDevID writes a model in the models.dev "provider/model" form when
// its provider is plain from its name; otherwise as the note has it.
func modelsDevID(model string) string {
	if model == "" || strings.Contains(model, "/") {
		return truncate(model, 250)
	}
	for _, p := range [...]struct{ prefix, provider string }{
		{"claude", "anthropic"}, {"gpt-", "openai"}, {"o1", "openai"}, {"o3", "openai"}, {"o4", "openai"},
		{"codex", "openai"}, {"gemini", "google"}, {"grok", "xai"}, {"mistral", "mistral"}, {"codestral", "mistral"},
		{"deepseek", "deepseek"}, {"qwen", "alibaba"}, {"kimi", "moonshotai"},
	} {
		if strings.HasPrefix(model, p.prefix) {
			return truncate(p.provider+"/"+model, 250)
		}
	}
	return truncate(model, 250)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
