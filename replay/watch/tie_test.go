package watch

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/journalfs/journal/replay"
)

// TestLimitOf: a call's limit fits its tool, never over the maximum.
func TestLimitOf(t *testing.T) {
	for _, c := range []struct {
		tool, input string
		max, want   time.Duration
	}{
		{"Bash", `{"command":"go test"}`, 10 * time.Minute, 3 * time.Minute},
		{"Bash", `{"command":"go test","timeout":300000}`, 10 * time.Minute, 6 * time.Minute},
		{"Bash", `{"command":"go test","timeout":3600000}`, 30 * time.Minute, 11 * time.Minute},
		{"Bash", `{"command":"go test"}`, 3 * time.Second, 3 * time.Second},
		{"Edit", `{"file_path":"/x"}`, 10 * time.Minute, 2 * time.Minute},
		{"mcp__other__tool", `{}`, 10 * time.Minute, 10 * time.Minute},
	} {
		if got := limitOf(Call{Tool: c.tool, Input: json.RawMessage(c.input)}, c.max); got != c.want {
			t.Errorf("%s %s (max %v): %v, want %v", c.tool, c.input, c.max, got, c.want)
		}
	}
}

// TestTie: each changed file goes to the calls that can claim it: a
// file-edit call its named file only, a call closed without its
// after-hook nothing (what it was open beside is listed as unproven).
func TestTie(t *testing.T) {
	dir := t.TempDir()
	roots := []*replay.Root{{Dir: dir}}
	bash := Call{ID: "B", Tool: "Bash", Input: json.RawMessage(`{"command":"make"}`)}
	edit := Call{ID: "E", Tool: "Edit", Input: json.RawMessage(`{"file_path":"` + filepath.Join(dir, "e.txt") + `"}`)}
	killed := bash
	killed.Closed = "exited"
	// Cline's write_to_file names its file relative to the agent's directory
	relative := Call{ID: "R", Tool: "write_to_file", Input: json.RawMessage(`{"path":"e.txt","content":"x"}`), Dir: filepath.Join(dir, "sub")}
	show := func(gs []tied) string {
		var out []string
		for _, g := range gs {
			var ids, un []string
			for _, c := range g.calls {
				ids = append(ids, c.ID)
			}
			for _, c := range g.unproven {
				un = append(un, c.ID)
			}
			out = append(out, strings.Join(g.keys, ",")+"→"+strings.Join(ids, ",")+"?"+strings.Join(un, ","))
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		calls []Call
		want  string
	}{
		{[]Call{bash}, "e.txt,p.txt,sub/e.txt→B?"},
		{[]Call{edit}, "p.txt,sub/e.txt→?E e.txt→E?"},
		{[]Call{edit, bash}, "p.txt,sub/e.txt→B? e.txt→E,B?"},
		{[]Call{killed}, "e.txt,p.txt,sub/e.txt→?B"},
		{[]Call{edit, killed}, "p.txt,sub/e.txt→?B e.txt→?E,B"},
		{[]Call{relative}, "e.txt,p.txt→?R sub/e.txt→R?"},
	} {
		if got := show(tie([]string{"e.txt", "p.txt", "sub/e.txt"}, c.calls, roots, nil)); got != c.want {
			t.Errorf("%s: %s, want %s", show([]tied{{calls: c.calls}}), got, c.want)
		}
	}
}

// TestProcGone: a process is gone once it exited (even if its pid is
// given again: the start time differs); this process is not.
func TestProcGone(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	_, start, _, _, ok := procStat(os.Getpid())
	me := &Proc{Pid: os.Getpid(), Start: start}
	if !ok || me.Gone() {
		t.Fatalf("this process is gone: %+v %v", me, ok)
	}
	if (&Proc{Pid: os.Getpid(), Start: start + 1}).Gone() == false {
		t.Error("a pid started at another time is taken for the process")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if (&Proc{Pid: cmd.Process.Pid, Start: 1}).Gone() == false {
		t.Error("an exited process is not gone")
	}
	var nilProc *Proc
	if nilProc.Gone() {
		t.Error("an unknown process is gone")
	}
}

// TestWatch_AgentGoneClosesCall: a call whose agent's process exits is
// closed by the watcher's loop as soon as a change is waiting, without a
// hook or a flush: the change is recorded within the settle time as the
// watcher's own, listing the call "exited" — not held back for minutes.
func TestWatch_AgentGoneClosesCall(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"a.txt": "a\n"})
	h := newHarness(t, dir)
	agent := exec.Command("sleep", "60")
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	h.beginBash("K", agent.Process.Pid)
	base := h.last()
	files(t, dir, map[string]string{"a.txt": "a person's\n"})
	if got := h.w.Open(); len(got) != 1 || got[0].Call.ID != "K" {
		t.Fatalf("open calls: %+v", got)
	}
	agent.Process.Kill()
	agent.Wait()
	h.settled()
	evs := h.events(base + 1)
	if len(evs) != 1 || evs[0].Tool != "watch" || evs[0].Actor.Kind == "agent" || !strings.Contains(string(evs[0].Args), `"closed":"exited"`) {
		t.Fatalf("want one event of the watcher's listing K exited, got %d: %+v", len(evs), evs)
	}
	if got := h.w.Open(); len(got) != 0 {
		t.Fatalf("the call is still open: %+v", got)
	}
}

// TestWatch_WriterOutsideTheCall: during a Bash call, a process outside
// the agent's tree holds a file open for writing (a person's program):
// the watcher finds it in /proc and the change is no call's; a file the
// agent's own process holds open is the call's.
func TestWatch_WriterOutsideTheCall(t *testing.T) {
	if _, err := os.Stat("/proc/self/fdinfo"); err != nil {
		t.Skip("no /proc")
	}
	dir := t.TempDir()
	files(t, dir, map[string]string{"a.txt": "a\n", "c.txt": "c\n"})
	h := newHarness(t, dir)
	// holder runs script in dir once told to go, holding what it opened
	// until its stdin closes
	holder := func(script string) (cmd *exec.Cmd, do, stop func()) {
		cmd = exec.Command("sh", "-c", "read go; "+script+"; read x")
		cmd.Dir = dir
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, func() { in.Write([]byte("go\n")) }, sync.OnceFunc(func() { in.Close(); cmd.Wait() })
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("never: %s", what)
			}
		}
	}
	agent, act, stopAgent := holder("exec 3>>c.txt; echo agent >&3")
	defer stopAgent()
	c := h.beginBash("B", agent.Process.Pid)
	base := h.last()
	act()
	waitFor("the agent wrote c.txt", func() bool { b, _ := os.ReadFile(filepath.Join(dir, "c.txt")); return string(b) == "c\nagent\n" })
	_, save, stopPerson := holder("exec 3>>a.txt; echo person >&3")
	defer stopPerson()
	save()
	waitFor("a.txt proven written outside the call", func() bool { h.w.mu.Lock(); defer h.w.mu.Unlock(); return h.w.outside["a.txt"] })
	stopPerson()
	if _, err := h.w.End(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range h.events(base + 1) {
		got[paths(e)] = e.Tool + " " + e.Actor.Kind
	}
	if got["m a.txt"] != "watch external" || got["m c.txt"] != "Bash agent" || len(got) != 2 {
		t.Fatalf("want a.txt the watcher's, c.txt the call's: %v", got)
	}
}

// beginBash opens a Bash call id whose agent is the process pid.
func (h *harness) beginBash(id string, pid int) Call {
	h.t.Helper()
	_, start, _, _, _ := procStat(pid)
	c := Call{ID: id, Agent: "claude-code", Session: "s", Tool: "Bash", Input: json.RawMessage(`{"command":"make"}`), Origin: "hook",
		Proc: &Proc{Pid: pid, Start: start}}
	if _, err := h.w.Begin(context.Background(), c); err != nil {
		h.t.Fatal(err)
	}
	return c
}
