package mcpclient

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process is a server started as a child process, with a Client on its
// stdin and stdout.
type Process struct {
	*Client
	Cmd    *exec.Cmd
	stderr *tail
	done   chan struct{}
	err    error // Wait's result, set before done is closed
}

// Start runs argv in dir (env appended to the current environment) and
// connects a client to it. timeout bounds each request; on expiry the
// process gets SIGQUIT (a Go server then prints every goroutine's stack to
// stderr, which Stderr keeps for the report of the hang) and, if it has not
// ended ten seconds later, SIGKILL (on a loaded machine a dump of many
// goroutines takes seconds).
func Start(argv []string, dir string, env []string, timeout time.Duration) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("mcpclient: empty command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &Process{Cmd: cmd, stderr: &tail{max: stderrKeep}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("mcpclient: start %s: %w", argv[0], err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	p.Client = New(stdout, stdin)
	p.Timeout = timeout
	p.OnTimeout = func() {
		_ = cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	}
	return p, nil
}

// stderrKeep is how much of a server's stderr a Process keeps: enough for a
// Go goroutine dump.
const stderrKeep = 256 << 10

// PID returns the process id.
func (p *Process) PID() int { return p.Cmd.Process.Pid }

// PeakRSS returns the process's peak resident set size in bytes (VmHWM in
// /proc/PID/status).
func (p *Process) PeakRSS() (int64, error) { return VmHWM(p.PID()) }

// CPU returns the user and system CPU time the process used, once it has
// ended (Close), else 0.
func (p *Process) CPU() time.Duration {
	if !p.Exited() || p.Cmd.ProcessState == nil {
		return 0
	}
	return p.Cmd.ProcessState.UserTime() + p.Cmd.ProcessState.SystemTime()
}

// Stderr returns the last 256 KiB the process wrote to stderr.
func (p *Process) Stderr() string { return p.stderr.String() }

// StderrAfterTimeout returns Stderr once the process has ended, as it does
// after a request timed out (SIGQUIT, then SIGKILL ten seconds later): a
// request's read fails as soon as the process's stdout closes, before its
// stderr (the goroutine dump) has been copied in full.
func (p *Process) StderrAfterTimeout() string {
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
	}
	return p.stderr.String()
}

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Close closes the server's stdin (the MCP stdio shutdown), waits up to
// two seconds, then kills it.
func (p *Process) Close() error {
	if w, ok := p.w.(interface{ Close() error }); ok {
		_ = w.Close()
	}
	select {
	case <-p.done:
	case <-time.After(2 * time.Second):
		_ = p.Cmd.Process.Kill()
		<-p.done
	}
	return nil
}

// VmHWM returns the peak resident set size of process pid in bytes.
func VmHWM(pid int) (int64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseVmHWM(f)
}

func parseVmHWM(f interface{ Read([]byte) (int, error) }) (int64, error) {
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "VmHWM:") {
			continue
		}
		fields := strings.Fields(strings.TrimPrefix(line, "VmHWM:"))
		if len(fields) < 1 {
			break
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("mcpclient: VmHWM %q: %w", line, err)
		}
		return kb * 1024, nil
	}
	return 0, errors.New("mcpclient: no VmHWM line in status")
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex // guards b
	b   []byte
	max int
}

// Write implements io.Writer.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

// String implements fmt.Stringer.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
