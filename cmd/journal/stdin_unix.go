//go:build unix

package main

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
)

// polledStdin is standard input as stdinReader returns it.
var polledStdin *os.File

// stdinReader returns standard input enlarged (growPipe) and, when it is a
// pipe or a socket, non-blocking, so that the Go runtime waits for it in
// its poller. A blocking read of an empty pipe holds a thread in the
// kernel; the runtime's monitor takes its P away after 20 µs and hands it
// back when the read returns — per message: many context switches per
// relayed call. Polled, the relay's CPU falls (BENCHMARKS.md). A relay
// reads its stdin so; a writer switches to it when its first follower
// comes (stdinSwitch). The flag is on the pipe's read end, which only this
// process reads.
func stdinReader() *os.File {
	if polledStdin == nil {
		growPipe(os.Stdin)
		polledStdin = pollable(os.Stdin, 0)
	}
	return polledStdin
}

// pollable returns f (whose descriptor is fd) registered with the poller
// when it is a pipe or a socket: fd is made non-blocking, and the returned
// file is the one to read from. Otherwise f itself.
func pollable(f *os.File, fd int) *os.File {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return f
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}

// stdinSwitch is a writer's standard input: read blocking while it serves
// its own client alone — with one client waiting for each answer, the
// poller's wake-up is latency (one server made 1194–1390 edits/s polled,
// 1356–1464 blocking) — and through the poller once it serves followers,
// whose sessions' goroutines the blocked thread's hand-offs disturbed (2
// and 4 servers: 0.99–1.11× of one with the writer's stdin blocking,
// 1.20–1.30× polled). One way: it never goes back. A read blocked when it
// switches returns as it would have; a read that began on the blocking
// file just as the descriptor turned non-blocking (EAGAIN: no data yet)
// waits for the switch to finish and goes on through the poller — it is
// never an error for the client's stream.
type stdinSwitch struct {
	in     *os.File        // the blocking file
	toPoll func() *os.File // makes in's descriptor non-blocking, returns the file to poll
	mu     sync.Mutex      // held while switching
	polled atomic.Pointer[os.File]
}

// newStdinSwitch returns the switch over this process's standard input.
func newStdinSwitch() *stdinSwitch {
	return &stdinSwitch{in: os.Stdin, toPoll: stdinReader}
}

func (s *stdinSwitch) Read(p []byte) (int, error) {
	if f := s.polled.Load(); f != nil {
		return f.Read(p)
	}
	n, err := s.in.Read(p)
	if n == 0 && errors.Is(err, syscall.EAGAIN) {
		s.mu.Lock() // only the switch turns the descriptor non-blocking: wait for it
		f := s.polled.Load()
		s.mu.Unlock()
		if f != nil {
			return f.Read(p)
		}
	}
	return n, err
}

// poll makes the next reads go through the poller.
func (s *stdinSwitch) poll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.polled.Load() == nil {
		s.polled.Store(s.toPoll())
	}
}
