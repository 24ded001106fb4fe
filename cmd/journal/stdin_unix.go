//go:build unix

package main

import (
	"os"
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
	if polledStdin != nil {
		return polledStdin
	}
	growPipe(os.Stdin)
	polledStdin = os.Stdin
	fi, err := os.Stdin.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return polledStdin
	}
	if err := syscall.SetNonblock(0, true); err != nil {
		return polledStdin
	}
	polledStdin = os.NewFile(0, os.Stdin.Name()) // non-blocking: registered with the poller
	return polledStdin
}

// stdinSwitch is a writer's standard input: read blocking while it serves
// its own client alone — with one client waiting for each answer, the
// poller's wake-up is latency (one server made 1194–1390 edits/s polled,
// 1356–1464 blocking) — and through the poller once it serves followers,
// whose sessions' goroutines the blocked thread's hand-offs disturbed (2
// and 4 servers: 0.99–1.11× of one with the writer's stdin blocking,
// 1.20–1.30× polled). One way: it never goes back. A read blocked when it
// switches returns as it would have.
type stdinSwitch struct{ polled atomic.Pointer[os.File] }

func (s *stdinSwitch) Read(p []byte) (int, error) {
	if f := s.polled.Load(); f != nil {
		return f.Read(p)
	}
	return os.Stdin.Read(p)
}

// poll makes the next reads go through the poller.
func (s *stdinSwitch) poll() {
	if s.polled.Load() == nil {
		s.polled.Store(stdinReader())
	}
}
