package watch

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Proc is a process as /proc names it once and for all: its pid and its
// start time (in clock ticks since boot, /proc/PID/stat's 22nd field), so
// that a pid the kernel gave again to another process is not taken for it.
type Proc struct {
	Pid   int    `json:"pid"`
	Start uint64 `json:"start"`
}

// procRoot is where /proc is (tests point it elsewhere).
var procRoot = "/proc"

// procStat reads pid's parent, start time, state and command name from
// /proc; ok is false when it is gone or /proc does not say.
func procStat(pid int) (ppid int, start uint64, state byte, comm string, ok bool) {
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, 0, "", false
	}
	// pid (comm) state ppid ... : comm may hold spaces and parentheses
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return 0, 0, 0, "", false
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 20 {
		return 0, 0, 0, "", false
	}
	ppid, err1 := strconv.Atoi(f[1])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil || len(f[0]) != 1 {
		return 0, 0, 0, "", false
	}
	return ppid, start, f[0][0], string(b[open+1 : end]), true
}

// shells are the commands agents run a hook's command line through (sh
// -c "journal hook ...", and what such a line may start it with: env,
// timeout, nice): such a parent ends with the hook, so the agent is above
// it.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "fish": true, "busybox": true,
	"env": true, "timeout": true, "nice": true, "nohup": true, "stdbuf": true, "setsid": true}

// AgentProc is the process of the agent that ran this hook: this
// process's parent, or above the shells (at most three) that ran the
// hook's command line; nil where /proc does not say (not Linux).
func AgentProc() *Proc {
	pid := os.Getppid()
	for range 4 {
		ppid, start, _, comm, ok := procStat(pid)
		if !ok {
			return nil
		}
		if !shells[comm] || ppid <= 1 {
			return &Proc{Pid: pid, Start: start}
		}
		pid = ppid
	}
	_, start, _, _, ok := procStat(pid)
	if !ok {
		return nil
	}
	return &Proc{Pid: pid, Start: start}
}

// SelfProc is this process (journal exec's call: killed, its window
// closes); nil where /proc does not say.
func SelfProc() *Proc {
	_, start, _, _, ok := procStat(os.Getpid())
	if !ok {
		return nil
	}
	return &Proc{Pid: os.Getpid(), Start: start}
}

// Gone reports whether p is known to have ended: /proc has no such pid,
// or one started at another time (the pid given again), or a zombie. A
// nil p, or a system without /proc, is never known gone.
func (p *Proc) Gone() bool {
	if p == nil || p.Pid <= 0 {
		return false
	}
	if _, err := os.Stat(procRoot + "/self"); err != nil {
		return false // no /proc here: nothing known
	}
	_, start, state, _, ok := procStat(p.Pid)
	return !ok || start != p.Start || state == 'Z' || state == 'X'
}

// String is "pid N".
func (p *Proc) String() string { return fmt.Sprintf("pid %d", p.Pid) }

// writersOf lists, for each of the files abs, the processes that hold it
// open for writing now (/proc/PID/fd and fdinfo's flags), in one pass
// over /proc: the processes of other users are not readable, and a writer
// that closed the file already is not seen.
func writersOf(abs map[string]bool) map[string][]int {
	ds, err := os.ReadDir(procRoot)
	if err != nil {
		return nil
	}
	out := map[string][]int{}
	for _, d := range ds {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		fdDir := filepath.Join(procRoot, d.Name(), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			l, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err != nil || !abs[l] {
				continue
			}
			if writable(filepath.Join(procRoot, d.Name(), "fdinfo", fd.Name())) {
				out[l] = append(out[l], pid)
			}
		}
	}
	return out
}

// writable reports whether the fdinfo file at p says its descriptor was
// opened for writing (flags, octal: O_WRONLY or O_RDWR).
func writable(p string) bool {
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "flags:"); ok {
			f, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			return err == nil && f&3 != 0
		}
	}
	return false
}

// outside reports whether pid is known not to be p nor one of its
// descendants: its parents' chain, read whole, ends (pid 0) without
// reaching p started when p was. A chain that cannot be read whole (a
// process on it exited meanwhile) is not known outside.
func (p *Proc) outside(pid int) bool {
	for range 256 {
		if pid <= 0 {
			return true
		}
		ppid, start, _, _, ok := procStat(pid)
		if !ok {
			return false
		}
		if pid == p.Pid {
			return start != p.Start
		}
		pid = ppid
	}
	return false
}
