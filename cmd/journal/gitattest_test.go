package main_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	attestation "github.com/in-toto/attestation/go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"
	"google.golang.org/protobuf/encoding/protojson"
)

// promptToken is a GitHub token's shape (gitleaks' github-pat rule).
const promptToken = "ghp_R8zK2mVq7LwT4xN9bC3yH6pJ1sD5fG0aE2uI"

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
			Lines, Kind, Tool, Session, Model, Prompt, Person string
			Events                                            []uint64
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
	// a Claude Code Bash call whose hooks name the model and the prompt,
	// whose id holds a token (masked in the attestation)
	promptedCall(t, dir, "p-"+promptToken, "printf 'g1\\ng2\\n' > g.txt")
	files(t, dir, map[string]string{"hand.txt": "typed by hand\n"})
	gitEnvIn(t, dir, nil, "add", "-A")
	gitEnvIn(t, dir, nil, "commit", "-qm", "agent, person and hand")
	head := strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD"))

	out := filepath.Join(t.TempDir(), "head.intoto.json")
	r := run(t, dir, "git", "attest", "--out", out)
	if r.code != 0 || !strings.Contains(r.stderr, "4 files, 7 lines added (agent 5, person 1, untracked 1)") {
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
	if len(p.Files) != 4 {
		t.Fatalf("files %+v, want agent.go, g.txt, hand.txt, person.txt", p.Files)
	}
	if g := p.Files[byPath["g.txt"]]; g.Agent != 2 || len(g.Authors) != 1 || g.Authors[0].Tool != "claude-code" || g.Authors[0].Session != "S3" ||
		g.Authors[0].Model != "claude-sonnet-5" || !strings.Contains(g.Authors[0].Prompt, "[secret: ") || g.Authors[0].Lines != "1-2" {
		t.Errorf("g.txt: %+v", g)
	}
	if strings.Contains(string(payload), promptToken) {
		t.Errorf("the token in the prompt's id is in the attestation: %s", payload)
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
	if o := ok(t, dir, "git", "attest", "--verify", out); !strings.Contains(o, "verified") || !strings.Contains(o, "agent 5, person 1, untracked 1") {
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
	forged := strings.Replace(string(raw), `"agent":5,`, `"agent":6,`, 1)
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

	// Statements signed by the right key whose claims the journal does not
	// prove: the hand-written line as the agent's; an event past the
	// checkpoint; checkpoint fields that are not its signed note's.
	claim := func(mutate func(pred map[string]any)) string {
		t.Helper()
		var stm map[string]any
		json.Unmarshal(raw, &stm)
		mutate(stm["predicate"].(map[string]any))
		b, _ := json.Marshal(stm)
		signed := libSign(t, b, pub, priv)
		if _, err := libVerify(t, signed, pub); err != nil {
			t.Fatalf("the library's own envelope: %v", err)
		}
		f := filepath.Join(t.TempDir(), "claim.json")
		os.WriteFile(f, signed, 0o644)
		return f
	}
	file := func(pred map[string]any, path string) map[string]any {
		for _, f := range pred["files"].([]any) {
			if f := f.(map[string]any); f["path"] == path {
				return f
			}
		}
		t.Fatalf("no %s in the predicate", path)
		return nil
	}
	for _, c := range []struct {
		name   string
		mutate func(pred map[string]any)
		want   []string
	}{
		{"hand-written line as the agent's", func(pred map[string]any) {
			f, a := file(pred, "hand.txt"), ag.Authors[0]
			f["untracked"], f["agent"], f["untrackedLines"] = 0, 1, ""
			f["authors"] = []map[string]any{{"lines": "1", "kind": "agent", "tool": a.Tool, "session": a.Session, "noteKey": "", "events": a.Events}}
		}, []string{"hand.txt line 1: claimed claude-code session", "the journal proves untracked", "hand.txt: agent lines: claimed 1, the journal proves 0"}},
		{"event past the checkpoint", func(pred map[string]any) {
			a := file(pred, "agent.go")["authors"].([]any)[0].(map[string]any)
			a["events"] = []uint64{p.Checkpoint.LastEvent + 5}
		}, []string{fmt.Sprintf("event %d is not in the checkpoint", p.Checkpoint.LastEvent+5), "agent.go lines 1-3: claimed claude-code session"}},
		{"checkpoint fields", func(pred map[string]any) {
			pred["checkpoint"].(map[string]any)["lastEvent"] = p.Checkpoint.LastEvent + 5
		}, []string{"the statement's checkpoint fields", "are not its signed note's"}},
	} {
		r = run(t, dir, "git", "attest", "--verify", claim(c.mutate))
		if r.code == 0 || !strings.Contains(r.stderr, "ATTESTATION_INVALID") {
			t.Errorf("%s: exit %d\n%s", c.name, r.code, r.stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: no %q in\n%s", c.name, w, r.stderr)
			}
		}
	}

	// HEAD's envelope as the note of another commit: not its subject.
	gitEnvIn(t, dir, nil, "notes", "--ref=attestations", "add", "-f", "-F", out, "HEAD~1")
	if r := run(t, dir, "git", "attest", "--verify", "HEAD~1"); r.code == 0 || !strings.Contains(r.stderr, "the statement's subject is commit "+head) {
		t.Fatalf("verify of another commit's envelope: exit %d\n%s", r.code, r.stderr)
	}
	r = run(t, dir, "git", "attest", "--verify", claim(func(pred map[string]any) {
		f, a := file(pred, "hand.txt"), ag.Authors[0]
		f["untracked"], f["agent"], f["untrackedLines"] = 0, 1, ""
		f["authors"] = []map[string]any{{"lines": "1", "kind": "agent", "tool": a.Tool, "session": a.Session, "noteKey": "", "events": a.Events}}
	}))
	t.Logf("verify of a claim the journal cannot prove:\n%s", r.stderr)
}

// An OpenSSH Ed25519 key signs attestations as it signs checkpoints: the
// envelope's keyid is the fingerprint ssh-keygen prints, the DSSE library
// verifies it from the key's public half, `--verify --key id.pub` accepts
// it, and another key's .pub refuses it (ATTESTATION_INVALID).
func TestGitAttest_SSHKey(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen is not installed (apt-get install openssh-client)")
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	keys := t.TempDir()
	id := filepath.Join(keys, "id")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ann@example.com", "-f", id).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	fp, err := exec.Command("ssh-keygen", "-l", "-f", id+".pub").Output()
	if err != nil {
		t.Fatal(err)
	}
	ok(t, keys, "key", "generate", "--out", filepath.Join(keys, "other.key"))
	dir := gitRepo(t)
	write(t, dir, agent, "a.go", "package a\n")
	gitEnvIn(t, dir, nil, "add", "-A")
	gitEnvIn(t, dir, nil, "commit", "-qm", "a")
	// --out relative to where it runs (a subdirectory), not the repository's top
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	ok(t, sub, "git", "attest", "--key", id, "--out", "a.json")
	out := filepath.Join(sub, "a.json")
	env, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var e struct{ Signatures []struct{ KeyID string } }
	json.Unmarshal(env, &e)
	if len(e.Signatures) != 1 || !strings.Contains(string(fp), e.Signatures[0].KeyID+" ") {
		t.Errorf("keyid %+v, ssh-keygen -l: %s", e.Signatures, fp)
	}
	b, _ := os.ReadFile(id + ".pub")
	f := strings.Fields(string(b))
	raw, _ := base64.StdEncoding.DecodeString(f[1])
	pub := ed25519.PublicKey(raw[len(raw)-ed25519.PublicKeySize:]) // the wire format's last string: the key
	if _, err := libVerify(t, env, pub); err != nil {
		t.Fatalf("the DSSE library rejects the SSH key's envelope: %v", err)
	}
	if o := ok(t, dir, "git", "attest", "--verify", out, "--key", id+".pub"); !strings.Contains(o, "signed by ann@example.com") || !strings.Contains(o, "agent 1") {
		t.Fatalf("verify: %s", o)
	}
	r := run(t, dir, "git", "attest", "--verify", out, "--key", filepath.Join(keys, "other.key.pub"))
	if r.code == 0 || !strings.Contains(r.stderr, "ATTESTATION_INVALID") || !strings.Contains(r.stderr, "no signature of the envelope") {
		t.Fatalf("verify with another key: exit %d\n%s", r.code, r.stderr)
	}
}
