package main_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	attestation "github.com/in-toto/attestation/go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"
	"google.golang.org/protobuf/encoding/protojson"
)

// keyPair reads the key `journal key generate` wrote to path (signed-note
// format: name+hash+base64(1 || key)) as Ed25519 keys.
func keyPair(t *testing.T, path string) (ed25519.PublicKey, ed25519.PrivateKey) {
	t.Helper()
	last := func(p string, parts int) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f := strings.SplitN(strings.TrimSpace(string(b)), "+", parts) // base64 holds '+' too
		raw, err := base64.StdEncoding.DecodeString(f[len(f)-1])
		if err != nil || raw[0] != 1 {
			t.Fatalf("%s: not an Ed25519 note key", p)
		}
		return raw[1:]
	}
	return ed25519.PublicKey(last(path+".pub", 3)), ed25519.NewKeyFromSeed(last(path, 5))
}

// libVerify checks an envelope with the DSSE library (go-securesystemslib),
// given the public key alone, and returns its payload.
func libVerify(t *testing.T, data []byte, pub ed25519.PublicKey) ([]byte, error) {
	t.Helper()
	var env dsse.Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatalf("not a DSSE envelope: %v\n%s", err, data)
	}
	sv, err := signerverifier.NewED25519SignerVerifierFromSSLibKey(&signerverifier.SSLibKey{
		KeyType: signerverifier.ED25519KeyType, Scheme: signerverifier.ED25519KeyType,
		KeyVal: signerverifier.KeyVal{Public: hex.EncodeToString(pub)}})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := dsse.NewEnvelopeVerifier(sv)
	if err != nil {
		t.Fatal(err)
	}
	_, payload, err := ev.VerifyAndDecode(context.Background(), &env)
	return payload, err
}

// libSign signs payload as an in-toto envelope with the DSSE library.
func libSign(t *testing.T, payload []byte, pub ed25519.PublicKey, priv ed25519.PrivateKey) []byte {
	t.Helper()
	sv, err := signerverifier.NewED25519SignerVerifierFromSSLibKey(&signerverifier.SSLibKey{
		KeyType: signerverifier.ED25519KeyType, Scheme: signerverifier.ED25519KeyType,
		KeyVal: signerverifier.KeyVal{Public: hex.EncodeToString(pub), Private: hex.EncodeToString(priv)}})
	if err != nil {
		t.Fatal(err)
	}
	es, err := dsse.NewEnvelopeSigner(sv)
	if err != nil {
		t.Fatal(err)
	}
	env, err := es.SignPayload(context.Background(), "application/vnd.in-toto+json", payload)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(env)
	return b
}

// attested is the part of the predicate the test reads, by its documented
// field names.
type attested struct {
	Files []struct {
		Path      string `json:"path"`
		Added     int    `json:"added"`
		Agent     int    `json:"agent"`
		Human     int    `json:"human"`
		Untracked int    `json:"untracked"`
		Authors   []struct {
			Lines, Kind, Tool, Session, Person string
			Events                             []uint64
		} `json:"authors"`
		UntrackedLines string `json:"untrackedLines"`
	} `json:"files"`
	Checkpoint struct {
		Size      int64  `json:"size"`
		LastEvent uint64 `json:"lastEvent"`
		Note      string `json:"note"`
	} `json:"checkpoint"`
}

// A commit holding an agent's file written over MCP (a real `journal
// serve`), a person's line written through the journal and a line written
// by hand is attested by `journal git attest` and checked with the
// standard tooling: the DSSE library verifies the envelope's signature
// from the checkpoint key's public key alone, and in-toto's attestation
// library reads and validates the statement (subject: the commit's
// gitCommit digest). `journal git attest --verify` accepts it (as a file,
// and as the commit's note under refs/notes/attestations); a payload
// altered after signing fails both verifiers; a statement signed by the
// right key that claims a line the journal cannot prove (the hand-written
// one, as the agent's) fails ours, naming the line.
func TestGitAttest(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	dir := gitRepo(t)
	if r := run(t, dir, "git", "attest", "--out", filepath.Join(dir, "x.json")); r.code == 0 || !strings.Contains(r.stderr, "KEY_INVALID") || !strings.Contains(r.stderr, "hint:") {
		t.Fatalf("attest without a key: exit %d\n%s", r.code, r.stderr)
	} else if _, err := os.Stat(filepath.Join(dir, "x.json")); err == nil {
		t.Fatal("attest without a key wrote its file")
	}
	ok(t, dir, "key", "generate", "--name", "attest-test")
	keyFile := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "journal", "checkpoint.key")
	pub, priv := keyPair(t, keyFile)

	c, stderr := serveStdio(t, dir, "claude-code", "--watch=false")
	createFile(t, c, "agent.go", "package agent\n\nfunc A() int { return 1 }\n")
	c.Close() // the server seals its events as it ends
	write(t, dir, human, "person.txt", "a person's line\n")
	files(t, dir, map[string]string{"hand.txt": "typed by hand\n"})
	gitEnvIn(t, dir, nil, "add", "-A")
	gitEnvIn(t, dir, nil, "commit", "-qm", "agent, person and hand")
	head := strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD"))

	out := filepath.Join(t.TempDir(), "head.intoto.json")
	r := run(t, dir, "git", "attest", "--out", out)
	if r.code != 0 || !strings.Contains(r.stderr, "agent 3, person 1, untracked 1") {
		t.Fatalf("attest: exit %d\n%s%s\nserve: %s", r.code, r.stdout, r.stderr, stderr)
	}
	env, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}

	// The standard tooling: DSSE's signature, in-toto's statement.
	payload, err := libVerify(t, env, pub)
	if err != nil {
		t.Fatalf("the DSSE library rejects the envelope: %v", err)
	}
	var st attestation.Statement
	if err := protojson.Unmarshal(payload, &st); err != nil {
		t.Fatalf("in-toto's Statement does not read the payload: %v\n%s", err, payload)
	}
	if err := st.Validate(); err != nil {
		t.Fatalf("in-toto's Statement.Validate: %v", err)
	}
	if len(st.GetSubject()) != 1 || st.GetSubject()[0].GetDigest()["gitCommit"] != head {
		t.Fatalf("subject %v, want gitCommit %s", st.GetSubject(), head)
	}
	if st.GetPredicateType() != "https://github.com/journalfs/journal/attestation/line-authorship/v1" {
		t.Fatalf("predicateType %q", st.GetPredicateType())
	}
	pb, _ := protojson.Marshal(st.GetPredicate())
	var p attested
	if err := json.Unmarshal(pb, &p); err != nil {
		t.Fatal(err)
	}
	byPath := map[string]int{}
	for i, f := range p.Files {
		byPath[f.Path] = i
	}
	if len(p.Files) != 3 {
		t.Fatalf("files %+v, want agent.go, hand.txt, person.txt", p.Files)
	}
	ag, pe, ha := p.Files[byPath["agent.go"]], p.Files[byPath["person.txt"]], p.Files[byPath["hand.txt"]]
	if ag.Added != 3 || ag.Agent != 3 || len(ag.Authors) != 1 || ag.Authors[0].Kind != "agent" || ag.Authors[0].Tool != "claude-code" ||
		ag.Authors[0].Session == "" || ag.Authors[0].Lines != "1-3" || len(ag.Authors[0].Events) != 1 {
		t.Errorf("agent.go: %+v", ag)
	}
	if pe.Human != 1 || len(pe.Authors) != 1 || pe.Authors[0].Person != "Alice <alice@example.com>" || pe.Authors[0].Lines != "1" {
		t.Errorf("person.txt: %+v", pe)
	}
	if ha.Untracked != 1 || ha.UntrackedLines != "1" || len(ha.Authors) != 0 {
		t.Errorf("hand.txt: %+v", ha)
	}
	for _, f := range []int{byPath["agent.go"], byPath["person.txt"]} {
		for _, a := range p.Files[f].Authors {
			for _, e := range a.Events {
				if e > p.Checkpoint.LastEvent {
					t.Errorf("%s: event %d past the checkpoint's last event %d", p.Files[f].Path, e, p.Checkpoint.LastEvent)
				}
			}
		}
	}
	if !strings.HasPrefix(p.Checkpoint.Note, "journal.workspace/") || !strings.Contains(p.Checkpoint.Note, "— attest-test ") {
		t.Errorf("checkpoint note %q", p.Checkpoint.Note)
	}

	// Ours accepts it, as a file and as the commit's note.
	if o := ok(t, dir, "git", "attest", "--verify", out); !strings.Contains(o, "verified") || !strings.Contains(o, "agent 3, person 1, untracked 1") {
		t.Fatalf("verify: %s", o)
	}
	if r := run(t, dir, "git", "attest", "--verify", "HEAD"); r.code == 0 || !strings.Contains(r.stderr, "ATTESTATION_INVALID") || !strings.Contains(r.stderr, "has no attestation") {
		t.Fatalf("verify HEAD without a note: exit %d\n%s", r.code, r.stderr)
	}
	if r := run(t, dir, "git", "attest", "--note", "--out", out); r.code != 2 {
		t.Fatalf("--note with --out: exit %d\n%s", r.code, r.stderr)
	}
	ok(t, dir, "git", "attest", "--note")
	if n := gitOut(t, dir, "notes", "--ref=attestations", "show", head); !strings.Contains(n, `"payloadType": "application/vnd.in-toto+json"`) {
		t.Fatalf("note under refs/notes/attestations: %s", n)
	}
	if o := ok(t, dir, "git", "attest", "--verify", "HEAD"); !strings.Contains(o, "verified") {
		t.Fatalf("verify HEAD: %s", o)
	}

	// A payload altered after signing: one more agent line claimed.
	var envm map[string]any
	json.Unmarshal(env, &envm)
	raw, _ := base64.StdEncoding.DecodeString(envm["payload"].(string))
	forged := strings.Replace(string(raw), `"agent":3,`, `"agent":4,`, 1)
	if forged == string(raw) {
		t.Fatalf("no agent count to alter in %s", raw)
	}
	envm["payload"] = base64.StdEncoding.EncodeToString([]byte(forged))
	tampered, _ := json.Marshal(envm)
	tf := filepath.Join(t.TempDir(), "tampered.json")
	os.WriteFile(tf, tampered, 0o644)
	if _, err := libVerify(t, tampered, pub); err == nil {
		t.Error("the DSSE library accepts an altered payload")
	}
	if r := run(t, dir, "git", "attest", "--verify", tf); r.code == 0 || !strings.Contains(r.stderr, "ATTESTATION_INVALID") || !strings.Contains(r.stderr, "altered") {
		t.Fatalf("verify of an altered payload: exit %d\n%s", r.code, r.stderr)
	}

	// Signed by the right key, claiming the hand-written line as the agent's.
	var stm map[string]any
	json.Unmarshal(raw, &stm)
	pred := stm["predicate"].(map[string]any)
	for _, f := range pred["files"].([]any) {
		f := f.(map[string]any)
		if f["path"] == "hand.txt" {
			a := ag.Authors[0]
			f["untracked"], f["agent"], f["untrackedLines"] = 0, 1, ""
			f["authors"] = []map[string]any{{"lines": "1", "kind": "agent", "tool": a.Tool, "session": a.Session, "noteKey": "", "events": a.Events}}
		}
	}
	claim, _ := json.Marshal(stm)
	signed := libSign(t, claim, pub, priv)
	if _, err := libVerify(t, signed, pub); err != nil {
		t.Fatalf("the library's own envelope: %v", err)
	}
	cf := filepath.Join(t.TempDir(), "claim.json")
	os.WriteFile(cf, signed, 0o644)
	r = run(t, dir, "git", "attest", "--verify", cf)
	if r.code == 0 || !strings.Contains(r.stderr, "ATTESTATION_INVALID") ||
		!strings.Contains(r.stderr, "hand.txt line 1: claimed claude-code session") || !strings.Contains(r.stderr, "the journal proves untracked") ||
		!strings.Contains(r.stderr, "hand.txt: agent lines: claimed 1, the journal proves 0") {
		t.Fatalf("verify of a claim the journal cannot prove: exit %d\n%s", r.code, r.stderr)
	}
	t.Logf("verify of a claim the journal cannot prove:\n%s", r.stderr)
}
