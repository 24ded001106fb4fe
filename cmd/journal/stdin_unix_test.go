//go:build unix

package main

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestStdinSwitch_ReadDuringSwitch: a writer's client read that begins on
// the blocking descriptor just as its first follower makes it non-blocking
// (the read finds no data: EAGAIN) goes on through the poller and returns
// the client's next message. It used to end the writer's own session
// ("read /dev/stdin: resource temporarily unavailable"), found by
// TestShare_StoppedWriterServedAlone on a loaded machine.
func TestStdinSwitch_ReadDuringSwitch(t *testing.T) {
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	r := os.NewFile(uintptr(fds[0]), "pipe-r") // blocking, as a client's pipe is
	w := os.NewFile(uintptr(fds[1]), "pipe-w")
	defer w.Close()
	s := &stdinSwitch{in: r}
	type out struct {
		msg string
		err error
	}
	got := make(chan out, 1)
	s.toPoll = func() *os.File {
		f := pollable(r, fds[0]) // the descriptor is non-blocking from here on
		go func() {              // the client's reader, between its check and its read
			buf := make([]byte, 64)
			n, err := s.Read(buf)
			got <- out{string(buf[:n]), err}
		}()
		time.Sleep(50 * time.Millisecond) // let it read the empty pipe
		return f
	}
	s.poll()
	if _, err := w.Write([]byte("{\"jsonrpc\":\"2.0\"}\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case o := <-got:
		if o.err != nil || o.msg != "{\"jsonrpc\":\"2.0\"}\n" {
			t.Fatalf("read across the switch: %q, %v", o.msg, o.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("read across the switch never returned")
	}
	// and later reads go through the poller
	go w.Write([]byte("next\n"))
	buf := make([]byte, 64)
	if n, err := s.Read(buf); err != nil || string(buf[:n]) != "next\n" {
		t.Fatalf("read after the switch: %q, %v", buf[:n], err)
	}
}
