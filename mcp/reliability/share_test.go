//go:build linux

package reliability

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The servers of one workspace share the first one's process (mcp/share.go):
// these tests drive real `journal serve` processes the way several agents'
// clients do.

// pause stops a server's process (SIGSTOP) until the returned func resumes it.
func pause(t *testing.T, s *server) func() {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitStopped(t, s.cmd.Process.Pid)
	once := false
	resume := func() {
		if !once {
			once = true
			s.cmd.Process.Signal(syscall.SIGCONT)
		}
	}
	t.Cleanup(resume)
	return resume
}

// waitStopped waits until every thread of pid is stopped. A SIGSTOP stops
// a process only once the thread that takes it runs: on a loaded machine
// its other threads may go on for milliseconds (long enough to answer a
// call) after kill returns.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
		stopped := len(tasks) > 0
		for _, p := range tasks {
			b, err := os.ReadFile(p)
			// the state follows the command's closing parenthesis
			i := strings.LastIndexByte(string(b), ')')
			if err != nil || i < 0 || i+2 >= len(b) || (b[i+2] != 'T' && b[i+2] != 't') {
				stopped = false
				break
			}
		}
		if stopped {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d not stopped 10 s after SIGSTOP", pid)
		}
		time.Sleep(time.Millisecond)
	}
}

// callWithin calls a tool and reports whether it answered within d (the
// call goes on in the background otherwise; wait collects it).
func callWithin(s *server, d time.Duration, name string, args any) (answered bool, wait func() (*result, error)) {
	type out struct {
		r   *result
		err error
	}
	ch := make(chan out, 1)
	go func() {
		r, err := s.call(name, args)
		ch <- out{r, err}
	}()
	wait = func() (*result, error) { o := <-ch; return o.r, o.err }
	select {
	case o := <-ch:
		ch <- o
		return true, wait
	case <-time.After(d):
		return false, wait
	}
}

// relaysTo checks that follower's calls go through writer: a call made
// while writer is stopped (SIGSTOP) is not answered until it resumes, and
// then is applied.
func relaysTo(t *testing.T, follower, writer *server, name string, args any) {
	t.Helper()
	resume := pause(t, writer)
	answered, wait := callWithin(follower, 300*time.Millisecond, name, args)
	if answered {
		r, err := wait()
		t.Fatalf("answered while the writer was stopped (%v %+v): the server does not relay to it", err, r)
	}
	resume()
	if r, err := wait(); err != nil || r.IsError || r.Protocol != nil {
		t.Fatalf("after the writer resumed: %v %+v", err, r)
	}
}

// logEvents returns the journal's events as `journal log --json` prints them.
func logEvents(t *testing.T, root string) []map[string]any {
	t.Helper()
	out, err := cli(root, "log", "--json", "--no-pager")
	if err != nil {
		t.Fatalf("journal log: %v\n%s", err, out)
	}
	var evs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e map[string]any
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			evs = append(evs, e)
		}
	}
	return evs
}

func mustCall(t *testing.T, s *server, name string, args any) *result {
	t.Helper()
	r, err := s.call(name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if r.IsError || r.Protocol != nil {
		t.Fatalf("%s: %s %v", name, r.Text, r.Protocol)
	}
	return r
}

func create(path, content string) map[string]any {
	return map[string]any{"ops": []map[string]any{{"path": path, "content": content}}}
}

func appendLine(path, line string) map[string]any {
	return map[string]any{"ops": []map[string]any{{"path": path, "content": line, "at": "eof"}}}
}

// TestShare_LaterServersRelayToTheFirst: a second and third server serve
// their clients through the first (stopping the first holds their calls),
// each as a session of its own in the journal.
func TestShare_LaterServersRelayToTheFirst(t *testing.T) {
	root := t.TempDir()
	a := mustStart(t, root, "agent-a")
	b := mustStart(t, root, "agent-b")
	c := mustStart(t, root, "agent-c")
	fi, err := os.Stat(filepath.Join(root, ".journal", "serve.sock"))
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("serve.sock: %v %v", fi, err)
	}
	for i, s := range []*server{a, b, c} {
		p := fmt.Sprintf("f%d.txt", i)
		mustCall(t, s, "file_create_new", create(p, "one\n"))
		mustCall(t, s, "file_insert_text", appendLine(p, "two"))
	}

	relaysTo(t, b, a, "file_insert_text", appendLine("f1.txt", "three"))

	sessions := map[string]string{} // client name → session
	for _, e := range logEvents(t, root) {
		actor, _ := e["actor"].(map[string]any)
		name, _ := actor["name"].(string)
		session, _ := actor["session"].(string)
		if old, ok := sessions[name]; ok && old != session {
			t.Fatalf("%s recorded under two sessions: %s, %s", name, old, session)
		}
		sessions[name] = session
	}
	if len(sessions) != 3 || sessions["agent-a"] == sessions["agent-b"] || sessions["agent-b"] == sessions["agent-c"] || sessions["agent-a"] == sessions["agent-c"] {
		t.Fatalf("want three sessions, one per client: %v", sessions)
	}
	// undo is per session: b's undo takes back b's newest edit only
	mustCall(t, b, "undo", map[string]any{})
	for i, want := range []string{"one\ntwo\n", "one\ntwo\n", "one\ntwo\n"} {
		got, _ := os.ReadFile(filepath.Join(root, fmt.Sprintf("f%d.txt", i)))
		if string(got) != want {
			t.Fatalf("f%d.txt after b's undo: %q, want %q", i, got, want)
		}
	}
	if out, err := cli(root, "verify"); err != nil {
		t.Fatalf("journal verify: %v\n%s", err, out)
	}
}

// TestShare_HandOver: when the first server's client ends, the others carry
// on without noticing: one of them becomes the writer, and a session's line
// numbers still count from its last read (its views move with it), its
// undo still finds its own edits.
func TestShare_HandOver(t *testing.T) {
	root := t.TempDir()
	a := mustStart(t, root, "agent-a")
	b := mustStart(t, root, "agent-b")
	c := mustStart(t, root, "agent-c")
	var lines []string
	for i := 1; i <= 10; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	body := strings.Join(lines, "\n") + "\n"
	mustCall(t, b, "file_create_new", create("f.txt", body))
	mustCall(t, b, "read_content", map[string]any{"absolute_file_path": "f.txt"})
	// another session moves b's lines down by three
	mustCall(t, c, "file_insert_text", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "x\ny\nz", "at": "bof"}}})
	a.close()

	five := 5
	r := mustCall(t, b, "file_replace", map[string]any{"ops": []map[string]any{{"path": "f.txt", "content": "LINE FIVE", "start_line": five}}})
	if !strings.Contains(r.Text, "moved") {
		t.Errorf("b's edit of its line 5 does not say the line moved: %s", r.Text)
	}
	got, _ := os.ReadFile(filepath.Join(root, "f.txt"))
	want := "x\ny\nz\n" + strings.Replace(body, "line 5\n", "LINE FIVE\n", 1)
	if string(got) != want {
		t.Fatalf("after the hand-over, b's line 5 edit gave\n%s\nwant\n%s", got, want)
	}
	mustCall(t, c, "file_insert_text", appendLine("f.txt", "c was here"))
	mustCall(t, b, "undo", map[string]any{})
	got, _ = os.ReadFile(filepath.Join(root, "f.txt"))
	if want := "x\ny\nz\n" + body + "c was here\n"; string(got) != want {
		t.Fatalf("b's undo after the hand-over gave\n%s\nwant\n%s", got, want)
	}
	// a later server follows the new writer
	d := mustStart(t, root, "agent-d")
	mustCall(t, d, "file_insert_text", appendLine("f.txt", "d"))
	if out, err := cli(root, "verify"); err != nil {
		t.Fatalf("journal verify: %v\n%s", err, out)
	}
}

// TestShare_WriterKilled kills the writer while a follower edits through
// it: each call the follower made is answered — applied, or OUTCOME_UNKNOWN
// when the writer died before answering (then applied or not, as the
// journal says) — the follower takes over and goes on, and nothing is lost
// or applied twice.
func TestShare_WriterKilled(t *testing.T) {
	rounds := scale("SHARE_KILLS", 12, 100)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	root := t.TempDir()
	unknown, unknownApplied, acked := 0, 0, 0
	for round := 0; round < rounds; round++ {
		w := mustStart(t, root, "writer")
		f := mustStart(t, root, "follower")
		p := fmt.Sprintf("r%d.txt", round)
		mustCall(t, f, "file_create_new", create(p, ""))
		delay := time.Duration(rng.Intn(40000)) * time.Microsecond
		timer := time.AfterFunc(delay, w.kill)
		status := map[string]string{} // tag → applied | unknown
		after := 0
		for i := 0; after < 5; i++ {
			tag := fmt.Sprintf("t%d", i)
			r, err := f.call("file_insert_text", appendLine(p, tag))
			if err != nil {
				t.Fatalf("round %d: the follower died with the writer: %v", round, err)
			}
			switch {
			case !r.IsError && r.Protocol == nil:
				status[tag] = "applied"
				acked++
			case r.Err.Code == "OUTCOME_UNKNOWN":
				status[tag] = "unknown"
				unknown++
			default:
				t.Fatalf("round %d: %s: %s %v", round, tag, r.Text, r.Protocol)
			}
			select {
			case <-w.done:
				after++
			default:
			}
		}
		timer.Stop()
		f.close()
		got, _ := os.ReadFile(filepath.Join(root, p))
		seen := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSuffix(string(got), "\n"), "\n") {
			if line == "" {
				continue
			}
			if seen[line] {
				t.Fatalf("round %d: %s applied twice:\n%s", round, line, got)
			}
			seen[line] = true
			switch status[line] {
			case "":
				t.Fatalf("round %d: %s in the file, never sent", round, line)
			case "unknown":
				unknownApplied++
			}
		}
		for tag, st := range status {
			if st == "applied" && !seen[tag] {
				t.Fatalf("round %d: %s acknowledged, not in the file:\n%s", round, tag, got)
			}
		}
	}
	if out, err := cli(root, "verify"); err != nil {
		t.Fatalf("journal verify: %v\n%s", err, out)
	}
	figures(t, map[string]any{"rounds": rounds, "acked": acked, "outcome_unknown": unknown, "unknown_applied": unknownApplied})
}

// TestShare_FollowerKilled: a follower killed during its calls costs the
// writer nothing: its own client and the other followers go on.
func TestShare_FollowerKilled(t *testing.T) {
	root := t.TempDir()
	w := mustStart(t, root, "writer")
	mustCall(t, w, "file_create_new", create("w.txt", ""))
	for round := 0; round < 5; round++ {
		f := mustStart(t, root, "follower")
		p := fmt.Sprintf("f%d.txt", round)
		mustCall(t, f, "file_create_new", create(p, ""))
		go func() {
			for i := 0; ; i++ {
				if _, err := f.call("file_insert_text", appendLine(p, fmt.Sprint(i))); err != nil {
					return
				}
			}
		}()
		time.Sleep(time.Duration(5+round*7) * time.Millisecond)
		f.kill()
		mustCall(t, w, "file_insert_text", appendLine("w.txt", fmt.Sprint(round)))
	}
	g := mustStart(t, root, "another")
	mustCall(t, g, "file_insert_text", appendLine("w.txt", "g"))
	got, _ := os.ReadFile(filepath.Join(root, "w.txt"))
	if string(got) != "0\n1\n2\n3\n4\ng\n" {
		t.Fatalf("w.txt: %q", got)
	}
	if out, err := cli(root, "verify"); err != nil {
		t.Fatalf("journal verify: %v\n%s", err, out)
	}
}

// TestShare_OtherFlagsServeAlone: a server started with other flags (here
// --read-only) does not follow the first: it serves its client itself,
// with its own flags.
func TestShare_OtherFlagsServeAlone(t *testing.T) {
	root := t.TempDir()
	a := mustStart(t, root, "agent-a")
	mustCall(t, a, "file_create_new", create("f.txt", "hello\n"))
	b := mustStart(t, root, "reader", "--read-only")
	pause(t, a)
	answered, wait := callWithin(b, 5*time.Second, "read_content", map[string]any{"absolute_file_path": "f.txt"})
	if !answered {
		t.Fatal("a --read-only server waited for the first server: it followed a server of other flags")
	}
	r, err := wait()
	if err != nil || r.IsError || !strings.Contains(r.Text, "hello") {
		t.Fatalf("read: %v %+v", err, r)
	}
	r, err = b.call("file_create_new", create("g.txt", "x"))
	if err != nil || !r.IsError && r.Protocol == nil {
		t.Fatalf("a --read-only server wrote: %v %+v", err, r)
	}
}

// TestShare_StoppedWriterServedAlone: a server started while the first is
// stopped (SIGSTOP: its socket accepts, nobody answers) does not hang: it
// waits for the first's answer for a while (10 s), then serves alone.
func TestShare_StoppedWriterServedAlone(t *testing.T) {
	root := t.TempDir()
	a := mustStart(t, root, "agent-a")
	mustCall(t, a, "file_create_new", create("f.txt", "hello\n"))
	resume := pause(t, a)
	b := mustStart(t, root, "agent-b")
	mustCall(t, b, "file_insert_text", appendLine("f.txt", "b"))
	resume()
	mustCall(t, a, "file_insert_text", appendLine("f.txt", "a"))
	got, _ := os.ReadFile(filepath.Join(root, "f.txt"))
	if string(got) != "hello\nb\na\n" {
		t.Fatalf("f.txt: %q", got)
	}
}

// TestShare_HandOverUnderLoad: servers whose clients end one after the
// other — each the writer of the moment, by turns — while the others edit
// back to back: a graceful hand-over answers every call (no
// OUTCOME_UNKNOWN), and every file holds exactly the acknowledged edits, in
// order.
func TestShare_HandOverUnderLoad(t *testing.T) {
	root := t.TempDir()
	const n = 4
	servers := make([]*server, n)
	for i := range servers {
		servers[i] = mustStart(t, root, fmt.Sprintf("agent-%d", i))
		mustCall(t, servers[i], "file_create_new", create(fmt.Sprintf("f%d.txt", i), ""))
	}
	type outcome struct {
		acked []string
		err   error
	}
	results := make([]chan outcome, n)
	stops := make([]chan struct{}, n)
	for i, s := range servers {
		results[i], stops[i] = make(chan outcome, 1), make(chan struct{})
		go func() {
			var o outcome
			defer func() { results[i] <- o }()
			for k := 0; ; k++ {
				select {
				case <-stops[i]:
					return
				default:
				}
				tag := fmt.Sprintf("e%d", k)
				r, err := s.call("file_insert_text", appendLine(fmt.Sprintf("f%d.txt", i), tag))
				if err != nil || r.IsError || r.Protocol != nil {
					o.err = fmt.Errorf("agent-%d %s: %v %+v", i, tag, err, r)
					return
				}
				o.acked = append(o.acked, tag)
			}
		}()
	}
	// the clients end one after the other, the first (the writer) first
	for i := 0; i < n; i++ {
		time.Sleep(150 * time.Millisecond)
		close(stops[i])
		o := <-results[i]
		servers[i].close()
		if o.err != nil {
			t.Fatal(o.err)
		}
		got, _ := os.ReadFile(filepath.Join(root, fmt.Sprintf("f%d.txt", i)))
		want := strings.Join(o.acked, "\n") + "\n"
		if len(o.acked) == 0 || string(got) != want {
			t.Fatalf("f%d.txt holds %d bytes, want its %d acknowledged edits in order", i, len(got), len(o.acked))
		}
		t.Logf("agent-%d: %d edits", i, len(o.acked))
	}
	if out, err := cli(root, "verify"); err != nil {
		t.Fatalf("journal verify: %v\n%s", err, out)
	}
}

// TestShare_ReplacedSocketKept: a writer whose socket was replaced (here
// removed by hand, and a new writer listening in its place) leaves the new
// one's socket when it exits: later servers still find the new writer.
func TestShare_ReplacedSocketKept(t *testing.T) {
	root := t.TempDir()
	sock := filepath.Join(root, ".journal", "serve.sock")
	a := mustStart(t, root, "agent-a")
	if err := os.Remove(sock); err != nil {
		t.Fatal(err)
	}
	b := mustStart(t, root, "agent-b") // finds no socket: a writer too
	mustCall(t, b, "file_create_new", create("f.txt", "b\n"))
	a.close()
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("the first writer's exit removed the second's socket: %v", err)
	}
	c := mustStart(t, root, "agent-c")
	relaysTo(t, c, b, "file_insert_text", appendLine("f.txt", "c"))
}
