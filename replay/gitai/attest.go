package gitai

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// An attestation is an in-toto Statement v1 about one commit, whose
// predicate (PredicateType) names, per file, the lines the commit adds by
// agent, by person and untracked — the attribution its note gives — with
// the journal events and the signed checkpoint that prove them, in a DSSE
// envelope signed with the checkpoint key (docs/DESIGN.md "Attestations").

const (
	// StatementType is the in-toto Statement version (ITE-6, v1).
	StatementType = "https://in-toto.io/Statement/v1"
	// PredicateType names the predicate and its version: a change of its
	// meaning gets a new version, never the same URI.
	PredicateType = "https://github.com/journalfs/journal/attestation/line-authorship/v1"
	// PayloadType is the DSSE payloadType of an in-toto statement.
	PayloadType = "application/vnd.in-toto+json"
	// AttestRef holds attestations as git notes, one envelope per commit,
	// apart from the Git AI notes (NotesRef).
	AttestRef = "refs/notes/attestations"
)

// ErrAttestation means an attestation does not hold: its envelope or
// signature is bad, its subject is not the commit, or its line figures are
// not what the journal proves.
var ErrAttestation = errors.New("attestation invalid")

// Statement is an in-toto Statement v1 with the line-authorship predicate.
type Statement struct {
	Type          string     `json:"_type"`
	Subject       []Subject  `json:"subject"`
	PredicateType string     `json:"predicateType"`
	Predicate     Authorship `json:"predicate"`
}

// Subject is a resource descriptor: the commit, by its gitCommit digest.
type Subject struct {
	Name   string            `json:"name,omitempty"`
	Digest map[string]string `json:"digest"`
}

// Authorship is the predicate: who wrote each line the commit adds, and
// the journal's checkpoint that proves it.
type Authorship struct {
	// Generator is the program that wrote it ("journal <version>").
	Generator string `json:"generator"`
	// BaseCommit is what the lines are counted against (the note's
	// base_commit_sha: the first parent; a merge itself; a root commit the
	// null id).
	BaseCommit string `json:"baseCommit"`
	// Workspace is the journal's workspace ID (the checkpoint's origin).
	Workspace string `json:"workspace"`
	// Totals adds up Files.
	Totals LineCounts `json:"totals"`
	// Files are the files the commit adds lines to, by path.
	Files []AttestedFile `json:"files"`
	// Checkpoint is the signed checkpoint whose tree holds every event
	// named.
	Checkpoint AttestedCheckpoint `json:"checkpoint"`
}

// AttestedFile is one file's lines by who wrote them.
type AttestedFile struct {
	Path string `json:"path"`
	LineCounts
	// Authors are the attributed lines, one run per note key, by first
	// line.
	Authors []AttestedLines `json:"authors"`
	// UntrackedLines are the lines nobody is proven to have written.
	UntrackedLines string `json:"untrackedLines,omitempty"`
}

// AttestedLines are the lines of one note key: one agent's tool call, or
// one person.
type AttestedLines struct {
	// Lines are the commit's line numbers ("1-4,9", FormatRanges).
	Lines string `json:"lines"`
	// Kind is KindAgent or KindHuman.
	Kind string `json:"kind"`
	// Tool, Session, Model and Prompt name an agent's session (agent_id),
	// the model where its hook said it, and the prompt's id.
	Tool    string `json:"tool,omitempty"`
	Session string `json:"session,omitempty"`
	Model   string `json:"model,omitempty"`
	Prompt  string `json:"prompt,omitempty"`
	// Person is a person's "Name <email>" (the committer who edited
	// through the journal).
	Person string `json:"person,omitempty"`
	// NoteKey is the attestation key of these lines in the commit's note
	// under NotesRef.
	NoteKey string `json:"noteKey"`
	// Events are the journal events (sequence numbers) whose content
	// proves these lines; `journal prove N` gives each one's inclusion
	// proof against the checkpoint.
	Events []uint64 `json:"events"`
}

// AttestedCheckpoint is the signed checkpoint an attestation rests on.
type AttestedCheckpoint struct {
	// Size is the tree size: the events FirstEvent..LastEvent.
	Size       int64  `json:"size"`
	FirstEvent uint64 `json:"firstEvent"`
	LastEvent  uint64 `json:"lastEvent"`
	// Root is the RFC 6962 root hash of those events (base64, as in the note).
	Root string `json:"root"`
	// Time is when it was signed (RFC 3339).
	Time string `json:"time"`
	// Note is the signed checkpoint verbatim (a C2SP signed note).
	Note string `json:"note"`
}

// NewStatement is the attestation of commit from its note and evidence
// (ComputeEvidence), resting on checkpoint cp of workspace ws; mask masks
// secrets in the strings it copies from the journal (identity if nil).
// The same inputs give the same statement, byte for byte, so a verifier
// recomputes it and compares.
func NewStatement(commit, generator, ws string, n *Note, ev *Evidence, cp AttestedCheckpoint, mask func(string) string) *Statement {
	if mask == nil {
		mask = func(s string) string { return s }
	}
	st := &Statement{
		Type:          StatementType,
		Subject:       []Subject{{Name: "git+commit:" + commit, Digest: map[string]string{"gitCommit": commit}}},
		PredicateType: PredicateType,
		Predicate: Authorship{Generator: generator, BaseCommit: n.Meta.BaseCommitSHA, Workspace: ws,
			Files: []AttestedFile{}, Checkpoint: cp},
	}
	for _, f := range ev.Files {
		keys := LineKeys(n, f.Path)
		af := AttestedFile{Path: mask(f.Path), Authors: []AttestedLines{}}
		af.Added = len(f.Added)
		byKey := map[string][]int{}
		var order []string
		var untracked []int
		for _, ln := range f.Added {
			k := keys[ln]
			if k == "" {
				untracked = append(untracked, ln)
				continue
			}
			if byKey[k] == nil {
				order = append(order, k)
			}
			byKey[k] = append(byKey[k], ln)
		}
		for _, k := range order {
			a := AuthorOf(n, k)
			al := AttestedLines{Lines: FormatRanges(byKey[k]), Kind: a.Kind, NoteKey: k, Events: []uint64{}}
			if a.Kind == KindAgent {
				al.Tool, al.Session, al.Model, al.Prompt = mask(a.Tool), mask(a.ID), mask(a.Model), mask(a.Prompt)
				af.Agent += len(byKey[k])
			} else {
				al.Person = mask(a.Person)
				af.Human += len(byKey[k])
			}
			for _, ln := range byKey[k] {
				if seq, ok := f.Events[ln]; ok && !slices.Contains(al.Events, seq) {
					al.Events = append(al.Events, seq)
				}
			}
			slices.Sort(al.Events)
			af.Authors = append(af.Authors, al)
		}
		af.Untracked = len(untracked)
		af.UntrackedLines = FormatRanges(untracked)
		st.Predicate.Totals.add(af.LineCounts)
		st.Predicate.Files = append(st.Predicate.Files, af)
	}
	slices.SortFunc(st.Predicate.Files, func(a, b AttestedFile) int { return strings.Compare(a.Path, b.Path) })
	return st
}

// Commit is the commit the statement's subject names ("" if none).
func (st *Statement) Commit() string {
	if len(st.Subject) != 1 {
		return ""
	}
	return st.Subject[0].Digest["gitCommit"]
}

// Events are the journal events the statement names, ascending.
func (st *Statement) Events() []uint64 {
	var out []uint64
	for _, f := range st.Predicate.Files {
		for _, a := range f.Authors {
			out = append(out, a.Events...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Envelope is a DSSE envelope (the JSON envelope of DSSE v1.0).
type Envelope struct {
	PayloadType string              `json:"payloadType"`
	Payload     string              `json:"payload"`
	Signatures  []EnvelopeSignature `json:"signatures"`
}

// EnvelopeSignature is one signature of an envelope.
type EnvelopeSignature struct {
	KeyID string `json:"keyid"`
	Sig   string `json:"sig"`
}

// PAE is DSSE's pre-authentication encoding of a payload, what a
// signature signs: "DSSEv1 <len(type)> <type> <len(body)> <body>".
func PAE(payloadType string, body []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "DSSEv1 %d %s %d ", len(payloadType), payloadType, len(body))
	b.Write(body)
	return b.Bytes()
}

// SignStatement wraps st in an envelope signed by key over PAE(PayloadType,
// payload), keyID naming the key (a hint for verifiers, not trusted).
func SignStatement(st *Statement, key ed25519.PrivateKey, keyID string) ([]byte, error) {
	payload, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("gitai: attestation: %w", err)
	}
	sig := ed25519.Sign(key, PAE(PayloadType, payload))
	env := Envelope{PayloadType: PayloadType, Payload: base64.StdEncoding.EncodeToString(payload),
		Signatures: []EnvelopeSignature{{KeyID: keyID, Sig: base64.StdEncoding.EncodeToString(sig)}}}
	out, err := json.MarshalIndent(env, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("gitai: attestation: %w", err)
	}
	return append(out, '\n'), nil
}

// PublicKey is a key an envelope may be signed by.
type PublicKey struct {
	Name string
	Key  ed25519.PublicKey
}

// OpenEnvelope checks data is a DSSE envelope of an in-toto statement with
// a signature by one of keys over PAE, and returns the statement and the
// name of the key that signed it. Errors wrap ErrAttestation.
func OpenEnvelope(data []byte, keys []PublicKey) (*Statement, string, error) {
	var env Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, "", fmt.Errorf("attestation: not a DSSE envelope: %v: %w", err, ErrAttestation)
	}
	if env.PayloadType != PayloadType {
		return nil, "", fmt.Errorf("attestation: envelope payloadType %q, want %q: %w", env.PayloadType, PayloadType, ErrAttestation)
	}
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		return nil, "", fmt.Errorf("attestation: envelope payload is not base64: %v: %w", err, ErrAttestation)
	}
	if len(env.Signatures) == 0 {
		return nil, "", fmt.Errorf("attestation: the envelope is not signed: %w", ErrAttestation)
	}
	signer := ""
	msg := PAE(env.PayloadType, payload)
	for _, s := range env.Signatures {
		sig, err := base64.StdEncoding.DecodeString(s.Sig)
		if err != nil {
			continue
		}
		for _, k := range keys {
			if signer == "" && ed25519.Verify(k.Key, msg, sig) {
				signer = k.Name
			}
		}
	}
	if signer == "" {
		var ids []string
		for _, s := range env.Signatures {
			ids = append(ids, strconv.Quote(s.KeyID))
		}
		return nil, "", fmt.Errorf("attestation: no signature of the envelope (keyid %s) verifies with the keys given: the statement was altered or signed by another key: %w",
			strings.Join(ids, ", "), ErrAttestation)
	}
	var st Statement
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return nil, "", fmt.Errorf("attestation: the statement does not read: %v: %w", err, ErrAttestation)
	}
	if st.Type != StatementType || st.PredicateType != PredicateType {
		return nil, "", fmt.Errorf("attestation: the statement is a %q with predicate %q, not a %q with %q: %w",
			st.Type, st.PredicateType, StatementType, PredicateType, ErrAttestation)
	}
	if st.Commit() == "" {
		return nil, "", fmt.Errorf("attestation: the statement's subject names no commit (one subject, digest gitCommit): %w", ErrAttestation)
	}
	return &st, signer, nil
}

// Differences names where claimed differs from proven (the statement the
// journal gives now for the same commit and checkpoint): the workspace,
// the base commit, each file's counts and each run of lines whose author
// or events differ; at most max of them. None: they agree.
func Differences(claimed, proven *Statement, max int) []string {
	var out []string
	add := func(format string, args ...any) {
		if len(out) < max {
			out = append(out, fmt.Sprintf(format, args...))
		}
	}
	cp, pp := claimed.Predicate, proven.Predicate
	if cp.Workspace != pp.Workspace {
		add("workspace: claimed %s, the journal is %s", cp.Workspace, pp.Workspace)
	}
	if cp.BaseCommit != pp.BaseCommit {
		add("base commit: claimed %s, the commit's is %s", cp.BaseCommit, pp.BaseCommit)
	}
	files := map[string]*AttestedFile{}
	for i := range pp.Files {
		files[pp.Files[i].Path] = &pp.Files[i]
	}
	seen := map[string]bool{}
	for _, cf := range cp.Files {
		seen[cf.Path] = true
		pf := files[cf.Path]
		if pf == nil {
			add("%s: claimed %d added lines, the commit adds none", cf.Path, cf.Added)
			continue
		}
		for _, c := range [][3]any{{"added", cf.Added, pf.Added}, {"agent", cf.Agent, pf.Agent},
			{"human", cf.Human, pf.Human}, {"untracked", cf.Untracked, pf.Untracked}} {
			if c[1] != c[2] {
				add("%s: %s lines: claimed %d, the journal proves %d", cf.Path, c[0], c[1], c[2])
			}
		}
		cl, bad := lineAuthors(cf)
		for _, b := range bad {
			add("%s: line numbers %q do not read", cf.Path, b)
		}
		pl, _ := lineAuthors(*pf)
		var lines []int
		for ln := range cl {
			lines = append(lines, ln)
		}
		for ln := range pl {
			if _, ok := cl[ln]; !ok {
				lines = append(lines, ln)
			}
		}
		slices.Sort(lines)
		for i := 0; i < len(lines); {
			j := i + 1
			for j < len(lines) && lines[j] == lines[j-1]+1 && cl[lines[j]] == cl[lines[i]] && pl[lines[j]] == pl[lines[i]] {
				j++
			}
			if c, p := cl[lines[i]], pl[lines[i]]; c != p {
				word := "lines"
				if j == i+1 {
					word = "line"
				}
				add("%s %s %s: claimed %s, the journal proves %s", cf.Path, word, FormatRanges(lines[i:j]), orNone(c), orNone(p))
			}
			i = j
		}
	}
	for _, pf := range pp.Files {
		if !seen[pf.Path] {
			add("%s: the commit adds %d lines the statement leaves out", pf.Path, pf.Added)
		}
	}
	if cp.Totals != pp.Totals && len(out) == 0 {
		add("totals: claimed %+v, the journal proves %+v", cp.Totals, pp.Totals)
	}
	return out
}

// lineAuthors maps each line of f to who it says wrote it, in words; bad
// are the line ranges that do not read.
func lineAuthors(f AttestedFile) (m map[int]string, bad []string) {
	m = map[int]string{}
	lines := func(s string) []int {
		ls, err := ParseRanges(s)
		if err != nil && s != "" {
			bad = append(bad, s)
		}
		return ls
	}
	for _, a := range f.Authors {
		who := "person " + a.Person
		if a.Kind == KindAgent {
			who = Author{Kind: KindAgent, Tool: a.Tool, ID: a.Session, Model: a.Model}.String()
			if a.Prompt != "" {
				who += " prompt " + a.Prompt
			}
		}
		var evs []string
		for _, e := range a.Events {
			evs = append(evs, strconv.FormatUint(e, 10))
		}
		who += " (event " + strings.Join(evs, ", ") + ")"
		for _, ln := range lines(a.Lines) {
			m[ln] = who
		}
	}
	for _, ln := range lines(f.UntrackedLines) {
		m[ln] = KindUntracked
	}
	return m, bad
}

func orNone(s string) string {
	if s == "" {
		return "no such line"
	}
	return s
}

// WriteAttestation sets commit's note under AttestRef to envelope,
// compare-and-swap like every note; it reports whether it changed.
func WriteAttestation(ctx context.Context, r *Repo, commit string, envelope []byte) (bool, error) {
	changed, err := r.updateNotes(ctx, AttestRef, func(string) (*notesUpdate, error) {
		return &notesUpdate{set: map[string][]byte{commit: envelope}, message: "Attestation added by 'journal git attest'"}, nil
	})
	return len(changed) > 0, err
}

// ReadAttestation returns commit's note under AttestRef (nil if none).
func ReadAttestation(ctx context.Context, r *Repo, commit string) ([]byte, error) {
	return readNoteIn(ctx, r, AttestRef, commit)
}
